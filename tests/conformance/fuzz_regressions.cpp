// Kernels the differential fuzzer (tests/fuzz) found failing, reduced by its
// shrinker, on every backend, with expected values computed here on the host.
// A kernel that once hung runs with every wait bounded (TACK_WAIT_TIMEOUT_S set
// through its hook for the test), so a return of the hang fails the test with
// tack::BackendError on the queued backends instead of hanging CI; interp and
// cpu run on the calling thread, and ctest's TIMEOUT for these tests
// (support/wait_timeout_tests.cmake) bounds them.
#include "conformance/backend_param.hpp"
#include "runtime/waits/wait_deadline.hpp"

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(FuzzRegressions);

constexpr std::int64_t kGroup = 256;

// Bounds every wait of the test to `seconds` (unless the environment already
// asks for less), restoring the process's value after it.
class BoundedWaits {
 public:
  explicit BoundedWaits(double seconds) : before_(tack::runtime::wait_timeout_s()) {
    if (before_ == 0 || before_ > seconds) tack::runtime::set_wait_timeout_s(seconds);
  }
  ~BoundedWaits() { tack::runtime::set_wait_timeout_s(before_); }
  BoundedWaits(const BoundedWaits&) = delete;
  BoundedWaits& operator=(const BoundedWaits&) = delete;

 private:
  double before_;
};

// Generous for PoCL, which builds the work-group function inside the first
// launch's wait (seconds under load); the kernels themselves take microseconds.
constexpr double kWaitBound = 30;

// tack_fuzz --seed=900720: a barrier under a group-uniform if_ (no else), then
// a for_range bounded by local_id % 4 doing a u64 atomic_or at a gathered
// index. The fuzzer's shrinker reduced it to
//   if_(cast<u16>(s) >= cast<u16>(2u), [&] {
//     g.barrier();
//     for_range(0, cast<i64>(cast<u32>(g.local_id())), [&](Index j0) {
//       atomic_or(at0, floormod(cast<i64>(in1[floormod(cast<i64>(cast<u32>(0u)), in1.size())]), at0.size()),
//                 cast<u64>(0ull));
//     });
//   });
// whose loop body branches (floormod by a run-time size is a helper with early
// returns). PoCL 3.1 never finished the group (docs/backends-opencl.md, PoCL);
// the OpenCL C now ends such a branch with a barrier. Here the same shape with
// values that show the atomics' results.
TEST_P(FuzzRegressions, ConditionalBarrierThenLocalIdBoundedLoopWithAGatheredAtomicOrFinishes) {
  if (!caps().supports_workgroups) GTEST_SKIP() << backend() << " has no workgroups";
  if (!has_atomic<std::uint64_t>()) return;
  BoundedWaits bound(kWaitBound);
  const tack::Kernel k = tack::kernel("fuzz_900720", [](Array out0, Array at0, Scalar s) {
    workgroup_for(out0.size() / 256, [&](Group g) {
      Value i = g.global_id();
      if_(s > 0, [&] {
        g.barrier();
        for_range(0, floormod(g.local_id(), cast<i64>(4)),
                  [&](Index) { atomic_or(at0, floormod(cast<i64>(out0[i]), at0.size()), cast<u64>(out0[i])); });
      });
    });
  });
  const std::int64_t n = 2 * kGroup;
  std::vector<std::uint64_t> x(n);
  for (std::int64_t j = 0; j < n; ++j)
    x[j] = static_cast<std::uint64_t>(j) * 2654435761u + (std::uint64_t{1} << 40) * (j % 7);
  // Work-item j runs j % 4 iterations (256 is a multiple of 4), each or-ing x[j] into at0[x[j] % 5].
  std::vector<std::uint64_t> want(5, 0);
  for (std::int64_t j = 0; j < n; ++j)
    if (j % 4 != 0) want[x[j] % 5] |= x[j];
  tack::Array out0 = dev().from_host(x);
  tack::Array at0 = dev().zeros(tack::DType::U64, {5});
  k(out0, at0, std::int64_t{1});
  EXPECT_EQ(at0.to_host<std::uint64_t>(), want);
  EXPECT_EQ(out0.to_host<std::uint64_t>(), x);
}

// The same shape without atomics, so the hang is not the compare-and-swap loop
// of the u64 or: PoCL hung alike with a plain gathered load.
TEST_P(FuzzRegressions, ConditionalBarrierThenLocalIdBoundedLoopWithAGatheredLoadFinishes) {
  if (!caps().supports_workgroups) GTEST_SKIP() << backend() << " has no workgroups";
  BoundedWaits bound(kWaitBound);
  const tack::Kernel k = tack::kernel("fuzz_900720_load", [](Array out0, Array table, Scalar s) {
    workgroup_for(out0.size() / 256, [&](Group g) {
      Value i = g.global_id();
      if_(s > 0, [&] {
        g.barrier();
        for_range(0, floormod(g.local_id(), cast<i64>(4)),
                  [&](Index) { out0[i] = out0[i] + table[floormod(out0[i], table.size())]; });
      });
    });
  });
  const std::int64_t n = 2 * kGroup;
  std::vector<std::int64_t> x(n), table{3, 5, 7};
  for (std::int64_t j = 0; j < n; ++j) x[j] = j * 37 - 4000;
  std::vector<std::int64_t> want = x;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t r = 0; r < j % 4; ++r) want[j] += table[((want[j] % 3) + 3) % 3];
  tack::Array out0 = dev().from_host(x);
  k(out0, dev().from_host(table), std::int64_t{1});
  EXPECT_EQ(out0.to_host<std::int64_t>(), want);
}

}  // namespace
