// DLPack import errors: tensors Tack cannot use are refused by name, and a
// refused tensor stays the caller's (its deleter is not called).
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <dlpack/dlpack.h>

#include <cstdint>
#include <vector>

namespace {

// A tensor over `data` whose deleter must not run: a refused import leaves it to the caller.
struct Tensor {
  std::vector<float> data = std::vector<float>(16);
  std::vector<std::int64_t> shape{16};
  std::vector<std::int64_t> strides;
  DLManagedTensor m{};
  Tensor() {
    m.dl_tensor.data = data.data();
    m.dl_tensor.device = {kDLCPU, 0};
    m.dl_tensor.ndim = 1;
    m.dl_tensor.dtype = {kDLFloat, 32, 1};
    m.dl_tensor.shape = shape.data();
    m.deleter = [](DLManagedTensor*) { ADD_FAILURE() << "a refused tensor was deleted"; };
  }
};

TEST(Dlpack, NullTensor) {
  EXPECT_TACK_ERROR(tack::from_dlpack(nullptr), tack::InvalidArgument, "from_dlpack: the tensor is null");
}

// Refused by name, never converted: a copy in another dtype is the caller's to make.
TEST(Dlpack, DtypesTackDoesNotHave) {
  Tensor half;
  half.m.dl_tensor.dtype = {kDLFloat, 16, 1};
  EXPECT_TACK_ERROR(tack::from_dlpack(&half.m), tack::TypeError,
                    "from_dlpack: dtype float16 is not one of Tack's dtypes (bool, int8, ", "float32, float64)",
                    "convert it first, e.g. a.astype(np.float32)");
  Tensor vec;
  vec.m.dl_tensor.dtype = {kDLFloat, 32, 4};
  EXPECT_TACK_ERROR(tack::from_dlpack(&vec.m), tack::TypeError, "a vector dtype (float32, 4 lanes)");
  Tensor bf;
  bf.m.dl_tensor.dtype = {kDLBfloat, 16, 1};
  EXPECT_TACK_ERROR(tack::from_dlpack(&bf.m), tack::TypeError, "dtype bfloat16 is not one of Tack's dtypes",
                    "e.g. a.astype(np.float32)");
  Tensor complex;
  complex.m.dl_tensor.dtype = {kDLComplex, 64, 1};
  EXPECT_TACK_ERROR(tack::from_dlpack(&complex.m), tack::TypeError, "dtype complex64 is not one of Tack's dtypes");
  Tensor wide_bool;
  wide_bool.m.dl_tensor.dtype = {6, 32, 1};  // kDLBool of 4 bytes: Tack's bool is one byte
  EXPECT_TACK_ERROR(tack::from_dlpack(&wide_bool.m), tack::TypeError, "dtype bool of 32 bits is not one of");
}

TEST(Dlpack, ShapesTackDoesNotHave) {
  Tensor scalar;
  scalar.m.dl_tensor.ndim = 0;
  EXPECT_TACK_ERROR(tack::from_dlpack(&scalar.m), tack::InvalidArgument, "1 to 4 dimensions, the tensor has 0");
  Tensor noshape;
  noshape.m.dl_tensor.shape = nullptr;
  EXPECT_TACK_ERROR(tack::from_dlpack(&noshape.m), tack::InvalidArgument, "the tensor has no shape");
  Tensor negative;
  negative.shape = {-16};
  negative.m.dl_tensor.shape = negative.shape.data();
  EXPECT_TACK_ERROR(tack::from_dlpack(&negative.m), tack::InvalidArgument, "from_dlpack: negative extent");
}

TEST(Dlpack, NonContiguousTensor) {
  Tensor strided;
  strided.shape = {4, 4};
  strided.strides = {1, 4};  // column-major
  strided.m.dl_tensor.ndim = 2;
  strided.m.dl_tensor.shape = strided.shape.data();
  strided.m.dl_tensor.strides = strided.strides.data();
  EXPECT_TACK_ERROR(tack::from_dlpack(&strided.m), tack::TypeError,
                    "is not row-major and contiguous (shape {4, 4}, stride 4 of dimension 1 should be 1)",
                    "make a contiguous copy first");
}

TEST(Dlpack, DeviceTypesTackDoesNotHave) {
  Tensor vulkan;
  vulkan.m.dl_tensor.device = {kDLVulkan, 0};
  EXPECT_TACK_ERROR(tack::from_dlpack(&vulkan.m), tack::TypeError, "DLPack device type 7 is not memory of a Tack device");
}

TEST(Dlpack, TensorOnTheWrongDevice) {
  Tensor gpu;
  gpu.m.dl_tensor.device = {kDLCUDA, 0};
  EXPECT_TACK_ERROR(tack::from_dlpack(&gpu.m, tack::device("interp")), tack::InvalidArgument,
                    "a kDLCUDA tensor cannot be used on the interp device (use cuda)");
}

TEST(Dlpack, MisalignedTensor) {
  Tensor odd;
  odd.m.dl_tensor.byte_offset = 2;
  EXPECT_TACK_ERROR(tack::from_dlpack(&odd.m), tack::InvalidArgument, "is not aligned to the 4 bytes of a f32 element");
}

// A kDLOpenCL tensor's data is a cl_mem handle, which no offset moves into; refused before any device opens.
TEST(Dlpack, OpenCLTensorWithAnOffset) {
  Tensor cl;
  cl.m.dl_tensor.device = {kDLOpenCL, 0};
  cl.m.dl_tensor.byte_offset = 16;
  EXPECT_TACK_ERROR(tack::from_dlpack(&cl.m), tack::InvalidArgument,
                    "from_dlpack: a kDLOpenCL tensor's data is a cl_mem, which Tack wraps whole; its byte_offset "
                    "must be 0, not 16");
}

TEST(Dlpack, EmptyArray) {
  EXPECT_TACK_ERROR(tack::Array().to_dlpack(), tack::InvalidArgument, "to_dlpack() of an empty tack::Array");
}

}  // namespace
