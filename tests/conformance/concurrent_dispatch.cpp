// Several host threads dispatching one variant at once, each with its own
// scalars and arrays, get their own results element by element. .ci/run also
// runs this under ThreadSanitizer.
#include "conformance/backend_param.hpp"

#include <thread>

using namespace tack::lang;

namespace tack::conformance {
namespace {

TACK_CONFORMANCE_SUITE(ConcurrentDispatch);

TEST_P(ConcurrentDispatch, EightThreadsOneVariantOwnScalars) {
  auto k = tack::kernel("affine", [](lang::Array y, lang::Array x, lang::Scalar a, lang::Scalar b) {
    parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + b; });
  });
  const int threads = 8, rounds = 20;
  const std::int64_t n = GetParam() == "interp" ? 512 : 20000;
  std::vector<int> mismatches(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::vector<std::int32_t> hx(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) hx[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i % 1000);
      tack::Array x = dev().from_host(hx);
      tack::Array y = dev().zeros(tack::DType::I32, {n});
      for (int r = 0; r < rounds; ++r) {
        std::int32_t a = t * 100 + r, b = -t - 7 * r;
        k(y, x, a, b);
        std::vector<std::int32_t> got = y.to_host<std::int32_t>();
        for (std::int64_t i = 0; i < n; ++i)
          if (got[static_cast<std::size_t>(i)] != a * hx[static_cast<std::size_t>(i)] + b) ++mismatches[t];
      }
    });
  }
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace tack::conformance
