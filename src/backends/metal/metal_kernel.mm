// MSL to a compute pipeline state, without fast math.
#include "backends/metal/metal_kernel.hpp"

#include "backends/metal/metal_device.hpp"
#include "backends/metal/metal_objc.h"
#include "runtime/cache/cache_key.hpp"
#include "runtime/cache/cached_binary.hpp"
#include "runtime/cache/load_or_build.hpp"
#include "runtime/diagnostics/warnings.hpp"

#include <optional>

namespace tack::backends::metal {
using namespace tack::runtime;
namespace {

// The entry's layout; the generator's version is the library's build id, which key_text adds.
constexpr const char* kCacheFormat = "tack-metal-msl-1";
constexpr const char* kCompileOptions = "mathMode=safe, precise functions (fastMathEnabled=NO before macOS 15)";

std::string os_version() {
  @autoreleasepool {
    NSString* v = [[NSProcessInfo processInfo] operatingSystemVersionString];
    return v ? v.UTF8String : "unknown";
  }
}

std::string describe(NSError* error) {
  if (!error) return "no error description";
  return error.localizedDescription ? error.localizedDescription.UTF8String : "no error description";
}

// Fast math would let the compiler reassociate, flush denormals and use approximate functions, which the
// numerical contract (docs/semantics.md) forbids. SDKs from macOS 15 / iOS 18 deprecate fastMathEnabled for mathMode.
void without_fast_math(MTLCompileOptions* options) {
#if (defined(__MAC_OS_X_VERSION_MAX_ALLOWED) && __MAC_OS_X_VERSION_MAX_ALLOWED >= 150000) || \
    (defined(__IPHONE_OS_VERSION_MAX_ALLOWED) && __IPHONE_OS_VERSION_MAX_ALLOWED >= 180000)
  if (@available(macOS 15.0, iOS 18.0, *)) {
    options.mathMode = MTLMathModeSafe;
    options.mathFloatingPointFunctions = MTLMathFloatingPointFunctionsPrecise;
    return;
  }
#endif
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
  options.fastMathEnabled = NO;
#pragma clang diagnostic pop
}

}  // namespace

Pipeline::Pipeline(std::unique_ptr<PipelineObjects> objects, std::string entry, std::size_t max_threads)
    : objects_(std::move(objects)), entry_(std::move(entry)), max_threads_(max_threads) {}

Pipeline::~Pipeline() = default;

std::unique_ptr<Pipeline> build_pipeline(const Device& device, const abi::CSource& source, const std::string& what) {
  dump_msl(source);
  @autoreleasepool {
    id<MTLDevice> dev = device.objects().device;
    MTLCompileOptions* options = [[MTLCompileOptions alloc] init];
    without_fast_math(options);
    NSString* text = [[NSString alloc] initWithBytes:source.text.data()
                                              length:source.text.size()
                                            encoding:NSUTF8StringEncoding];
    NSError* error = nil;
    id<MTLLibrary> library = text ? [dev newLibraryWithSource:text options:options error:&error] : nil;
    if (!library)
      throw CompileError("metal: newLibraryWithSource refused " + what + ": " + describe(error) + "\n--- source ---\n" +
                         source.text);
    NSString* entry = [NSString stringWithUTF8String:source.entry.c_str()];
    auto objects = std::make_unique<PipelineObjects>();
    objects->function = [library newFunctionWithName:entry];
    if (!objects->function)
      throw CompileError("metal: the library built for " + what + " has no function '" + source.entry + "'");
    error = nil;
    objects->pipeline = [dev newComputePipelineStateWithFunction:objects->function error:&error];
    if (!objects->pipeline)
      throw CompileError("metal: no compute pipeline state for " + what +
                         " (newComputePipelineStateWithFunction): " + describe(error));
    const std::size_t max_threads = objects->pipeline.maxTotalThreadsPerThreadgroup;
    return std::make_unique<Pipeline>(std::move(objects), source.entry, max_threads);
  }
}

std::unique_ptr<Pipeline> build_pipeline(const Device& device, const runtime::BuildRequest& request) {
  const std::string& what = request.what;
  auto make_key = [&] {
    return std::optional<CacheKey>(
        CacheKey{kCacheFormat, "metal", os_version(), device.info().name, kCompileOptions, request.key});
  };
  auto load = [&](std::string_view payload, std::string*) -> std::unique_ptr<Pipeline> {
    if (std::optional<CachedBinary> cached = decode_cached_binary(payload))
      return build_pipeline(device, abi::CSource{cached->image, cached->entry}, what);
    warn("the cached MSL entry for " + what + " is malformed; generating it again");
    return nullptr;
  };
  auto compile = [&](bool caching) {
    const abi::CSource src = request.generate();
    std::unique_ptr<Pipeline> pipeline = build_pipeline(device, src, what);
    return Built<std::unique_ptr<Pipeline>>{std::move(pipeline),
                                            caching ? encode_cached_binary(src.entry, src.text) : std::string()};
  };
  return load_or_build<std::unique_ptr<Pipeline>>(DiskCache::global(), make_key, load, compile);
}

}  // namespace tack::backends::metal
