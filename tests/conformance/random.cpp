// Random numbers (issue 29, point 5): Philox4x32-10 gives Random123's published
// known answers, and tack::lang::Random's u32 and uniform streams are the same bits
// as the definition in docs/language.md on every backend (a host reference here),
// wherever the draws are made (straight-line, in branches, in a while loop whose
// draw count depends on the data). Normals agree within the transcendental
// tolerance; the distributions pass moment and chi-square checks.
#include "conformance/backend_param.hpp"

#include <tack/random.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(RandomNumbers);

// ---- the definition, on the host ---------------------------------------------

std::array<std::uint32_t, 4> philox_host(std::array<std::uint32_t, 4> c, std::uint32_t k0, std::uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c[0], p1 = std::uint64_t{0xCD9E8D57u} * c[2];
    c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<std::uint32_t>(p1),
         static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<std::uint32_t>(p0)};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

// Random(seed, stream) on the host: the words of block 0, 1, ... in order.
struct HostRandom {
  std::uint64_t seed, stream, block = 0;
  int pos = 0;
  std::array<std::uint32_t, 4> words{};
  HostRandom(std::uint64_t s, std::uint64_t t) : seed(s), stream(t) { fill(); }
  void fill() {
    words = philox_host({static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
                         static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)},
                        static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  }
  std::uint32_t next() {
    if (pos == 4) {
      ++block;
      fill();
      pos = 0;
    }
    return words[pos++];
  }
  float uniform() { return static_cast<float>(next() >> 8) * 0x1p-24f; }
  double uniform64() {
    std::uint64_t a = next() >> 5, b = next() >> 6;
    return static_cast<double>((a << 26) | b) * 0x1p-53;
  }
  float normal() {
    float u1 = static_cast<float>((next() >> 8) + 1) * 0x1p-24f;
    float u2 = uniform();
    return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.2831853071795864f * u2);
  }
  double normal64() {
    std::uint64_t a = next() >> 5, b = next() >> 6;
    double u1 = static_cast<double>(((a << 26) | b) + 1) * 0x1p-53;
    double u2 = uniform64();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586476925286766559 * u2);
  }
};

const std::vector<std::array<std::uint32_t, 6>> kKnownInputs = {
    {0, 0, 0, 0, 0, 0},
    {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
    {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u}};
const std::vector<std::uint32_t> kKnownAnswers = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u,
                                                  0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu,
                                                  0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u};

TEST(RandomReference, HostPhiloxGivesTheKnownAnswers) {
  std::vector<std::uint32_t> got;
  for (const auto& in : kKnownInputs)
    for (std::uint32_t w : philox_host({in[0], in[1], in[2], in[3]}, in[4], in[5])) got.push_back(w);
  EXPECT_EQ(got, kKnownAnswers);
}

// ---- known answers -------------------------------------------------------------

TEST_P(RandomNumbers, PhiloxKnownAnswersFromArrays) {
  auto k = tack::kernel("philox_kat", [](ArrayOf<std::uint32_t> out, ArrayOf<std::uint32_t> in) {
    parallel_for(out.size() / 4, [&](Index i) {
      auto w = philox4x32(in[i * 6], in[i * 6 + 1], in[i * 6 + 2], in[i * 6 + 3], in[i * 6 + 4], in[i * 6 + 5]);
      for (int j = 0; j < 4; ++j) out[i * 4 + j] = w[j];
    });
  });
  std::vector<std::uint32_t> in;
  for (const auto& row : kKnownInputs) in.insert(in.end(), row.begin(), row.end());
  tack::Array out = dev().zeros(tack::DType::U32, {12});
  k(out, dev().from_host(in));
  EXPECT_EQ(out.to_host<std::uint32_t>(), kKnownAnswers);
}

// Constant counter and key: the optimizer may fold all ten rounds; it must fold them right.
TEST_P(RandomNumbers, PhiloxKnownAnswersFromConstants) {
  auto k = tack::kernel("philox_kat_const", [](ArrayOf<std::uint32_t> out) {
    parallel_for(1, [&](Index) {
      for (std::size_t r = 0; r < kKnownInputs.size(); ++r) {
        const auto& c = kKnownInputs[r];
        auto w = philox4x32(c[0], c[1], c[2], c[3], c[4], c[5]);
        for (int j = 0; j < 4; ++j) out[static_cast<std::int64_t>(r * 4 + j)] = w[j];
      }
    });
  });
  tack::Array out = dev().zeros(tack::DType::U32, {12});
  k(out);
  EXPECT_EQ(out.to_host<std::uint32_t>(), kKnownAnswers);
}

// Philox's words as named variables: structured bindings work.
TEST_P(RandomNumbers, PhiloxFromScalars) {
  auto k = tack::kernel("philox_scalars", [](ArrayOf<std::uint32_t> out, Scalar key) {
    parallel_for(1, [&](Index) {
      auto [a, b, c, d] = philox4x32(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, key, 0x299f31d0u);
      out[0] = a;
      out[1] = b;
      out[2] = c;
      out[3] = d;
    });
  });
  tack::Array out = dev().zeros(tack::DType::U32, {4});
  k(out, std::uint32_t{0xa4093822u});
  EXPECT_EQ(out.to_host<std::uint32_t>(), std::vector<std::uint32_t>(kKnownAnswers.begin() + 8, kKnownAnswers.end()));
}

// ---- streams ---------------------------------------------------------------------

constexpr std::int64_t kStreams = 1000;
constexpr std::uint64_t kSeed = 0x123456789abcdef0ull;

// Per stream i: 6 u32 (block 0 and half of block 1), 3 f32 uniforms, 2 f64 uniforms.
TEST_P(RandomNumbers, StreamsAreTheDefinitionBitForBit) {
  auto k = tack::kernel("random_streams",
                        [](ArrayOf<std::uint32_t> words, ArrayOf<float> u, ArrayOf<double> u64, Scalar seed) {
                          parallel_for(words.size() / 6, [&](Index i) {
                            Random rng(seed, i);
                            for (int j = 0; j < 6; ++j) words[i * 6 + j] = rng.next_u32();
                            for (int j = 0; j < 3; ++j) u[i * 3 + j] = rng.uniform();
                            for (int j = 0; j < 2; ++j) u64[i * 2 + j] = rng.uniform(tack::DType::F64);
                          });
                        });
  std::vector<std::uint32_t> want_w;
  std::vector<float> want_u;
  std::vector<double> want_u64;
  for (std::int64_t i = 0; i < kStreams; ++i) {
    HostRandom h(kSeed, static_cast<std::uint64_t>(i));
    for (int j = 0; j < 6; ++j) want_w.push_back(h.next());
    for (int j = 0; j < 3; ++j) want_u.push_back(h.uniform());
    for (int j = 0; j < 2; ++j) want_u64.push_back(h.uniform64());
  }
  tack::Array w = dev().zeros(tack::DType::U32, {kStreams * 6});
  tack::Array u = dev().zeros(tack::DType::F32, {kStreams * 3});
  tack::Array u64 = dev().zeros(tack::DType::F64, {kStreams * 2});
  k(w, u, u64, kSeed);
  compare_exact("next_u32", backend(), w.to_host<std::uint32_t>(), "definition", want_w);
  compare_exact("uniform()", backend(), u.to_host<float>(), "definition", want_u);
  compare_exact("uniform(f64)", backend(), u64.to_host<double>(), "definition", want_u64);
}

// A work-item draws until a word falls below a threshold: how many draws (and so
// which block) is known only at run time. Draws in both branches of an if_ too.
TEST_P(RandomNumbers, DrawsInsideTracedControlFlow) {
  auto k = tack::kernel("random_while", [](ArrayOf<std::int32_t> count, ArrayOf<std::uint32_t> last, Scalar seed) {
    parallel_for(count.size(), [&](Index i) {
      Random rng(seed, i);
      Var n = 1;
      Var w = rng.next_u32();
      while_([&] { return Value(w) >= 0x20000000u; },
             [&] {
               w = rng.next_u32();
               n += 1;
             });
      if_(
          (Value(n) & 1) == 1, [&] { w = rng.next_u32(); }, [&] { w = rng.next_u32() ^ rng.next_u32(); });
      count[i] = n;
      last[i] = w;
    });
  });
  std::vector<std::int32_t> want_n;
  std::vector<std::uint32_t> want_last;
  for (std::int64_t i = 0; i < kStreams; ++i) {
    HostRandom h(kSeed, static_cast<std::uint64_t>(i));
    std::int32_t n = 1;
    std::uint32_t w = h.next();
    while (w >= 0x20000000u) {
      w = h.next();
      ++n;
    }
    if (n & 1) {
      w = h.next();
    } else {
      std::uint32_t a = h.next();
      w = a ^ h.next();
    }
    want_n.push_back(n);
    want_last.push_back(w);
  }
  tack::Array n = dev().zeros(tack::DType::I32, {kStreams});
  tack::Array last = dev().zeros(tack::DType::U32, {kStreams});
  k(n, last, kSeed);
  compare_exact("draw count", backend(), n.to_host<std::int32_t>(), "definition", want_n);
  compare_exact("word after the loop", backend(), last.to_host<std::uint32_t>(), "definition", want_last);
}

// A Random used in a traced loop after straight-line draws, and passed to a helper by reference.
Value two_uniforms(Random& rng) { return rng.uniform() + rng.uniform(); }

TEST_P(RandomNumbers, StaticThenDynamicDraws) {
  auto k = tack::kernel("random_mixed", [](ArrayOf<float> out, Scalar seed, Scalar m) {
    parallel_for(out.size(), [&](Index i) {
      Random rng(seed, i);
      Value first = two_uniforms(rng);  // words 0-2, known while tracing
      Var s = first + rng.uniform();
      for_range(0, m, [&](Index) { s += rng.uniform(); });
      out[i] = s + rng.uniform();
    });
  });
  for (std::int64_t m : {0, 1, 7}) {
    std::vector<float> want;
    for (std::int64_t i = 0; i < kStreams; ++i) {
      HostRandom h(kSeed, static_cast<std::uint64_t>(i));
      float a = h.uniform();
      float s = a + h.uniform();
      s = s + h.uniform();
      for (std::int64_t j = 0; j < m; ++j) s += h.uniform();
      want.push_back(s + h.uniform());
    }
    tack::Array out = dev().zeros(tack::DType::F32, {kStreams});
    k(out, kSeed, m);
    compare_exact("uniform sums, m = " + std::to_string(m), backend(), out.to_host<float>(), "definition", want);
  }
}

template <class T>
void expect_close(std::string_view what, const std::vector<T>& got, const std::vector<T>& want, T tol) {
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(got[i] - want[i]) <= tol) && ++bad <= 5)
      ADD_FAILURE() << what << " [" << i << "]: " << show(got[i]) << ", definition " << show(want[i]);
}

TEST_P(RandomNumbers, NormalsAreTheDefinitionWithinTheTranscendentalTolerance) {
  auto k = tack::kernel("random_normals", [](ArrayOf<float> z, ArrayOf<double> z64, Scalar seed) {
    parallel_for(z.size() / 2, [&](Index i) {
      Random rng(seed, i);
      z[i * 2] = rng.normal();
      z[i * 2 + 1] = rng.normal();
      z64[i] = rng.normal(tack::DType::F64);
    });
  });
  std::vector<float> want;
  std::vector<double> want64;
  for (std::int64_t i = 0; i < kStreams; ++i) {
    HostRandom h(kSeed, static_cast<std::uint64_t>(i));
    want.push_back(h.normal());
    want.push_back(h.normal());
    want64.push_back(h.normal64());
  }
  tack::Array z = dev().zeros(tack::DType::F32, {kStreams * 2});
  tack::Array z64 = dev().zeros(tack::DType::F64, {kStreams});
  k(z, z64, kSeed);
  // A few ulp of log, sqrt and cos, at normals of magnitude up to about 6.
  expect_close("normal()", z.to_host<float>(), want, 64 * std::numeric_limits<float>::epsilon());
  expect_close("normal(f64)", z64.to_host<double>(), want64, 64 * std::numeric_limits<double>::epsilon());
}

TEST_P(RandomNumbers, IntegersAreInRangeAndTheDefinition) {
  auto k = tack::kernel("random_integers", [](ArrayOf<std::int64_t> out, Scalar lo, Scalar hi) {
    parallel_for(out.size(), [&](Index i) {
      Random rng(7, i);
      out[i] = rng.integers(lo, hi);
    });
  });
  const std::int64_t n = 20000, lo = -3, hi = 7;
  std::vector<std::int64_t> want;
  for (std::int64_t i = 0; i < n; ++i) {
    HostRandom h(7, static_cast<std::uint64_t>(i));
    want.push_back(lo + static_cast<std::int64_t>((std::uint64_t{h.next()} * (hi - lo)) >> 32));
  }
  tack::Array out = dev().zeros(tack::DType::I64, {n});
  k(out, lo, hi);
  auto got = out.to_host<std::int64_t>();
  compare_exact("integers(-3, 7)", backend(), got, "definition", want);
  std::vector<int> hist(hi - lo, 0);
  for (std::int64_t v : got) {
    ASSERT_GE(v, lo);
    ASSERT_LT(v, hi);
    ++hist[v - lo];
  }
  for (int c : hist) EXPECT_NEAR(c, n / (hi - lo), 5 * std::sqrt(n / (hi - lo)));
  // An empty range gives lo.
  k(out, std::int64_t{5}, std::int64_t{5});
  for (std::int64_t v : out.to_host<std::int64_t>()) ASSERT_EQ(v, 5);
}

// ---- statistics ------------------------------------------------------------------

// Chi-square of n values in [0, 1) over `bins` equal bins; the 1e-6 tail of
// chi-square with 99 degrees of freedom is about 170.
template <class T>
double chi_square(const std::vector<T>& v, int bins) {
  std::vector<double> count(bins, 0.0);
  for (T x : v) count[std::min(bins - 1, static_cast<int>(x * bins))] += 1;
  double e = static_cast<double>(v.size()) / bins, chi = 0;
  for (double c : count) chi += (c - e) * (c - e) / e;
  return chi;
}

// One million draws: a stream the CPU and OpenCL run in milliseconds; the
// interpreter checks the same statistics on a tenth of them.
TEST_P(RandomNumbers, UniformsAndNormalsHaveTheRightDistribution) {
  auto k = tack::kernel("random_moments",
                        [](ArrayOf<float> u, ArrayOf<double> u64, ArrayOf<float> z, ArrayOf<double> z64, Scalar seed) {
                          parallel_for(u.size(), [&](Index i) {
                            Random rng(seed, i);
                            u[i] = rng.uniform();
                            u64[i] = rng.uniform(tack::DType::F64);
                            z[i] = rng.normal();
                            z64[i] = rng.normal(tack::DType::F64);
                          });
                        });
  const std::int64_t n = on_interp() ? 100000 : 1000000;
  tack::Array u = dev().zeros(tack::DType::F32, {n}), u64 = dev().zeros(tack::DType::F64, {n});
  tack::Array z = dev().zeros(tack::DType::F32, {n}), z64 = dev().zeros(tack::DType::F64, {n});
  k(u, u64, z, z64, std::uint64_t{2026});
  auto check_uniform = [&](const char* what, const auto& v) {
    double mean = 0, var = 0;
    for (auto x : v) {
      ASSERT_GE(x, 0);
      ASSERT_LT(x, 1);
      mean += x;
    }
    mean /= n;
    for (auto x : v) var += (x - mean) * (x - mean);
    var /= n;
    EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n)) << what;
    EXPECT_NEAR(var, 1.0 / 12, 5 * std::sqrt(1.0 / 180 / n)) << what;
    EXPECT_LT(chi_square(v, 100), 170) << what;
  };
  auto check_normal = [&](const char* what, const auto& v) {
    double mean = 0, var = 0, inside = 0;
    for (auto x : v) {
      ASSERT_TRUE(std::isfinite(x)) << what;
      mean += x;
      inside += std::abs(x) < 1 ? 1 : 0;
    }
    mean /= n;
    for (auto x : v) var += (x - mean) * (x - mean);
    var /= n;
    EXPECT_NEAR(mean, 0, 5 / std::sqrt(n)) << what;
    EXPECT_NEAR(var, 1, 5 * std::sqrt(2.0 / n)) << what;
    EXPECT_NEAR(inside / n, 0.682689492, 5 * std::sqrt(0.25 / n)) << what;  // P(|z| < 1)
  };
  check_uniform("uniform()", u.to_host<float>());
  check_uniform("uniform(f64)", u64.to_host<double>());
  check_normal("normal()", z.to_host<float>());
  check_normal("normal(f64)", z64.to_host<double>());
}

}  // namespace
