// Per-work-item arrays (local_array<T>(n), docs/language.md "Per-work-item
// arrays"): each work-item has its own n elements, zero where declared, indexed
// by any traced integer. A per-item insertion sort of 16 values must equal
// std::sort's, a per-item 4x4 solve with partial pivoting the host's solve; on
// the CPU they run inside SIMD gangs, in a parallel_for and in workgroups, with
// and without barriers (a local array lives across one). Out-of-range indices
// are an IndexError naming the line in debug mode (tests/errors/local_arrays.cpp
// holds the refusals).
#include "conformance/backend_param.hpp"

#include "../../examples/local_sort/local_sort_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(LocalArrays);

// Deterministic values in [-1000, 1000) with repeats, so the sort meets ties.
std::vector<float> sort_input(std::int64_t n) {
  std::vector<float> x(static_cast<std::size_t>(n));
  std::uint32_t s = 12345;
  for (float& v : x) {
    s = s * 1664525u + 1013904223u;
    v = static_cast<float>(static_cast<int>(s >> 16) % 2000 - 1000) * 0.5f;
  }
  return x;
}

using local_sort::insertion_sort;  // a helper taking the array by reference

TEST_P(LocalArrays, InsertionSortOf16PerWorkItemMatchesStdSort) {
  const std::int64_t items = 1003;  // not a whole number of gangs: the last gang runs masked
  std::vector<float> in = sort_input(items * 16);
  std::vector<float> want = in;
  for (std::int64_t i = 0; i < items; ++i) std::sort(want.begin() + i * 16, want.begin() + (i + 1) * 16);
  auto k = local_sort::sort16_kernel();
  expect_exact(
      "16 values sorted per work-item",
      [&](const tack::Device& d) {
        tack::Array out = d.zeros(tack::DType::F32, {items, 16});
        k(out, d.from_host(in, {items, 16}));
        return out.to_host<float>();
      },
      want);
}

TEST_P(LocalArrays, ZeroedWhereDeclaredIndexedByATracedLoopVariable) {
  // Each work-item first sums its fresh array (0 unless another work-item's or iteration's values leaked in),
  // then fills it from its index and reads it back in reverse; an inner array declared in a loop is zeroed on
  // every iteration.
  auto k = tack::kernel("local_zero", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      LocalArray a = local_array<std::int32_t>(16);
      Var leaked = 0;
      for_range(0, 16, [&](Index j) { leaked += a[j]; });
      for_range(0, 16, [&](Index j) { a[j] = cast<std::int32_t>(i * 100 + j); });
      Var total = 0;
      for_range(0, 3, [&](Index r) {
        LocalArray b = local_array<std::int64_t>(4);
        for_range(0, 4, [&](Index j) { leaked += cast<std::int32_t>(b[j]); });
        b[r] += r + 1;
        total += cast<std::int32_t>(b[r]);
      });
      out[i] = leaked * 1000000 + a[15 - i % 16] + total * 100000;
    });
  });
  const std::int64_t n = 77;
  std::vector<std::int32_t> want;
  for (std::int64_t i = 0; i < n; ++i) want.push_back(static_cast<std::int32_t>(i * 100 + 15 - i % 16 + 6 * 100000));
  expect_exact(
      "fresh local arrays hold zero; a[15 - i % 16] reads back what was stored",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int32_t>(d, n);
        k(out);
        return out.to_host<std::int32_t>();
      },
      want);
}

TEST_P(LocalArrays, EveryDtypeAndAHelperTakingTheArrayByReference) {
  for_each_type(AllTypes{}, [&]<class T>() {
    if (!has_dtype<T>()) return;
    auto k = tack::kernel("local_dtype", [](Array out) {
      parallel_for(out.size(), [&](Index i) {
        LocalArray a = local_array<T>(5);
        a[i % 5] = cast<T>(i % 7 + 1);
        a[(i + 1) % 5] += cast<T>(2);
        out[i] = a[i % 5] * cast<T>(3) + a[(i + 1) % 5] + a[(i + 2) % 5];
      });
    });
    const std::int64_t n = 40;
    std::vector<T> want;
    for (std::int64_t i = 0; i < n; ++i) want.push_back(static_cast<T>((i % 7 + 1) * 3 + 2));
    expect_exact(
        "a[i % 5] * 3 + a[(i + 1) % 5] + a[(i + 2) % 5]",
        [&](const tack::Device& d) {
          tack::Array out = zeros<T>(d, n);
          k(out);
          return out.to_host<T>();
        },
        want);
  });
  // Bool elements, and a C++ helper sorting through a reference to the array.
  auto k = tack::kernel("local_bool_helper", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      LocalArray seen = local_array<bool>(8);
      seen[i % 8] = true;
      LocalArray v = local_array<float>(6);
      for_range(0, 6, [&](Index j) { v[j] = cast<float>((i * 5 + j * 3) % 11); });
      insertion_sort(v, 6);
      out[i] = select(seen[i % 8] && !seen[(i + 1) % 8], 1000.0f, 0.0f) + v[0] + 10.0f * v[5];
    });
  });
  const std::int64_t n = 50;
  std::vector<float> want;
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<float> v;
    for (int j = 0; j < 6; ++j) v.push_back(static_cast<float>((i * 5 + j * 3) % 11));
    std::sort(v.begin(), v.end());
    want.push_back(1000.0f + v[0] + 10.0f * v[5]);
  }
  expect_exact(
      "bool local array and a sorted float one",
      [&](const tack::Device& d) {
        tack::Array out = zeros<float>(d, n);
        k(out);
        return out.to_host<float>();
      },
      want);
}

// Solves A x = b for one 4x4 system per work-item: Gaussian elimination with
// partial pivoting, A (row-major) in a local array of 16 and b in one of 4.
tack::Kernel solve_kernel() {
  return tack::kernel("local_solve4", [](Array x, Array a_in, Array b_in) {
    parallel_for(x.size() / 4, [&](Index s) {
      LocalArray a = local_array<float>(16);
      LocalArray b = local_array<float>(4);
      for_range(0, 16, [&](Index k) { a[k] = a_in[s * 16 + k]; });
      for_range(0, 4, [&](Index k) { b[k] = b_in[s * 4 + k]; });
      for_range(0, 4, [&](Index c) {
        Var p = c;
        Var best = abs(a[c * 4 + c]);
        for_range(c + 1, 4, [&](Index r) {
          Value v = abs(a[r * 4 + c]);
          if_(v > best, [&] {
            best = v;
            p = r;
          });
        });
        Value pr = p;
        if_(pr != c, [&] {
          for_range(0, 4, [&](Index k) {
            Value t = a[c * 4 + k];
            a[c * 4 + k] = a[pr * 4 + k];
            a[pr * 4 + k] = t;
          });
          Value t = b[c];
          b[c] = b[pr];
          b[pr] = t;
        });
        for_range(c + 1, 4, [&](Index r) {
          Value f = a[r * 4 + c] / a[c * 4 + c];
          for_range(c, 4, [&](Index k) { a[r * 4 + k] -= f * a[c * 4 + k]; });
          b[r] -= f * b[c];
        });
      });
      for_range(0, 4, [&](Index q) {
        Value r = 3 - q;
        Var acc = b[r];
        for_range(r + 1, 4, [&](Index k) { acc -= a[r * 4 + k] * b[k]; });
        b[r] = acc / a[r * 4 + r];
      });
      for_range(0, 4, [&](Index k) { x[s * 4 + k] = b[k]; });
    });
  });
}

// The host's solve in double, with the same pivoting.
std::vector<double> host_solve(std::vector<double> a, std::vector<double> b) {
  for (int c = 0; c < 4; ++c) {
    int p = c;
    for (int r = c + 1; r < 4; ++r)
      if (std::abs(a[r * 4 + c]) > std::abs(a[p * 4 + c])) p = r;
    for (int k = 0; k < 4; ++k) std::swap(a[c * 4 + k], a[p * 4 + k]);
    std::swap(b[c], b[p]);
    for (int r = c + 1; r < 4; ++r) {
      double f = a[r * 4 + c] / a[c * 4 + c];
      for (int k = c; k < 4; ++k) a[r * 4 + k] -= f * a[c * 4 + k];
      b[r] -= f * b[c];
    }
  }
  for (int r = 3; r >= 0; --r) {
    double acc = b[r];
    for (int k = r + 1; k < 4; ++k) acc -= a[r * 4 + k] * b[k];
    b[r] = acc / a[r * 4 + r];
  }
  return b;
}

TEST_P(LocalArrays, FourByFourSolveWithPartialPivotingMatchesTheHost) {
  const std::int64_t systems = 301;
  std::vector<float> a(systems * 16), b(systems * 4);
  std::uint32_t s = 777;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return static_cast<float>(static_cast<int>(s >> 8) % 2001 - 1000) / 250.0f;
  };
  // Diagonally dominant (well conditioned) with its rows rotated by i % 4: the elimination must pivot.
  for (std::int64_t i = 0; i < systems; ++i)
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) {
        float v = r == c ? 5.0f + std::abs(next()) : next() / 4.0f;
        a[i * 16 + ((r + i) % 4) * 4 + c] = v;
      }
  for (float& v : b) v = next();
  auto k = solve_kernel();
  tack::Array x = zeros<float>(dev(), systems * 4);
  k(x, dev().from_host(a), dev().from_host(b));
  std::vector<float> got = x.to_host<float>();
  int bad = 0;
  for (std::int64_t i = 0; i < systems; ++i) {
    std::vector<double> ad(a.begin() + i * 16, a.begin() + (i + 1) * 16),
        bd(b.begin() + i * 4, b.begin() + (i + 1) * 4);
    std::vector<double> want = host_solve(ad, bd);
    double scale = 0;
    for (double w : want) scale = std::max(scale, std::abs(w));
    for (int j = 0; j < 4; ++j)
      if (!(std::abs(got[i * 4 + j] - want[j]) <= 1e-3 * (1 + scale)) && ++bad <= 8)  // NaN is bad too
        ADD_FAILURE() << backend() << ": system " << i << " x[" << j << "] = " << got[i * 4 + j] << ", host "
                      << want[j];
  }
  EXPECT_EQ(bad, 0);
}

TEST_P(LocalArrays, InWorkgroupsWithAndWithoutABarrier) {
  if (!caps().supports_workgroups) GTEST_SKIP() << backend() << " has no workgroups";
  // Without a barrier: one work-item loop (on the CPU, gangs), the array per lane.
  auto plain = tack::kernel("local_wg_plain", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) {
      LocalArray a = local_array<float>(16);
      for_range(0, 16, [&](Index k) { a[(k * 7 + g.local_id()) % 16] = cast<float>(k + g.global_id()); });
      Var s = 0.0f;
      for_range(0, 16, [&](Index k) { s += a[k] * cast<float>(k + 1); });
      out[g.global_id()] = s;
    });
  });
  // With one: each work-item's array is written before it and read after it, reversed through a shared array.
  auto across = tack::kernel("local_wg_barrier", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) {
      SharedArray sh = g.shared<float>(256);
      LocalArray a = local_array<float>(8);
      for_range(0, 8, [&](Index k) { a[k] = cast<float>(g.local_id() * 8 + k); });
      sh[g.local_id()] = a[g.local_id() % 8];
      g.barrier();
      Var s = sh[255 - g.local_id()];
      for_range(0, 8, [&](Index k) { s += a[7 - k] * cast<float>(k); });
      out[g.global_id()] = s;
    });
  });
  const std::int64_t groups = 3, n = groups * 256;
  std::vector<float> want_plain, want_across;
  for (std::int64_t gid = 0; gid < n; ++gid) {
    const std::int64_t lid = gid % 256;
    std::vector<float> a(16);
    for (std::int64_t k = 0; k < 16; ++k) a[(k * 7 + lid) % 16] = static_cast<float>(k + gid);
    float s = 0;
    for (std::int64_t k = 0; k < 16; ++k) s += a[k] * static_cast<float>(k + 1);
    want_plain.push_back(s);
    const std::int64_t other = 255 - lid;
    float t = static_cast<float>(other * 8 + other % 8);
    for (std::int64_t k = 0; k < 8; ++k) t += static_cast<float>(lid * 8 + 7 - k) * static_cast<float>(k);
    want_across.push_back(t);
  }
  auto run = [&](const tack::Kernel& k) {
    return [&](const tack::Device& d) {
      tack::Array out = zeros<float>(d, n);
      k(out);
      return out.to_host<float>();
    };
  };
  expect_exact("local array in a workgroup, no barrier", run(plain), want_plain);
  expect_exact("local array live across a barrier", run(across), want_across);
}

TEST_P(LocalArrays, DebugModeNamesTheLocalArrayIndexExtentAndLine) {
  const int line = __LINE__ + 4;
  auto k = tack::kernel("local_oob", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      LocalArray a = local_array<float>(16);
      a[i] = 1.0f;  // out of range from i = 16
      out[i] = a[i % 16];
    });
  });
  tack::set_debug(true);
  std::string message;
  try {
    k(zeros<float>(dev(), 20));
    tack::sync();
  } catch (const tack::IndexError& e) {
    message = e.what();
  }
  tack::set_debug(false);
  ASSERT_FALSE(message.empty()) << "no IndexError on " << backend();
  for (const std::string& part :
       {std::string("kernel 'local_oob'"), std::string("index 16"), std::string("local array 0"),
        std::string("(extent 16)"), std::string("local_arrays.cpp:") + std::to_string(line)})
    EXPECT_NE(message.find(part), std::string::npos) << "missing '" << part << "' in: " << message;
}

}  // namespace
