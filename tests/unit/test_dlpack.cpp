// DLPack on the host devices: to_dlpack describes the array and keeps its
// memory until the consumer's deleter runs; from_dlpack wraps a producer's
// tensor in place, takes ownership only on success, and maps every Tack dtype.
#include "runtime/memory/access.hpp"

#include <tack/tack.hpp>

#include <dlpack/dlpack.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using namespace tack::lang;

// A producer's tensor over a std::vector, counting its deleter's calls.
struct Produced {
  DLManagedTensor tensor{};
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  int* deleted = nullptr;
};

template <class T>
DLManagedTensor* produce(std::vector<T>& data, std::vector<std::int64_t> shape, DLDataType dtype, int* deleted) {
  auto* p = new Produced;
  p->shape = std::move(shape);
  p->deleted = deleted;
  DLTensor& t = p->tensor.dl_tensor;
  t.data = data.data();
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int>(p->shape.size());
  t.dtype = dtype;
  t.shape = p->shape.data();
  p->tensor.manager_ctx = p;
  p->tensor.deleter = [](DLManagedTensor* self) {
    auto* p = static_cast<Produced*>(self->manager_ctx);
    ++*p->deleted;
    delete p;
  };
  return &p->tensor;
}

class HostDlpack : public ::testing::TestWithParam<std::string> {
 protected:
  tack::Device dev() const { return tack::device(GetParam()); }
};

TEST_P(HostDlpack, ToDlpackDescribesTheArrayAndHoldsItUntilDeleted) {
  std::weak_ptr<tack::runtime::ArrayStorage> storage;
  DLManagedTensor* t = nullptr;
  {
    tack::Array a = dev().from_host(std::vector<std::int16_t>{1, 2, 3, 4, 5, 6}, {2, 3});
    storage = tack::detail::Access::storage(a);
    t = a.to_dlpack();
    EXPECT_TRUE(a.shared());
  }
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(storage.expired()) << "the tensor keeps the array's memory";
  const DLTensor& d = t->dl_tensor;
  EXPECT_EQ(d.device.device_type, kDLCPU);
  EXPECT_EQ(d.ndim, 2);
  EXPECT_EQ(d.shape[0], 2);
  EXPECT_EQ(d.shape[1], 3);
  EXPECT_EQ(d.strides, nullptr);
  EXPECT_EQ(d.dtype.code, kDLInt);
  EXPECT_EQ(d.dtype.bits, 16);
  EXPECT_EQ(d.dtype.lanes, 1);
  EXPECT_EQ(static_cast<const std::int16_t*>(d.data)[5], 6);
  t->deleter(t);
  EXPECT_TRUE(storage.expired()) << "the deleter lets it go";
}

TEST_P(HostDlpack, FromDlpackWrapsTheTensorInPlaceAndOwnsItOnSuccess) {
  int deleted = 0;
  std::vector<float> data(12, 1.0f);
  {
    tack::Array a = tack::from_dlpack(produce(data, {3, 4}, {kDLFloat, 32, 1}, &deleted), dev());
    EXPECT_EQ(a.dtype(), tack::DType::F32);
    EXPECT_EQ(a.shape(), (std::vector<std::int64_t>{3, 4}));
    EXPECT_TRUE(a.shared());
    a.fill(4.5f);
    EXPECT_EQ(data[11], 4.5f) << "the producer's memory, not a copy";
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1) << "Tack calls the deleter once the array is gone";
}

TEST_P(HostDlpack, EveryTackDtypeRoundTrips) {
  for (tack::DType t : tack::kArrayDTypes) {
    tack::Array a = dev().zeros(t, {4});
    DLManagedTensor* m = a.to_dlpack();
    tack::Array b = tack::from_dlpack(m, dev());
    EXPECT_EQ(b.dtype(), t) << tack::dtype_name(t);
    EXPECT_EQ(b.share().handle, a.share().handle) << "the same memory";
  }
}

// NumPy's bool arrays travel as kDLBool (DLPack 0.8's code 6), one byte an element.
TEST_P(HostDlpack, BoolArraysAreKDLBoolOfOneByte) {
  tack::Array a = dev().zeros(tack::DType::Bool, {3});
  DLManagedTensor* m = a.to_dlpack();
  EXPECT_EQ(m->dl_tensor.dtype.code, 6);
  EXPECT_EQ(m->dl_tensor.dtype.bits, 8);
  EXPECT_EQ(m->dl_tensor.dtype.lanes, 1);
  m->deleter(m);
  int deleted = 0;
  std::vector<std::uint8_t> data = {0, 1, 2, 255};  // NumPy reads any nonzero byte as True, as Tack does
  tack::Array b = tack::from_dlpack(produce(data, {4}, {6, 8, 1}, &deleted), dev());
  EXPECT_EQ(b.dtype(), tack::DType::Bool);
  EXPECT_EQ(b.sum<std::int64_t>(), 3);
}

TEST_P(HostDlpack, StridesOfARowMajorTensorAreAccepted) {
  int deleted = 0;
  std::vector<double> data(6, 2.0);
  DLManagedTensor* t = produce(data, {1, 6}, {kDLFloat, 64, 1}, &deleted);
  auto* p = static_cast<Produced*>(t->manager_ctx);
  p->strides = {99, 1};  // an extent of 1 may carry any stride
  t->dl_tensor.strides = p->strides.data();
  tack::Array a = tack::from_dlpack(t, dev());
  EXPECT_EQ(a.sum<double>(), 12.0);
}

TEST(Dlpack, AHostTensorWithoutADeviceLandsOnAHostDevice) {
  int deleted = 0;
  std::vector<std::uint8_t> data(5, 7);
  tack::Array a = tack::from_dlpack(produce(data, {5}, {kDLUInt, 8, 1}, &deleted));
  const std::string name = a.device().name();
  EXPECT_TRUE(name == "cpu" || name == "interp") << name;
  EXPECT_EQ(a.sum<int>(), 35);
}

INSTANTIATE_TEST_SUITE_P(, HostDlpack, ::testing::Values("interp", "cpu"), [](const auto& info) { return info.param; });

}  // namespace
