// KernelOptions::fp_contract = false (docs/semantics.md, "Contraction"): no
// float product fuses into a sum on any backend, so kernels of + - * /, sqrt,
// comparisons and conversions give the interpreter's bits everywhere, where the
// default contract (tests/conformance/contraction.cpp) allows either result.
// Every table is checked to hold rows where fusing changes the result, so a
// backend that still fused would fail here rather than pass by luck.
#include "conformance/backend_param.hpp"

#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(NoContraction);

const tack::KernelOptions kNoContract{.fp_contract = false};

// A product rounded to T whatever the host compiler's contraction setting.
template <class T>
T mul(T a, T b) {
  volatile T p = a * b;
  return p;
}

// n values in [-2, 2) with full mantissas (a fixed LCG, so every run sees the same table), whose products
// are inexact and so round differently fused and unfused.
template <class T>
std::vector<T> table(std::size_t n, std::uint64_t seed) {
  std::vector<T> out(n);
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (T& v : out) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<T>(static_cast<double>(s >> 11) * 0x1p-53 * 4.0 - 2.0);
  }
  return out;
}

template <class T>
void expect_fusing_matters(const std::vector<T>& fused, const std::vector<T>& unfused, std::size_t at_least) {
  std::size_t differ = 0;
  for (std::size_t i = 0; i < fused.size(); ++i) differ += !same_value(fused[i], unfused[i]);
  EXPECT_GE(differ, at_least) << "the test's inputs should make fused and unfused results differ";
}

constexpr std::size_t kRows = 256;

// a*b + c, c - a*b, a*b + c*d + e, a*b - c*d, (a*b + c) / d and sqrt(a*a + b*b): every form a compiler may
// contract, each written as one expression.
TEST_P(NoContraction, ArithmeticIsTheInterpretersBits) {
  auto k =
      tack::kernel("no_contract_arithmetic", kNoContract, [](Array out, Array a, Array b, Array c, Array d, Array e) {
        parallel_for(a.size(), [&](Index i) {
          Value n = a.size();
          out[i] = a[i] * b[i] + c[i];
          out[n + i] = c[i] - a[i] * b[i];
          out[2 * n + i] = a[i] * b[i] + c[i] * d[i] + e[i];
          out[3 * n + i] = a[i] * b[i] - c[i] * d[i];
          out[4 * n + i] = (a[i] * b[i] + c[i]) / d[i];
          out[5 * n + i] = sqrt(a[i] * a[i] + b[i] * b[i]);
        });
      });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const auto a = table<T>(kRows, 1), b = table<T>(kRows, 2), c = table<T>(kRows, 3), d = table<T>(kRows, 4),
               e = table<T>(kRows, 5);
    std::vector<T> want(6 * kRows), fused(kRows);
    for (std::size_t i = 0; i < kRows; ++i) {
      want[i] = mul(a[i], b[i]) + c[i];
      want[kRows + i] = c[i] - mul(a[i], b[i]);
      want[2 * kRows + i] = mul(a[i], b[i]) + mul(c[i], d[i]) + e[i];
      want[3 * kRows + i] = mul(a[i], b[i]) - mul(c[i], d[i]);
      want[4 * kRows + i] = (mul(a[i], b[i]) + c[i]) / d[i];
      want[5 * kRows + i] = std::sqrt(mul(a[i], a[i]) + mul(b[i], b[i]));
      fused[i] = std::fma(a[i], b[i], c[i]);
    }
    expect_fusing_matters(fused, std::vector<T>(want.begin(), want.begin() + kRows), kRows / 8);
    expect_exact(
        "a*b+c, c-a*b, a*b+c*d+e, a*b-c*d, (a*b+c)/d, sqrt(a*a+b*b) with fp_contract off",
        [&](const tack::Device& dev) {
          tack::Array out = zeros<T>(dev, 6 * static_cast<std::int64_t>(kRows));
          k(out, dev.from_host(a), dev.from_host(b), dev.from_host(c), dev.from_host(d), dev.from_host(e));
          return out.to_host<T>();
        },
        want, [](std::size_t i) { return "form " + std::to_string(i / kRows) + ", row " + std::to_string(i % kRows); });
  });
}

// The motivating case: one explicit step of the 1-D heat equation,
// u + r * (left - 2u + right), where contraction (r*(...) + u, 2*u into the
// sum) changed hundreds of elements against NumPy.
TEST_P(NoContraction, HeatStencilStep) {
  auto k = tack::kernel("no_contract_heat", kNoContract, [](Array out, Array u, Scalar r) {
    parallel_for(u.size(), [&](Index i) {
      Value last = u.size() - 1;
      Value left = u[select(i == 0, i, i - 1)];
      Value right = u[select(i == last, i, i + 1)];
      out[i] = u[i] + r * (left - 2.0 * u[i] + right);
    });
  });
  constexpr std::size_t n = 4096;
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const std::vector<T> u = table<T>(n, 7);
    const T r = T(0.1);
    std::vector<T> want(n), fused(n);
    for (std::size_t i = 0; i < n; ++i) {
      const T left = u[i == 0 ? i : i - 1], right = u[i == n - 1 ? i : i + 1];
      want[i] = u[i] + mul(r, (left - mul(T(2), u[i])) + right);
      fused[i] = std::fma(r, std::fma(T(-2), u[i], left) + right, u[i]);
    }
    expect_fusing_matters(fused, want, n / 32);
    expect_exact(
        "u + r*(left - 2u + right) with fp_contract off",
        [&](const tack::Device& dev) {
          tack::Array out = zeros<T>(dev, static_cast<std::int64_t>(n));
          k(out, dev.from_host(u), r);
          return out.to_host<T>();
        },
        want);
  });
}

// A comparison and conversions of a sum of products: each result depends on the rounding of a*b + c, so a
// fused sum shows through as a different bool, integer or narrower float.
TEST_P(NoContraction, ComparisonsAndConversionsOfSums) {
  auto k = tack::kernel("no_contract_compare_convert", kNoContract,
                        [](Array flags, Array scaled, Array narrowed, Array a, Array b, Array c, Array e) {
                          parallel_for(a.size(), [&](Index i) {
                            flags[i] = cast<std::int32_t>(a[i] * b[i] + c[i] != e[i]);
                            // An exact scaling by 2^40 keeps every bit of the sum in the integer.
                            scaled[i] = cast<std::int64_t>((a[i] * b[i] + c[i]) * 1099511627776.0);
                            narrowed[i] = cast<float>(a[i] * b[i] + c[i] * e[i]);
                          });
                        });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const auto a = table<T>(kRows, 11), b = table<T>(kRows, 12), c = table<T>(kRows, 13);
    std::vector<T> e(kRows), fused(kRows), unfused(kRows);
    std::vector<std::int32_t> want_flags(kRows);
    std::vector<std::int64_t> want_scaled(kRows);
    std::vector<float> want_narrowed(kRows);
    for (std::size_t i = 0; i < kRows; ++i) {
      // e is the unfused sum: a backend that fused would see a*b + c != e on the rows where fusing matters.
      e[i] = unfused[i] = mul(a[i], b[i]) + c[i];
      fused[i] = std::fma(a[i], b[i], c[i]);
      want_flags[i] = 0;
      want_scaled[i] = static_cast<std::int64_t>(mul(unfused[i], T(1099511627776.0)));
      want_narrowed[i] = static_cast<float>(mul(a[i], b[i]) + mul(c[i], e[i]));
    }
    expect_fusing_matters(fused, unfused, kRows / 8);
    const auto n = static_cast<std::int64_t>(kRows);
    auto run = [&](const tack::Device& dev) {
      tack::Array flags = zeros<std::int32_t>(dev, n), scaled = zeros<std::int64_t>(dev, n),
                  narrowed = zeros<float>(dev, n);
      k(flags, scaled, narrowed, dev.from_host(a), dev.from_host(b), dev.from_host(c), dev.from_host(e));
      return std::tuple{flags.to_host<std::int32_t>(), scaled.to_host<std::int64_t>(), narrowed.to_host<float>()};
    };
    expect_exact(
        "(a*b + c != e) with fp_contract off", [&](const tack::Device& dev) { return std::get<0>(run(dev)); },
        want_flags);
    expect_exact(
        "i64((a*b + c) * 2^40) with fp_contract off", [&](const tack::Device& dev) { return std::get<1>(run(dev)); },
        want_scaled);
    expect_exact(
        "f32(a*b + c*e) with fp_contract off", [&](const tack::Device& dev) { return std::get<2>(run(dev)); },
        want_narrowed);
  });
}

// fma() is the one way to fuse, and it still does with contraction off.
TEST_P(NoContraction, FmaStillFuses) {
  auto k = tack::kernel("no_contract_fma", kNoContract, [](Array out, Array a, Array b, Array c) {
    parallel_for(a.size(), [&](Index i) { out[i] = fma(a[i], b[i], c[i]); });
  });
  for_each_type(FloatTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const auto a = table<T>(kRows, 21), b = table<T>(kRows, 22), c = table<T>(kRows, 23);
    std::vector<T> want(kRows), unfused(kRows);
    for (std::size_t i = 0; i < kRows; ++i) {
      want[i] = std::fma(a[i], b[i], c[i]);
      unfused[i] = mul(a[i], b[i]) + c[i];
    }
    expect_fusing_matters(want, unfused, kRows / 8);
    expect_exact(
        "fma(a, b, c) with fp_contract off",
        [&](const tack::Device& dev) {
          tack::Array out = zeros<T>(dev, static_cast<std::int64_t>(kRows));
          k(out, dev.from_host(a), dev.from_host(b), dev.from_host(c));
          return out.to_host<T>();
        },
        want);
  });
}

}  // namespace
