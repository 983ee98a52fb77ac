// The metal backend's facts: MSL, no f64, and no 64-bit atomics (Metal has no 64-bit compare-and-swap).
// The runtime is built on Apple platforms only; elsewhere only the generator is here. Textures are sampled
// in software until the MSL generator has the hardware path (docs/backends-metal.md).
#include "backends/metal/metal_description.hpp"

#include "codegen/msl_gen.hpp"
#ifdef TACK_HAVE_METAL
#include "backends/metal/metal_backend.hpp"  // Apple platforms only
#endif

namespace tack::backends::metal {
using namespace tack::runtime;
namespace {
#ifdef TACK_HAVE_METAL
constexpr auto kCreate = make_metal_backend;
#else
constexpr std::shared_ptr<Backend> (*kCreate)(const DeviceOptions&) = nullptr;
#endif
}  // namespace

const BackendDescription& metal_description() {
  static const BackendDescription d{
      .name = "metal",
      .display_name = "Metal",
      .options = {},
      .dtypes = {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32, DType::U32, DType::I64, DType::U64,
                 DType::F32},
      .atomic_dtypes = {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32, DType::U32, DType::F32},
      .device_reductions = true,
      .workgroups = true,
      .generate = c_family_source<codegen::generate_msl>,
      .create = kCreate};
  return d;
}

}  // namespace tack::backends::metal
