// CUDA C for NVRTC (reference: CUDA, Compilation and Launch): 256-thread blocks,
// a widened 64-bit index and guard, and __fmul_rn/__dmul_rn for every float
// product outside a sum, since NVRTC with --fmad=true also fuses across statements.
#pragma once

#include "codegen/c_family.hpp"

namespace tack::codegen {

class CudaCodeGen : public CFamilyCodeGen {
 protected:
  // Hardware textures: the handle type (hipRTC rejects CUDA's spelling, so HIP overrides it) and tex3D.
  bool hardware_textures() const override { return true; }
  std::string texture_object_type() const override { return "cudaTextureObject_t"; }
  std::string texture_fetch(const std::string& t, const std::string& x, const std::string& y,
                            const std::string& z) const override {
    return "tex3D<float>(" + t + ", " + x + ", " + y + ", " + z + ")";
  }

  std::string type_name(DType t) const override;
  std::string prelude(const ir::Kernel& k) const override;
  std::string helper_qualifier() const override { return "static __device__ __forceinline__"; }
  std::string global_pointer(DType t, bool read_only) const override;
  std::string kernel_open(const std::string& entry, const std::vector<std::string>& decls,
                          const std::vector<std::string>& names, bool workgroup) const override;
  std::string global_index() const override {
    return "(long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x";
  }
  std::string local_id() const override { return "(long long)threadIdx.x"; }
  std::string group_id() const override { return "(long long)blockIdx.x"; }
  std::string shared_decl(DType t, const std::string& name, std::int64_t count) const override;
  std::string barrier() const override { return "__syncthreads();"; }
  std::string math(const std::string& name, DType t) const override;
  std::string unfused_mul(DType t, const std::string& a, const std::string& b) const override;
  std::string float_from_bits(DType t, std::uint64_t bits) const override;
  std::string i64_suffix() const override { return "LL"; }
  std::string u64_suffix() const override { return "ULL"; }
  std::string bits_of(DType float_t, const std::string& x) const override;
  std::string float_of_bits(DType float_t, const std::string& x) const override;
  std::string atomic(ir::AtomicOp op, DType t, const std::string& ptr, const std::string& value,
                     const std::string& compare) override;
  std::string atomic_bits_pointer(DType bits_t) const override { return type_name(bits_t) + "*"; }
  std::string atomic_load_bits(DType bits_t, const std::string& ptr) const override;
  std::string cas_step(DType bits_t, const std::string& ptr, const std::string& old, const std::string& desired,
                       const std::string& result) const override;
};

CSource generate_cuda(const abi::PackedKernel& packed);

}  // namespace tack::codegen
