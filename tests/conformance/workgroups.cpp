// Workgroups: workgroup_for runs num_groups groups of 256 work-items; each sees
// local_id, group_id, size, num_groups and global_id; g.shared<T>(n) is zeroed
// when the group starts and shared by the group; g.barrier() orders its
// accesses; g.reduce_add/min/max combine a value over the group. Block sums by
// a tree reduction in shared memory and by reduce_add must equal the C++ sums
// exactly (integer-valued data, so every order gives the same f32 result).
// A backend without workgroups must refuse such a kernel at the call.
#include "conformance/backend_param.hpp"
#include "support/tiled_matmul.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Workgroups);

constexpr std::int64_t kGroup = 256;

// Skips the test, after checking the refusal (InvalidArgument naming
// workgroup_for and the backend, docs/errors.md), when the backend has no
// workgroups.
#define TACK_REQUIRE_WORKGROUPS(call)                                                                  \
  do {                                                                                                 \
    if (!caps().supports_workgroups) {                                                                 \
      expect_workgroups_refused([&] { call; }, backend());                                             \
      GTEST_SKIP() << backend() << " has no workgroups (capabilities().supports_workgroups is false)"; \
    }                                                                                                  \
  } while (0)

void expect_workgroups_refused(const std::function<void()>& call, const std::string& backend) {
  try {
    call();
    ADD_FAILURE() << "a backend without workgroups must refuse workgroup_for";
  } catch (const tack::InvalidArgument& e) {
    const std::string want = "uses workgroup_for, which the " + backend + " backend does not support";
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << "missing '" << want << "' in: " << e.what();
  }
}

// Integer-valued data in [-500, 500): sums of any order are exact in f32.
template <class T>
std::vector<T> block_data(std::int64_t n) {
  std::vector<T> x;
  for (std::int64_t i = 0; i < n; ++i) x.push_back(static_cast<T>((i * 7919) % 1000 - 500));
  return x;
}

template <class T>
std::vector<T> host_block_sums(const std::vector<T>& x, std::int64_t groups) {
  std::vector<T> s(groups, T(0));
  for (std::size_t i = 0; i < x.size(); ++i) s[i / kGroup] += x[i];
  return s;
}

TEST_P(Workgroups, IdsAndSizes) {
  auto k = tack::kernel("wg_ids", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) {
      Value gid = g.global_id();
      out[gid] = g.local_id() + 1000 * g.group_id() + 1000000 * g.num_groups() + select(g.size() == 256, 0, 100000000) +
                 select(gid == g.group_id() * g.size() + g.local_id(), 0, 200000000);
    });
  });
  const std::int64_t groups = 3;
  TACK_REQUIRE_WORKGROUPS(k(zeros<std::int64_t>(dev(), groups * kGroup)));
  std::vector<std::int64_t> want;
  for (std::int64_t gr = 0; gr < groups; ++gr)
    for (std::int64_t l = 0; l < kGroup; ++l) want.push_back(l + 1000 * gr + 1000000 * groups);
  expect_exact(
      "local_id + 1000 group_id + 1e6 num_groups (+ errors if size != 256 or global_id is wrong)",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int64_t>(d, groups * kGroup);
        k(out);
        return out.to_host<std::int64_t>();
      },
      want);
}

TEST_P(Workgroups, SharedMemoryStartsZeroedAndIsSharedAcrossABarrier) {
  auto k = tack::kernel("wg_shared_reverse", [](Array out, Array x) {
    workgroup_for(x.size() / 256, [&](Group g) {
      SharedArray s = g.shared<std::int32_t>(256);
      Value lid = g.local_id(), gid = g.global_id();
      Value was = s[lid];  // zero: nothing written yet
      g.barrier();
      s[lid] = x[gid];
      g.barrier();
      out[gid] = s[255 - lid] + 1000000 * was;  // the group's data reversed
    });
  });
  const std::int64_t groups = 2;
  TACK_REQUIRE_WORKGROUPS(k(zeros<std::int32_t>(dev(), groups * kGroup), zeros<std::int32_t>(dev(), groups * kGroup)));
  std::vector<std::int32_t> x = block_data<std::int32_t>(groups * kGroup), want;
  for (std::int64_t gr = 0; gr < groups; ++gr)
    for (std::int64_t l = 0; l < kGroup; ++l) want.push_back(x[gr * kGroup + (kGroup - 1 - l)]);
  expect_exact(
      "shared memory: reversed within each group",
      [&](const tack::Device& d) { return run_unary<std::int32_t>(k, d, x); }, want);
}

// The classic tree reduction: halve the active work-items, a barrier after each step.
template <class T>
tack::Kernel block_sum_tree() {
  return tack::kernel("block_sum_tree", [](Array out, Array x) {
    workgroup_for(out.size(), [&](Group g) {
      SharedArray s = g.shared<T>(256);
      Value lid = g.local_id(), gid = g.global_id();
      Var v = cast<T>(0);
      if_(gid < x.size(), [&] { v = x[gid]; });  // the last group is partial
      s[lid] = v;
      g.barrier();
      for (int stride = 128; stride > 0; stride /= 2) {  // unrolled at trace time
        if_(lid < stride, [&] { s[lid] = s[lid] + s[lid + stride]; });
        g.barrier();
      }
      if_(lid == 0, [&] { out[g.group_id()] = s[0]; });
    });
  });
}

template <class T>
tack::Kernel block_sum_reduce() {
  return tack::kernel("block_sum_reduce_add", [](Array out, Array mins, Array maxs, Array x) {
    workgroup_for(out.size(), [&](Group g) {
      Value gid = g.global_id();
      Var v = cast<T>(0);
      Var lo = cast<T>(1000000);
      Var hi = cast<T>(-1000000);
      if_(gid < x.size(), [&] {
        v = x[gid];
        lo = x[gid];
        hi = x[gid];
      });
      Value total = g.reduce_add(v);
      Value smallest = g.reduce_min(lo);
      Value largest = g.reduce_max(hi);
      if_(g.local_id() == 0, [&] {
        out[g.group_id()] = total;
        mins[g.group_id()] = smallest;
        maxs[g.group_id()] = largest;
      });
    });
  });
}

TEST_P(Workgroups, BlockSumByTreeReduction) {
  auto run_type = [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    auto k = block_sum_tree<T>();
    const std::int64_t groups = 4, n = groups * kGroup - 100;
    TACK_REQUIRE_WORKGROUPS(k(zeros<T>(dev(), groups), zeros<T>(dev(), n)));
    std::vector<T> x = block_data<T>(n);
    expect_exact(
        "block sums (shared memory tree, barriers)",
        [&](const tack::Device& d) {
          tack::Array out = zeros<T>(d, groups);
          k(out, d.from_host(x));
          return out.to_host<T>();
        },
        host_block_sums(x, groups));
  };
  run_type.operator()<float>();
  run_type.operator()<std::int32_t>();
}

TEST_P(Workgroups, BlockSumMinMaxByGroupReductions) {
  auto run_type = [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    auto k = block_sum_reduce<T>();
    const std::int64_t groups = 4, n = groups * kGroup - 100;
    TACK_REQUIRE_WORKGROUPS(
        k(zeros<T>(dev(), groups), zeros<T>(dev(), groups), zeros<T>(dev(), groups), zeros<T>(dev(), n)));
    std::vector<T> x = block_data<T>(n);
    std::vector<T> want = host_block_sums(x, groups);
    for (std::int64_t gr = 0; gr < groups; ++gr) {  // partial groups: the padding is +-1e6, never the extreme
      auto first = x.begin() + gr * kGroup, last = x.begin() + std::min<std::int64_t>((gr + 1) * kGroup, n);
      want.push_back(*std::min_element(first, last));
    }
    for (std::int64_t gr = 0; gr < groups; ++gr) {
      auto first = x.begin() + gr * kGroup, last = x.begin() + std::min<std::int64_t>((gr + 1) * kGroup, n);
      want.push_back(*std::max_element(first, last));
    }
    expect_exact(
        "reduce_add, reduce_min, reduce_max per group",
        [&](const tack::Device& d) {
          tack::Array out = zeros<T>(d, groups), mins = zeros<T>(d, groups), maxs = zeros<T>(d, groups);
          k(out, mins, maxs, d.from_host(x));
          std::vector<T> r = out.to_host<T>();
          for (T v : mins.to_host<T>()) r.push_back(v);
          for (T v : maxs.to_host<T>()) r.push_back(v);
          return r;
        },
        want,
        [](std::size_t i) {
          static const char* what[] = {"sum", "min", "max"};
          return std::string(what[i / 4]) + " of group " + std::to_string(i % 4);
        });
  };
  run_type.operator()<float>();
  run_type.operator()<std::int32_t>();
}

// Atomics on shared memory: every work-item of a group increments one counter.
TEST_P(Workgroups, SharedMemoryAtomics) {
  auto k = tack::kernel("wg_shared_atomic", [](Array out) {
    workgroup_for(out.size(), [&](Group g) {
      SharedArray c = g.shared<std::int32_t>(2);
      atomic_add(c, 0, 1);
      atomic_max(c, 1, g.local_id());
      g.barrier();
      if_(g.local_id() == 0, [&] { out[g.group_id()] = c[0] * 1000 + c[1]; });
    });
  });
  TACK_REQUIRE_WORKGROUPS(k(zeros<std::int32_t>(dev(), 3)));
  if (!has_atomic<std::int32_t>()) return;
  expect_exact(
      "shared counter: 256 increments and the largest local id",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int32_t>(d, 3);
        k(out);
        return out.to_host<std::int32_t>();
      },
      std::vector<std::int32_t>{256255, 256255, 256255});
}

// 16 x 16 tiles of a matrix product in shared memory, two barriers per tile
// (tests/support/tiled_matmul.hpp): local_id / 16 is the same for 16
// neighbouring work-items and local_id % 16 steps by one, which the CPU's SIMD
// path turns into broadcasts and contiguous vectors. Small integers: exact.
TEST_P(Workgroups, TiledMatmulInSharedMemory) {
  auto k = tack_test::tiled_matmul("wg_matmul_tiles");
  const std::int64_t n = 48;
  TACK_REQUIRE_WORKGROUPS(k(zeros<float>(dev(), n * n), zeros<float>(dev(), n * n), zeros<float>(dev(), n * n), n));
  std::vector<float> a, b, want(static_cast<std::size_t>(n * n), 0.0f);
  for (std::int64_t i = 0; i < n * n; ++i) {
    a.push_back(static_cast<float>((i * 7) % 9 - 4));
    b.push_back(static_cast<float>((i * 5) % 7 - 3));
  }
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t kk = 0; kk < n; ++kk)
        want[static_cast<std::size_t>(i * n + j)] +=
            a[static_cast<std::size_t>(i * n + kk)] * b[static_cast<std::size_t>(kk * n + j)];
  expect_exact(
      "48 x 48 product by 16 x 16 tiles",
      [&](const tack::Device& d) {
        tack::Array out = zeros<float>(d, n * n);
        k(out, d.from_host(a), d.from_host(b), n);
        return out.to_host<float>();
      },
      want);
}

// Per-item values that live across barriers: a loaded Let (kept in a per-item
// array), values recomputed from local_id (lid >> 4, lid & 15), a Var updated in
// three regions, a loop with a per-item trip count, a break_ and a continue_
// between two barriers, and a store under a per-item if_.
TEST_P(Workgroups, PerItemValuesAndDivergentLoopsAcrossBarriers) {
  auto k = tack::kernel("wg_live_values", [](Array out, Array x) {
    workgroup_for(out.size() / 256, [&](Group g) {
      SharedArray s = g.shared<std::int32_t>(256);
      Value lid = g.local_id(), gid = g.global_id();
      Value hi = cast<std::int32_t>(lid >> 4), lo = cast<std::int32_t>(lid & 15);
      Value mine = x[gid];
      Var acc = mine * 2;
      s[lid] = mine;
      g.barrier();
      acc += s[255 - lid] + hi * 100;
      Var steps = 0, i = 0;
      while_([&] { return i < lo + hi; },
             [&] {
               i += 1;
               if_(i % 3 == 0, [&] { continue_(); });
               if_(steps > 6, [&] { break_(); });
               steps += 1;
             });
      g.barrier();
      s[lid] = steps;
      if_(lid % 3 == 0, [&] { s[lid] = steps + 500; });  // a store only some work-items make
      g.barrier();
      acc += s[(lid + 1) % 256] * 1000 + mine;
      out[gid] = acc + lo * 1000000;
    });
  });
  const std::int64_t groups = 3;
  TACK_REQUIRE_WORKGROUPS(k(zeros<std::int32_t>(dev(), groups * kGroup), zeros<std::int32_t>(dev(), groups * kGroup)));
  std::vector<std::int32_t> x = block_data<std::int32_t>(groups * kGroup), want;
  auto steps_of = [](std::int64_t l) {
    std::int32_t steps = 0;
    for (std::int64_t i = 1; i <= (l & 15) + (l >> 4); ++i) {
      if (i % 3 == 0) continue;
      if (steps > 6) break;
      ++steps;
    }
    return steps;
  };
  for (std::int64_t gr = 0; gr < groups; ++gr)
    for (std::int64_t l = 0; l < kGroup; ++l) {
      std::int32_t mine = x[static_cast<std::size_t>(gr * kGroup + l)];
      std::int32_t acc =
          mine * 2 + x[static_cast<std::size_t>(gr * kGroup + 255 - l)] + static_cast<std::int32_t>(l >> 4) * 100;
      const std::int64_t next = (l + 1) % 256;
      acc += (steps_of(next) + (next % 3 == 0 ? 500 : 0)) * 1000 + mine;
      want.push_back(acc + static_cast<std::int32_t>(l & 15) * 1000000);
    }
  expect_exact(
      "values carried across barriers, divergent loops between them",
      [&](const tack::Device& d) { return run_unary<std::int32_t>(k, d, x); }, want);
}

// Atomics on shared memory whose old values are used: each of four counters is
// incremented by 64 work-items, so their old values are 0..63 in some order and
// sum to 4 * 2016 over the group, whatever the order.
TEST_P(Workgroups, SharedAtomicResultsIntoAGroupReduction) {
  auto k = tack::kernel("wg_atomic_results", [](Array out) {
    workgroup_for(out.size(), [&](Group g) {
      SharedArray c = g.shared<std::int32_t>(4);
      Value old = atomic_add(c, g.local_id() % 4, 1);
      Value total = g.reduce_add(old);
      g.barrier();
      if_(g.local_id() == 0, [&] { out[g.group_id()] = total * 10 + c[3] - 64; });
    });
  });
  TACK_REQUIRE_WORKGROUPS(k(zeros<std::int32_t>(dev(), 2)));
  if (!has_atomic<std::int32_t>()) return;
  expect_exact(
      "sum of the old values of four shared counters",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int32_t>(d, 2);
        k(out);
        return out.to_host<std::int32_t>();
      },
      std::vector<std::int32_t>{80640, 80640});
}

}  // namespace
