// The code-generation targets and the source-only stand-in backend.
#include "runtime/source_targets.hpp"

#include "codegen/cuda_gen.hpp"
#include "codegen/hip_gen.hpp"
#include "codegen/msl_gen.hpp"
#include "codegen/opencl_gen.hpp"
#include "passes/pipeline.hpp"

#include <tack/error.hpp>

namespace tack::runtime {
namespace {

const std::vector<DType> kAllTen = {DType::I8,  DType::U8,  DType::I16, DType::U16, DType::I32,
                                    DType::U32, DType::I64, DType::U64, DType::F32, DType::F64};

Capabilities gpu_caps(std::string name, std::string display, std::vector<DType> dtypes, std::vector<DType> atomics,
                      std::vector<std::string> spaces, std::vector<std::string> options) {
  Capabilities c;
  c.name = std::move(name);
  c.display_name = std::move(display);
  c.supported_dtypes = std::move(dtypes);
  c.supports_device_reductions = true;
  c.supports_workgroups = true;
  c.device_memory_spaces = std::move(spaces);
  c.device_options = std::move(options);
  return derive_capabilities(c, atomics);
}

std::vector<DType> without_f64() {
  std::vector<DType> v = kAllTen;
  v.pop_back();
  return v;
}

passes::PackedKernel lowered(const ir::Kernel& k) { return passes::lower_for_backend(k, passes::kCFamilyLowering); }
std::string cuda_source(const ir::Kernel& k) { return codegen::generate_cuda(lowered(k)).text; }
std::string hip_source(const ir::Kernel& k) { return codegen::generate_hip(lowered(k)).text; }
std::string opencl_source(const ir::Kernel& k) { return codegen::generate_opencl(lowered(k)).text; }
std::string msl_source(const ir::Kernel& k) { return codegen::generate_msl(lowered(k)).text; }

class SourceOnlyBackend : public Backend {
 public:
  SourceOnlyBackend(const SourceTarget& t, std::string reason) : Backend(t.caps), target_(t), reason_(std::move(reason)) {}
  std::shared_ptr<Buffer> allocate(std::size_t, bool) override { unavailable(); }
  std::unique_ptr<CompiledVariant> compile(const ir::Kernel&, const VariantKey&) override { unavailable(); }
  std::string source(const ir::Kernel& typed) override { return target_.generate(typed); }
  void launch(const Launch&) override { unavailable(); }
  // As the device would answer, so inspect shows the code it compiles (reference: Textures): CUDA samples in
  // hardware. HIP's generator has the hardware path, but its runtime samples in software until its images land,
  // so the stand-in answers as the runtime does.
  bool texture_in_hardware(const std::array<std::int64_t, 3>&) const override { return target_.name == "cuda"; }

 private:
  [[noreturn]] void unavailable() const {
    throw BackendUnavailable("the " + target_.name + " backend has no device here (" + reason_ +
                             "); only its generated source can be inspected");
  }
  const SourceTarget& target_;
  std::string reason_;
};

}  // namespace

const std::vector<SourceTarget>& source_targets() {
  // Atomics: every dtype the backend has, native where the language has the operation and emulated with
  // compare-and-swap otherwise (8- and 16-bit on the containing 32-bit word). Metal has no 64-bit
  // compare-and-swap, so no 64-bit atomics. Level Zero and OpenCL are listed as for a device with f64 and
  // 64-bit atomics; the opencl backend reads its device's.
  static const std::vector<DType> kUpTo32 = {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32, DType::U32,
                                             DType::F32};
  static const std::vector<SourceTarget> targets = {
      {"cuda", gpu_caps("cuda", "CUDA", kAllTen, kAllTen, {"cuda", "cuda_pinned", "cuda_managed"}, {}), cuda_source},
      {"hip", gpu_caps("hip", "HIP", kAllTen, kAllTen, {"hip", "hip_pinned", "hip_managed"}, {}), hip_source},
      {"level_zero", gpu_caps("level_zero", "Level Zero", kAllTen, kAllTen, {"level_zero"}, {"external_driver", "external_device", "external_context"}),
       opencl_source},
      {"metal", gpu_caps("metal", "Metal", without_f64(), kUpTo32, {}, {}), msl_source},
      {"opencl", gpu_caps("opencl", "OpenCL", kAllTen, kAllTen, {}, {"device"}), opencl_source},
  };
  return targets;
}

const SourceTarget* find_source_target(std::string_view name) {
  for (const SourceTarget& t : source_targets())
    if (t.name == name) return &t;
  return nullptr;
}

std::shared_ptr<Backend> source_only_backend(const SourceTarget& target, std::string reason) {
  return std::make_shared<SourceOnlyBackend>(target, std::move(reason));
}

}  // namespace tack::runtime
