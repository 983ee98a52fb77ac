// Program builds and the disk cache of program binaries.
#include "backends/opencl/opencl_kernel.hpp"

#include "backends/opencl/opencl_driver.hpp"
#include "runtime/cache/cached_binary.hpp"
#include "runtime/cache/load_or_build.hpp"
#include "runtime/diagnostics/warnings.hpp"

#include <tack/error.hpp>

#include <atomic>

namespace tack::backends::opencl {
using namespace tack::runtime;
namespace cl = opencl::driver;
namespace {

std::atomic<std::uint64_t> g_source_builds{0};
std::atomic<std::uint64_t> g_binary_loads{0};

// The entry's layout; the generated code's version is the library's build id, which key_text adds.
constexpr const char* kCacheFormat = "tack-opencl-binary-3";

std::string build_log(cl::cl_program program, cl::cl_device_id device) {
  const cl::Api& api = cl::api();
  std::size_t size = 0;
  if (api.clGetProgramBuildInfo(program, device, cl::CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != cl::CL_SUCCESS)
    return "(no build log)";
  std::string log(size, '\0');
  if (api.clGetProgramBuildInfo(program, device, cl::CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != cl::CL_SUCCESS)
    return "(no build log)";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::string numbered(const std::string& source) {
  std::string out;
  int line = 1;
  std::size_t start = 0;
  while (start < source.size()) {
    std::size_t end = source.find('\n', start);
    if (end == std::string::npos) end = source.size();
    out += std::to_string(line++) + "\t" + source.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

// The kernel `entry` of a built program; takes ownership of the program.
std::unique_ptr<Program> make_program(cl::cl_program program, const Queue& queue, const std::string& entry) {
  const cl::Api& api = cl::api();
  cl::cl_int err = cl::CL_SUCCESS;
  cl::cl_kernel kernel = api.clCreateKernel(program, entry.c_str(), &err);
  if (err != cl::CL_SUCCESS) {
    api.clReleaseProgram(program);
    cl::check(err, "clCreateKernel");
  }
  std::size_t limit = 0;
  err = api.clGetKernelWorkGroupInfo(kernel, queue.device().device, cl::CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit,
                                     nullptr);
  if (err != cl::CL_SUCCESS) {
    api.clReleaseKernel(kernel);
    api.clReleaseProgram(program);
    cl::check(err, "clGetKernelWorkGroupInfo");
  }
  return std::make_unique<Program>(program, kernel, entry, limit);
}

// A program from a cached binary, or nullptr (with a warning) when the driver refuses it.
std::unique_ptr<Program> load_binary(const Queue& queue, const std::string& binary, const std::string& entry,
                                     const std::string& options, const std::string& what) {
  const cl::Api& api = cl::api();
  const cl::cl_device_id device = queue.device().device;
  const std::size_t size = binary.size();
  const auto* data = reinterpret_cast<const unsigned char*>(binary.data());
  cl::cl_int status = cl::CL_SUCCESS, err = cl::CL_SUCCESS;
  cl::cl_program program = api.clCreateProgramWithBinary(queue.context(), 1, &device, &size, &data, &status, &err);
  if (err == cl::CL_SUCCESS && status == cl::CL_SUCCESS)
    err = api.clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
  else if (err == cl::CL_SUCCESS)
    err = status;
  if (err != cl::CL_SUCCESS) {
    if (program) api.clReleaseProgram(program);
    warn("the cached OpenCL program binary for " + what + " did not load (" + cl::error_name(err) + "); rebuilding");
    return nullptr;
  }
  g_binary_loads.fetch_add(1, std::memory_order_relaxed);
  return make_program(program, queue, entry);
}

std::string program_binary(cl::cl_program program) {
  const cl::Api& api = cl::api();
  std::size_t size = 0;
  cl::check(api.clGetProgramInfo(program, cl::CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
            "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
  std::string binary(size, '\0');
  auto* data = reinterpret_cast<unsigned char*>(binary.data());
  cl::check(api.clGetProgramInfo(program, cl::CL_PROGRAM_BINARIES, sizeof data, &data, nullptr),
            "clGetProgramInfo(CL_PROGRAM_BINARIES)");
  return binary;
}

}  // namespace

Program::Program(cl::cl_program program, cl::cl_kernel kernel, std::string entry, std::size_t group_limit)
    : program_(program), kernel_(kernel), entry_(std::move(entry)), group_limit_(group_limit) {}

Program::~Program() {
  const cl::Api& api = cl::api();
  api.clReleaseKernel(kernel_);
  api.clReleaseProgram(program_);
}

std::unique_ptr<Program> build_program(const Queue& queue, const BuildRequest& request) {
  const DeviceInfo& d = queue.device();
  const std::string options = build_options(d);
  // Everything that can change the binary: the toolchain (platform, device, driver), the options, the code.
  auto make_key = [&] {
    return std::optional<CacheKey>(CacheKey{kCacheFormat, d.platform_name + " | " + d.platform_version,
                                            d.driver_version, d.device_name + " | " + d.device_version, options,
                                            request.key});
  };
  auto load = [&](std::string_view payload, std::string*) -> std::unique_ptr<Program> {
    if (std::optional<CachedBinary> cached = decode_cached_binary(payload))
      return load_binary(queue, cached->image, cached->entry, options, request.what);
    warn("the cached OpenCL entry for " + request.what + " is malformed; rebuilding");
    return nullptr;
  };
  auto compile = [&](bool caching) {
    const abi::CSource src = request.generate();
    const cl::Api& api = cl::api();
    const char* text = src.text.c_str();
    const std::size_t length = src.text.size();
    cl::cl_int err = cl::CL_SUCCESS;
    cl::cl_program program = api.clCreateProgramWithSource(queue.context(), 1, &text, &length, &err);
    cl::check(err, "clCreateProgramWithSource");
    err = api.clBuildProgram(program, 1, &d.device, options.c_str(), nullptr, nullptr);
    g_source_builds.fetch_add(1, std::memory_order_relaxed);
    finish_queues_at_exit_after_first_build();
    if (err != cl::CL_SUCCESS) {
      std::string log = build_log(program, d.device);
      api.clReleaseProgram(program);
      throw CompileError("OpenCL C for " + request.what + " did not build on " + d.label() +
                         " (clBuildProgram: " + cl::error_name(err) + ", options '" + options + "'):\n" + log +
                         "\n--- source ---\n" + numbered(src.text));
    }
    std::string payload;
    try {
      if (caching) payload = encode_cached_binary(src.entry, program_binary(program));
    } catch (const BackendError& e) {
      warn("the OpenCL program binary for " + request.what + " could not be read for the disk cache (" + e.what() +
           ")");
    }
    return Built<std::unique_ptr<Program>>{make_program(program, queue, src.entry), std::move(payload)};
  };
  return load_or_build<std::unique_ptr<Program>>(DiskCache::global(), make_key, load, compile);
}

std::uint64_t source_build_count() { return g_source_builds.load(); }
std::uint64_t binary_load_count() { return g_binary_loads.load(); }

}  // namespace tack::backends::opencl
