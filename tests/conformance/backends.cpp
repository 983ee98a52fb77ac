// The parameterization itself, and what every backend must report: the
// reference interpreter is always built in; a device's name and capabilities
// agree with the name it was made from; arrays of every supported dtype make
// the round trip host -> device -> host bit for bit; a kernel's result is there
// once the host reads it.
#include "conformance/backend_param.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

INSTANTIATE_TEST_SUITE_P(Backends, BackendTest, ::testing::ValuesIn(tack::backend_names()), backend_test_name);

TEST(BackendNames, IncludeTheInterpreter) {
  auto names = tack::backend_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "interp"), names.end());
  std::cout << "[ NOTE     ] backends built in:";
  for (const auto& n : names) std::cout << " " << n;
  std::cout << "\n";
}

TEST_P(BackendTest, NameAndCapabilitiesAgree) {
  EXPECT_EQ(dev().name(), backend());
  EXPECT_EQ(caps().name, backend());
  EXPECT_FALSE(caps().display_name.empty());
  EXPECT_TRUE(caps().supports(tack::DType::F32));
  EXPECT_TRUE(caps().supports(tack::DType::I32));
  EXPECT_EQ(caps().supports_f64, caps().supports(tack::DType::F64));
  for (tack::DType t : caps().supported_atomic_dtypes)
    EXPECT_TRUE(caps().supports(t)) << "atomics on " << tack::dtype_name(t) << " but no arrays of it";
  // The same name gives the same device.
  EXPECT_TRUE(tack::device(backend()) == dev());
}

TEST_P(BackendTest, ArraysRoundTripEveryDtype) {
  for_each_type(AllTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    std::vector<T> v = {lowest<T>(), highest<T>(), T(0), T(1), static_cast<T>(-1), T(42)};
    if constexpr (std::is_floating_point_v<T>) {
      using L = std::numeric_limits<T>;
      v.insert(v.end(), {L::infinity(), -L::infinity(), L::quiet_NaN(), L::denorm_min(), T(-0.0), T(0.1)});
    }
    tack::Array a = dev().from_host(v);
    EXPECT_EQ(a.dtype(), tack::dtype_of<T>);
    EXPECT_EQ(a.size(), static_cast<std::int64_t>(v.size()));
    EXPECT_EQ(a.device(), dev());
    compare_exact("to_host(from_host(v))", backend(), a.to_host<T>(), "v", v);
    compare_exact("read_range(1, 3)", backend(), a.read_range<T>(1, 3), "v[1..4)",
                  std::vector<T>(v.begin() + 1, v.begin() + 4));
    tack::Array m = dev().from_host(std::vector<T>(6, T(7)), {2, 3});
    EXPECT_EQ(m.rank(), 2);
    EXPECT_EQ(m.shape(), (std::vector<std::int64_t>{2, 3}));
    m.fill(T(5));
    compare_exact("fill(5)", backend(), m.to_host<T>(), "fives", std::vector<T>(6, T(5)));
  });
}

TEST_P(BackendTest, ResultsAreThereWhenTheHostReads) {
  auto k = tack::kernel("increment", [](Array a) { parallel_for(a.size(), [&](Index i) { a[i] = a[i] + 1; }); });
  tack::Array a = dev().from_host(std::vector<std::int32_t>(1000, 0));
  for (int r = 0; r < 10; ++r) k(a);  // queued in order
  EXPECT_EQ(a.to_host<std::int32_t>(), std::vector<std::int32_t>(1000, 10));
  EXPECT_EQ(a.sum<std::int64_t>(), 10000);
}

}  // namespace
