// HIP C for hipRTC: the CUDA generator with the reference's two overrides, the
// HIP runtime header first and hipTextureObject_t for the texture handle.
#pragma once

#include "codegen/cuda_gen.hpp"

namespace tack::codegen {

class HipCodeGen : public CudaCodeGen {
 protected:
  std::string prelude(const ir::Kernel& k) const override;
  std::string texture_object_type() const override { return "hipTextureObject_t"; }
};

CSource generate_hip(const abi::PackedKernel& packed);

}  // namespace tack::codegen
