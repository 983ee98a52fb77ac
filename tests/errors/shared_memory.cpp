// Errors of memory crossing Tack's edge: wrapping a null, misaligned or
// mis-shaped pointer, wrapping or exporting where the device cannot, wrapping an
// opencl buffer of another context or too small for the array, and using
// an empty Array or Device.
#include "errors/error_helpers.hpp"

#include "backends/opencl/opencl_device.hpp"
#include "drivers/opencl_api.hpp"
#include "support/host_test_backend.hpp"
#include "support/opencl_device_test.hpp"

#include <tack/tack.hpp>

#include <cstdint>
#include <string>
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

// A device without wrapped memory (metal today; every backend built here wraps): a host-memory backend that
// says so.

TEST(SharedMemory, WrappingOnADeviceThatCannot) {
  tack::Device d(
      std::make_shared<tack_test::HostTestBackend>(tack_test::host_test_capabilities("nowrap", {tack::DType::F32})));
  ASSERT_FALSE(d.capabilities().supports_wrapped_memory);
  std::vector<float> host(4);
  EXPECT_TACK_ERROR(tack::array_from_ptr(d, host.data(), tack::DType::F32, {4}), tack::InvalidArgument,
                    "the nowrap device cannot wrap memory from outside Tack");
}

// The OpenCL refusals: a cl_mem of another context (one the test makes on the same device) and one smaller than
// the array.
class OpenCLWrapping : public tack_test::OpenCLDeviceTest {};

TEST_F(OpenCLWrapping, ABufferOfAnotherContext) {
  namespace cl = tack::drivers::cl;
  const cl::Api* api = cl::load(nullptr);
  ASSERT_NE(api, nullptr);
  cl::cl_device_id id = tack::backends::opencl::choose_device({}).device;
  cl::cl_int err = 0;
  cl::cl_context other = api->clCreateContext(nullptr, 1, &id, nullptr, nullptr, &err);
  ASSERT_EQ(err, cl::CL_SUCCESS);
  cl::cl_mem theirs = api->clCreateBuffer(other, cl::CL_MEM_READ_WRITE, 16, nullptr, &err);
  ASSERT_EQ(err, cl::CL_SUCCESS);
  EXPECT_TACK_ERROR(tack::array_from_ptr(dev_, reinterpret_cast<std::uintptr_t>(theirs), tack::DType::F32, {4}),
                    tack::InvalidArgument, "array_from_ptr: 0x",
                    " is a cl_mem of another OpenCL context than this device's (",
                    "pass one of the context of an opencl array's share()");
  api->clReleaseMemObject(theirs);
  api->clReleaseContext(other);
}

TEST_F(OpenCLWrapping, ABufferSmallerThanTheArray) {
  tack::Array mine = dev_.zeros(tack::DType::F32, {4});
  EXPECT_TACK_ERROR(tack::array_from_ptr(dev_, mine.share().handle, tack::DType::F32, {5}), tack::InvalidArgument,
                    "is a cl_mem of 16 bytes, but the array needs 20");
  EXPECT_TACK_ERROR(tack::array_from_ptr(dev_, mine.share().handle, tack::DType::I64, {2, 2}), tack::InvalidArgument,
                    "is a cl_mem of 16 bytes, but the array needs 32");
}

TEST(SharedMemory, ExportingWhereThereIsNoExportableMemory) {
  tack::Device cpu = tack::device("cpu");
  tack::Array a = cpu.zeros(tack::DType::F32, {4});
  EXPECT_TACK_ERROR(a.export_memory(), tack::InvalidArgument, "the cpu device has no exportable memory");
  // The way out, and on metal the reference's export_memory() itself (an MTLBuffer has no fd to export).
  EXPECT_TACK_ERROR(a.export_memory(), tack::InvalidArgument, "use share() for its native handle");
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
