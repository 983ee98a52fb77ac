// The texture structs and constants of src/drivers/hip_api.hpp, declared by
// hand (Tack builds without ROCm), against the HIP headers installed here
// (ROCm 5.2's; ROCm 6's runtime-style structs are the same): every size,
// field offset and enum value the hip backend's texture image passes.
// Ours first: hip_runtime_api.h defines macros (hipStreamDefault, ...) that our constants are named after.
#include "drivers/hip_api.hpp"

#include <hip/hip_runtime_api.h>  // driver_types.h needs its hipMemoryType
#include <hip/texture_types.h>
#include <cstddef>  // the HIP headers use size_t without including it

#include <gtest/gtest.h>

namespace {

namespace hp = tack::drivers::hip;

#define TACK_EXPECT_SAME_FIELD(ours, theirs, field) \
  EXPECT_EQ(offsetof(hp::ours, field), offsetof(::theirs, field)) << #ours "::" #field

TEST(HipTextureLayout, StructsMatchTheInstalledHeaders) {
  EXPECT_EQ(sizeof(hp::hipChannelFormatDesc), sizeof(::hipChannelFormatDesc));
  TACK_EXPECT_SAME_FIELD(hipChannelFormatDesc, hipChannelFormatDesc, f);
  EXPECT_EQ(sizeof(hp::hipExtent), sizeof(::hipExtent));
  EXPECT_EQ(sizeof(hp::hipPos), sizeof(::hipPos));
  EXPECT_EQ(sizeof(hp::hipPitchedPtr), sizeof(::hipPitchedPtr));
  TACK_EXPECT_SAME_FIELD(hipPitchedPtr, hipPitchedPtr, ysize);

  EXPECT_EQ(sizeof(hp::hipMemcpy3DParms), sizeof(::hipMemcpy3DParms));
  TACK_EXPECT_SAME_FIELD(hipMemcpy3DParms, hipMemcpy3DParms, srcArray);
  TACK_EXPECT_SAME_FIELD(hipMemcpy3DParms, hipMemcpy3DParms, srcPos);
  TACK_EXPECT_SAME_FIELD(hipMemcpy3DParms, hipMemcpy3DParms, srcPtr);
  TACK_EXPECT_SAME_FIELD(hipMemcpy3DParms, hipMemcpy3DParms, dstArray);
  TACK_EXPECT_SAME_FIELD(hipMemcpy3DParms, hipMemcpy3DParms, dstPos);
  TACK_EXPECT_SAME_FIELD(hipMemcpy3DParms, hipMemcpy3DParms, dstPtr);
  TACK_EXPECT_SAME_FIELD(hipMemcpy3DParms, hipMemcpy3DParms, extent);
  TACK_EXPECT_SAME_FIELD(hipMemcpy3DParms, hipMemcpy3DParms, kind);

  EXPECT_EQ(sizeof(hp::hipResourceDesc), sizeof(::hipResourceDesc));
  TACK_EXPECT_SAME_FIELD(hipResourceDesc, hipResourceDesc, res.array.array);

  EXPECT_EQ(sizeof(hp::hipTextureDesc), sizeof(::hipTextureDesc));
  TACK_EXPECT_SAME_FIELD(hipTextureDesc, hipTextureDesc, addressMode);
  TACK_EXPECT_SAME_FIELD(hipTextureDesc, hipTextureDesc, filterMode);
  TACK_EXPECT_SAME_FIELD(hipTextureDesc, hipTextureDesc, readMode);
  TACK_EXPECT_SAME_FIELD(hipTextureDesc, hipTextureDesc, sRGB);
  TACK_EXPECT_SAME_FIELD(hipTextureDesc, hipTextureDesc, borderColor);
  TACK_EXPECT_SAME_FIELD(hipTextureDesc, hipTextureDesc, normalizedCoords);
  TACK_EXPECT_SAME_FIELD(hipTextureDesc, hipTextureDesc, maxAnisotropy);
  TACK_EXPECT_SAME_FIELD(hipTextureDesc, hipTextureDesc, maxMipmapLevelClamp);
}

TEST(HipTextureLayout, ConstantsMatchTheInstalledHeaders) {
  EXPECT_EQ(hp::hipChannelFormatKindFloat, ::hipChannelFormatKindFloat);
  EXPECT_EQ(hp::hipResourceTypeArray, ::hipResourceTypeArray);
  EXPECT_EQ(hp::hipAddressModeClamp, ::hipAddressModeClamp);
  EXPECT_EQ(hp::hipFilterModeLinear, ::hipFilterModeLinear);
  EXPECT_EQ(hp::hipReadModeElementType, ::hipReadModeElementType);
  EXPECT_EQ(hp::hipMemcpyDeviceToDevice, ::hipMemcpyDeviceToDevice);
}

}  // namespace
