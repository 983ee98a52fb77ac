// Loading libocloc and one in-process ocloc invocation.
#include "drivers/ocloc_api.hpp"

#include "drivers/dynamic_library.hpp"

#include <mutex>

namespace tack::drivers {
namespace {

void resolve_entry_points(DynamicLibrary& lib, OclocApi& api) { TACK_OCLOC_ENTRY_POINTS(TACK_DRIVER_ENTRY_RESOLVE) }

}  // namespace

const OclocApi* ocloc(std::string* why) {
  static OclocApi api;
  static DynamicLibrary lib;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    if (!lib.open({"libocloc.so", "libocloc64.so"})) {
      failure = "libocloc could not be loaded (" + lib.why() + ")";
      return;
    }
    resolve_entry_points(lib, api);
    if (!lib.missing().empty()) {
      failure = lib.name() + " lacks " + lib.missing();
      return;
    }
    api.library = lib.name();
  });
  if (!failure.empty()) {
    if (why) *why = failure;
    return nullptr;
  }
  return &api;
}

int ocloc_run(const OclocApi& api, const std::vector<std::string>& args, const std::string& source,
              const std::string& source_name, std::map<std::string, std::string>* outputs) {
  std::vector<const char*> argv = {"ocloc"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  const auto* data = reinterpret_cast<const std::uint8_t*>(source.c_str());
  const std::uint64_t length = source.size() + 1;  // with the terminating null
  const char* name = source_name.c_str();
  std::uint32_t count = 0;
  std::uint8_t** out = nullptr;
  std::uint64_t* lengths = nullptr;
  char** names = nullptr;
  int rc = api.oclocInvoke(static_cast<unsigned>(argv.size()), argv.data(), 1, &data, &length, &name, 0, nullptr,
                           nullptr, nullptr, &count, &out, &lengths, &names);
  if (outputs) {
    for (std::uint32_t i = 0; i < count; ++i)
      (*outputs)[names[i] ? names[i] : ""] = std::string(reinterpret_cast<const char*>(out[i]), lengths[i]);
  }
  api.oclocFreeOutput(&count, &out, &lengths, &names);
  return rc;
}

}  // namespace tack::drivers
