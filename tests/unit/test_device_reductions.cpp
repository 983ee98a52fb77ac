// The device reductions (runtime/reductions/array_reduction_kernel, runtime/reductions/device_reductions;
// reference: "Device reductions"). The kernel itself on the interpreter, launched
// with a chosen number of groups (each lane strides over the array); then
// Array::sum/min/max on the opencl device (PoCL here, a real run) against the
// host's reduction (runtime/reductions/host_reduce): min and max bit for bit, a sum within
// the contract's n * 2^-23 * sum(|x|). The opencl tests skip where
// tack::device("opencl") is unavailable.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include "runtime/memory/access.hpp"
#include "runtime/reductions/array_reduction_kernel.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/reductions/device_reductions.hpp"
#include "runtime/reductions/host_reduce.hpp"
#include "support/opencl_device_test.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using tack::runtime::ReduceOp;
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();
constexpr ReduceOp kOps[] = {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max};

const char* op_name(ReduceOp op) { return op == ReduceOp::Sum ? "sum" : op == ReduceOp::Min ? "min" : "max"; }

// The host's result for v (f64: a float sum's accumulator, or the chosen element).
double host_result(const std::vector<float>& v, ReduceOp op) {
  tack::Device host = tack::device("interp");
  tack::DType t = tack::DType::F64;
  const tack::ir::Bits bits = tack::runtime::host_reduce(*tack::detail::Access::backend(host), tack::DType::F32,
                                                         v.data(), static_cast<std::int64_t>(v.size()), op, &t);
  EXPECT_EQ(t, tack::DType::F64);
  return std::bit_cast<double>(bits);
}

// got against the host: NaN where it is NaN, min and max bit for bit, a sum within the contract.
void expect_like_the_host(double got, const std::vector<float>& v, ReduceOp op, const std::string& what) {
  const double want = host_result(v, op);
  SCOPED_TRACE(what + ", " + op_name(op) + " of " + std::to_string(v.size()));
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << got;
  } else if (op != ReduceOp::Sum || std::isinf(want)) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(want)) << got << " vs " << want;
  } else {
    double abs_sum = 0;
    for (float x : v) abs_sum += std::fabs(x);
    EXPECT_LE(std::fabs(got - want), static_cast<double>(v.size()) * 0x1p-23 * abs_sum) << got << " vs " << want;
  }
}

std::vector<float> pseudo_random(std::size_t n, std::uint32_t seed) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<std::int32_t>(seed)) / 2147483648.0f * 100.0f;
  }
  return v;
}

// ---- the kernel on the interpreter ------------------------------------------------------

// Launches the reduction of v in `groups` groups on the interpreter and returns out[0].
float run_kernel(const std::vector<float>& v, ReduceOp op, std::int64_t groups) {
  tack::Device dev = tack::device("interp");
  tack::Array x = dev.from_host(v);
  tack::Array out = dev.from_host(std::vector<float>{std::bit_cast<float>(tack::runtime::reduction_identity_bits(op))});
  tack::runtime::array_reduction_kernel(op)(x, out, groups);
  return out.to_host<float>()[0];
}

TEST(ArrayReductionKernel, EveryElementCountsWhateverTheNumberOfGroups) {
  // Integer values: every order of summation gives the exact sum, so a skipped or doubled element shows.
  std::vector<float> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  v[999] = 500.0f;  // the last element is the maximum
  v[3] = -400.0f;   // an element of the first group is the minimum
  for (std::int64_t groups : {1, 2, 3, 4, 7}) {
    SCOPED_TRACE("groups " + std::to_string(groups));
    for (ReduceOp op : kOps) expect_like_the_host(run_kernel(v, op, groups), v, op, "interp");
  }
}

TEST(ArrayReductionKernel, MinAndMaxSkipNaNUnlessEveryElementIsNaN) {
  std::vector<float> some(600, kNaN);
  some[300] = 2.5f;
  some[599] = -1.0f;
  for (ReduceOp op : {ReduceOp::Min, ReduceOp::Max}) {
    expect_like_the_host(run_kernel(some, op, 2), some, op, "some NaN");
    EXPECT_TRUE(std::isnan(run_kernel(std::vector<float>(600, kNaN), op, 2))) << op_name(op) << " of all NaN";
  }
}

TEST(ArrayReductionKernel, IndicesAre64Bit) {
  // Arrays of 2^32 elements or more: the index, its stride and the element count are i64.
  const tack::Inspection i = tack::inspect(tack::runtime::array_reduction_kernel(ReduceOp::Sum), "interp",
                                           tack::ArraySpec{tack::DType::F32, 1}, tack::ArraySpec{tack::DType::F32, 1},
                                           tack::ScalarSpec{tack::DType::I64});
  EXPECT_NE(i.typed_ir.find("= add.i64(mul.i64(group_id, group_size), local_id)"), std::string::npos) << i.typed_ir;
  EXPECT_NE(i.typed_ir.find("add.i64(t4, mul.i64(num_groups, group_size))"), std::string::npos) << i.typed_ir;
  EXPECT_NE(i.typed_ir.find("lt.bool(t0, size(%0))"), std::string::npos) << i.typed_ir;
}

// ---- Array::sum/min/max on the opencl device ---------------------------------------------

class OpenCLReductions : public tack_test::OpenCLDeviceTest {
 protected:
  // Each op of v on the device, through Array::min/max/sum, against the host.
  // The device ran each of the three (Array::reduce falls back to the host silently, with the same results).
  void check(const std::vector<float>& v, const std::string& what) {
    tack::Array a = dev_.from_host(v);
    const std::uint64_t launches = tack::runtime::DeviceReductions::launch_count();
    expect_like_the_host(a.sum<double>(), v, ReduceOp::Sum, what);
    expect_like_the_host(a.min<double>(), v, ReduceOp::Min, what);
    expect_like_the_host(a.max<double>(), v, ReduceOp::Max, what);
    EXPECT_EQ(tack::runtime::DeviceReductions::launch_count(), launches + 3)
        << what << " of " << v.size() << ": not every reduction ran on the device";
  }
};

TEST_F(OpenCLReductions, SizesAroundAGroupAndPastTheGroupCap) {
  // 1'000'003 elements are more than max_reduction_groups (64 per compute unit) groups of 256 hold, so lanes
  // stride; the odd sizes leave the last group partial.
  for (std::size_t n : {1u, 2u, 255u, 256u, 257u, 511u, 65'537u, 1'000'003u}) {
    std::vector<float> v = pseudo_random(n, static_cast<std::uint32_t>(n));
    v[n / 2] = 1000.0f;
    v[n - 1] = -1000.0f;
    check(v, "pseudo-random");
  }
}

TEST_F(OpenCLReductions, NaNInfinitiesAndZeros) {
  for (std::size_t n : {1u, 300u, 70'000u}) {
    check(std::vector<float>(n, kNaN), "all NaN");
    std::vector<float> some = pseudo_random(n, 11);
    some[0] = kNaN;
    some[n - 1] = kNaN;
    check(some, "NaN first and last");
    std::vector<float> one_number(n, kNaN);
    one_number[n / 2] = -3.5f;
    check(one_number, "one number among NaN");
    check(std::vector<float>(n, -0.0f), "all -0.0");
    check(std::vector<float>(n, 0.0f), "all +0.0");
    std::vector<float> inf = pseudo_random(n, 5);
    inf[n / 3] = kInf;
    check(inf, "+inf");
    inf[n / 4] = -kInf;  // n = 1 overwrites +inf
    check(inf, "-inf (and +inf)");
  }
  // -0.0 and +0.0 compare equal, so which one min and max return depends on the (unspecified) order.
  std::vector<float> zeros(1000, 0.0f);
  for (std::size_t i = 0; i < zeros.size(); i += 2) zeros[i] = -0.0f;
  tack::Array z = dev_.from_host(zeros);
  EXPECT_EQ(z.min<double>(), 0.0);
  EXPECT_EQ(z.max<double>(), 0.0);
  EXPECT_EQ(z.sum<double>(), 0.0);
}

TEST_F(OpenCLReductions, EmptyArrays) {
  tack::Array e = dev_.zeros(tack::DType::F32, {0});
  EXPECT_EQ(e.sum<float>(), 0.0f);
  EXPECT_THROW(e.min<float>(), tack::InvalidArgument);
  EXPECT_THROW(e.max<float>(), tack::InvalidArgument);
}

TEST_F(OpenCLReductions, RunOnTheDeviceForEveryShape) {
  // Not a host fallback: reduce_device reports the device did it; a 2-D array is reduced as its elements.
  std::vector<float> v(3 * 500);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 7);
  tack::Array a = dev_.from_host(v, {3, 500});
  const auto& storage = *tack::detail::Access::storage(a);
  for (ReduceOp op : kOps) {
    double out = -1;
    EXPECT_TRUE(tack::detail::Access::backend(dev_)->reduce_device(storage, op, &out)) << op_name(op);
    EXPECT_EQ(out, op == ReduceOp::Sum ? 4495.0 : op == ReduceOp::Min ? 0.0 : 6.0) << op_name(op);
  }
}

}  // namespace
