// libocloc compilation of generated OpenCL C for Intel GPUs.
#include "backends/level_zero/ocloc_compile.hpp"

#include "drivers/ocloc_api.hpp"

#include <tack/error.hpp>

#include <map>
#include <mutex>

namespace tack::backends::level_zero {

OclocOutput compile_with_ocloc(const std::string& source, const std::string& device, bool spirv_only) {
  std::string why;
  const drivers::OclocApi* api = drivers::ocloc(&why);
  if (!api) throw BackendUnavailable("level_zero: " + why);
  std::vector<std::string> args = {"compile", "-q", "-device", device, "-options", kOclocOptions, "-file", "kernel.cl"};
  if (spirv_only) args.insert(args.begin() + 1, "-spv_only");
  std::map<std::string, std::string> outputs;
  // libocloc keeps global state between invocations; one call at a time.
  static std::mutex mutex;
  int rc;
  {
    std::lock_guard lock(mutex);
    rc = drivers::ocloc_run(*api, args, source, "kernel.cl", &outputs);
  }
  OclocOutput out;
  for (const auto& [name, data] : outputs) {
    if (name.ends_with(".spv")) out.spirv = data;
    if (name.ends_with(".bin")) out.binary = data;
  }
  if (rc != 0 || out.spirv.empty() || (!spirv_only && out.binary.empty())) {
    std::string log = outputs.count("stdout.log") ? outputs["stdout.log"] : std::string();
    throw CompileError("level_zero: ocloc could not compile for device " + device + " (exit " + std::to_string(rc) +
                       "):\n" + log + "\n--- source ---\n" + source);
  }
  return out;
}

}  // namespace tack::backends::level_zero
