// Errors of memory crossing Tack's edge: wrapping a null, misaligned or
// mis-shaped pointer, wrapping or exporting where the device cannot, and using
// an empty Array or Device.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <cstdint>
#include <vector>

namespace {

TEST(SharedMemory, WrappingANullPointer) {
  EXPECT_TACK_ERROR(tack::array_from_ptr(tack::device("cpu"), nullptr, tack::DType::F32, {4}), tack::InvalidArgument,
                    "array_from_ptr: the address is null");
}

TEST(SharedMemory, WrappingAMisalignedPointer) {
  std::vector<double> host(8);
  auto* p = reinterpret_cast<char*>(host.data()) + 4;
  EXPECT_TACK_ERROR(tack::array_from_ptr(tack::device("interp"), p, tack::DType::F64, {2}), tack::InvalidArgument,
                    "is not aligned to the 8 bytes of a f64 element");
}

TEST(SharedMemory, WrappingWithABadShape) {
  std::vector<float> host(8);
  EXPECT_TACK_ERROR(tack::array_from_ptr(tack::device("cpu"), host.data(), tack::DType::F32, {2, -4}),
                    tack::InvalidArgument, "array_from_ptr: negative extent in shape {2, -4}");
  EXPECT_TACK_ERROR(tack::array_from_ptr(tack::device("cpu"), host.data(), tack::DType::F32, {}), tack::InvalidArgument,
                    "array_from_ptr: arrays have 1 to 4 dimensions");
}

TEST(SharedMemory, WrappingAnAddressRangeThatWrapsAround) {
  const std::uintptr_t top = UINTPTR_MAX - 15;  // 16-byte aligned, 16 bytes below the end
  EXPECT_TACK_ERROR(tack::array_from_ptr(tack::device("cpu"), top, tack::DType::F32, {8}), tack::InvalidArgument,
                    "wrap around the address space");
}

TEST(SharedMemory, WrappingOnADeviceThatCannot) {
  tack::Device cl;
  try {
    cl = tack::device("opencl");
  } catch (const tack::BackendUnavailable& e) {
    GTEST_SKIP() << "no opencl device to refuse the wrap: " << e.what();
  }
  ASSERT_FALSE(cl.capabilities().supports_wrapped_memory);
  std::vector<float> host(4);
  EXPECT_TACK_ERROR(tack::array_from_ptr(cl, host.data(), tack::DType::F32, {4}), tack::InvalidArgument,
                    "the opencl device cannot wrap memory from outside Tack");
}

TEST(SharedMemory, ExportingWhereThereIsNoExportableMemory) {
  tack::Device cpu = tack::device("cpu");
  tack::Array a = cpu.zeros(tack::DType::F32, {4});
  EXPECT_TACK_ERROR(a.export_memory(), tack::InvalidArgument, "the cpu device has no exportable memory");
  EXPECT_FALSE(a.shared());
  EXPECT_TACK_ERROR(cpu.empty_exportable(tack::DType::F32, {4}), tack::InvalidArgument,
                    "empty_exportable: the cpu device has no exportable memory");
}

TEST(SharedMemory, EmptyArrayAndDevice) {
  tack::Array none;
  EXPECT_TACK_ERROR(none.share(), tack::InvalidArgument, "share() of an empty tack::Array");
  EXPECT_TACK_ERROR(none.shared(), tack::InvalidArgument, "shared() of an empty tack::Array");
  EXPECT_TACK_ERROR(none.export_memory(), tack::InvalidArgument, "export_memory() of an empty tack::Array");
  std::vector<float> host(4);
  EXPECT_TACK_ERROR(tack::array_from_ptr(tack::Device(), host.data(), tack::DType::F32, {4}), tack::InvalidArgument,
                    "array_from_ptr on an empty tack::Device");
  EXPECT_TACK_ERROR(tack::Device().empty_exportable(tack::DType::F32, {4}), tack::InvalidArgument,
                    "empty_exportable on an empty tack::Device");
}

}  // namespace
