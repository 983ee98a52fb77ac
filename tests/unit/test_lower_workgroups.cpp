// passes::lower_workgroups: the shape of the loops it makes (a work-item loop per
// barrier-free region, uniform loops with barriers kept outside them, shared
// arrays only for per-item values live across a barrier), and the CPU results it
// gives, bit for bit those of the interpreter, whose lock-step order it follows.
#include "ir/check.hpp"
#include "ir/printer.hpp"
#include "ir/verify.hpp"
#include "ir/visitor.hpp"
#include "passes/lower_workgroups.hpp"
#include "runtime/kernels/resolve_variant.hpp"
#include "support/tiled_matmul.hpp"

#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace tack::lang;

namespace {

namespace ir = tack::ir;
constexpr std::int64_t kGroup = 256;

// The optimized IR of the first call `call` makes (it must need a new variant).
ir::Kernel optimized_ir(const std::function<void()>& call) {
  ir::Kernel got;
  bool seen = false;
  tack::runtime::set_specialize_observer([&](const ir::Kernel& k) {
    got = k;
    seen = true;
  });
  call();
  tack::runtime::set_specialize_observer({});
  EXPECT_TRUE(seen) << "the call did not specialize a new variant";
  return got;
}

// A work-item loop made by the pass: for t in [0, 256) with a Let the input did not have.
bool is_region(const ir::Stmt& s, const ir::Kernel& in) {
  auto f = s.as<ir::For>();
  if (!f || static_cast<std::size_t>(f->index) < in.lets.size()) return false;
  auto lo = f->lo.as<ir::Const>(), hi = f->hi.as<ir::Const>();
  return lo && hi && lo->i == 0 && hi->i == kGroup;
}

int count_regions(const ir::Stmt& s, const ir::Kernel& in) {
  int n = 0;
  ir::for_each_stmt(s, [&](const ir::Stmt& c) { n += is_region(c, in); });
  return n;
}

// Regions directly in a block (not nested in other control flow).
std::vector<ir::Stmt> top_regions(const ir::Stmt& block, const ir::Kernel& in) {
  std::vector<ir::Stmt> out;
  if (auto b = block.as<ir::Block>())
    for (const ir::Stmt& s : b->stmts)
      if (is_region(s, in)) out.push_back(s);
  return out;
}

// No collective and no group value is left, and the result verifies.
void expect_lowered(const ir::Kernel& in, const ir::Kernel& out) {
  std::string why;
  EXPECT_TRUE(ir::verify_ok(out, &why)) << why;
  bool left = false;
  ir::for_each_stmt(out.body, [&](const ir::Stmt& s) {
    left |= s->kind == ir::StmtKind::Barrier || s->kind == ir::StmtKind::GroupReduce;
  });
  std::string text = ir::to_string(out);
  EXPECT_FALSE(left) << text;
  EXPECT_EQ(text.find("local_id"), std::string::npos) << text;
  EXPECT_EQ(text.find("group_id"), std::string::npos) << text;
  EXPECT_EQ(in.dims.size(), out.dims.size());
  // Deterministic: the same input lowers to the same text (the disk cache keys on it).
  EXPECT_EQ(text, ir::to_string(tack::passes::lower_workgroups(in)));
}

template <class T>
void expect_same_bits(const std::vector<T>& cpu, const std::vector<T>& interp, const char* what) {
  ASSERT_EQ(cpu.size(), interp.size()) << what;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    if (std::memcmp(&cpu[i], &interp[i], sizeof(T)) != 0) {
      ADD_FAILURE() << what << ": element " << i << " is " << +cpu[i] << " on the cpu, " << +interp[i]
                    << " on the interpreter";
      return;
    }
  }
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

tack::Device cpu() { return tack::device("cpu"); }
tack::Device interp() { return tack::device("interp"); }

// ---- a block reduction ----------------------------------------------------------------

tack::Kernel block_reduce() {
  return tack::kernel("lw_block_reduce", [](Array out, Array x) {
    workgroup_for(out.size(), [&](Group g) {
      Value gid = g.global_id();
      Var v = 0.0f;
      if_(gid < x.size(), [&] { v = x[gid]; });
      Value total = g.reduce_add(v);
      if_(g.local_id() == 0, [&] { out[g.group_id()] = total; });
    });
  });
}

TEST(LowerWorkgroups, BlockReductionIsTwoRegionsAndASerialFold) {
  auto k = block_reduce();
  const std::int64_t groups = 5, n = groups * kGroup - 37;
  std::vector<float> x = random_floats(static_cast<std::size_t>(n), 1);
  ir::Kernel in = optimized_ir([&] { k(interp().zeros(tack::DType::F32, {groups}), interp().from_host(x)); });
  ir::Kernel out = tack::passes::lower_workgroups(in);
  expect_lowered(in, out);
  // Region 1 computes v and feeds the scratch array; the fold is uniform; region 2 stores.
  EXPECT_EQ(top_regions(out.body, in).size(), 2u) << ir::to_string(out);
  ASSERT_EQ(out.shared.size(), 1u) << "only the reduction's scratch array: v never crosses a barrier";
  EXPECT_EQ(out.shared[0].dtype, tack::DType::F32);
  EXPECT_EQ(out.shared[0].count, kGroup);

  // Non-integer data: only the same order of additions gives the same bits.
  auto run = [&](const tack::Device& d) {
    tack::Array o = d.zeros(tack::DType::F32, {groups});
    k(o, d.from_host(x));
    return o.to_host<float>();
  };
  expect_same_bits(run(cpu()), run(interp()), "block sums");
}

// ---- a tiled matrix multiply --------------------------------------------------------------

tack::Kernel plain_matmul() {
  return tack::kernel("lw_plain_matmul", [](Array c, Array a, Array b, Scalar n) {
    parallel_for({n, n}, [&](Index i, Index j) {
      Var acc = 0.0f;
      for_range(0, n, [&](Index k) { acc += a[i * n + k] * b[k * n + j]; });
      c[i * n + j] = acc;
    });
  });
}

TEST(LowerWorkgroups, TiledMatmulKeepsTheTileLoopOutsideTheWorkItemLoops) {
  auto k = tack_test::tiled_matmul("lw_tiled_matmul");
  const std::int64_t n = 64;
  // Small integers: every product and sum is exact, whatever the order or contraction.
  std::vector<float> a(n * n), b(n * n);
  for (std::int64_t i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>((i * 7) % 9 - 4);
    b[i] = static_cast<float>((i * 5) % 7 - 3);
  }
  ir::Kernel in = optimized_ir(
      [&] { k(interp().zeros(tack::DType::F32, {n * n}), interp().from_host(a), interp().from_host(b), n); });
  ir::Kernel out = tack::passes::lower_workgroups(in);
  expect_lowered(in, out);
  // Top level: a region before the tile loop (acc = 0), the tile loop, a region after it.
  auto body = out.body.as<ir::Block>();
  ASSERT_TRUE(body);
  const ir::For* tile_loop = nullptr;
  for (const ir::Stmt& s : body->stmts) {
    if (auto f = s.as<ir::For>(); f && !is_region(s, in)) tile_loop = f;
  }
  ASSERT_TRUE(tile_loop) << ir::to_string(out);
  EXPECT_EQ(top_regions(tile_loop->body, in).size(), 2u) << "loads to shared | barrier | multiply-add\n"
                                                         << ir::to_string(out);
  EXPECT_EQ(count_regions(tile_loop->body, in), 2) << ir::to_string(out);
  // The user's shared arrays, and one for acc, the only per-item value live across a
  // barrier: tx, ty, row and col are recomputed from the work-item index.
  ASSERT_EQ(out.shared.size(), 3u) << ir::to_string(out);
  EXPECT_EQ(out.shared[2].count, kGroup);

  auto run = [&](const tack::Device& d) {
    tack::Array c = d.zeros(tack::DType::F32, {n * n});
    k(c, d.from_host(a), d.from_host(b), n);
    return c.to_host<float>();
  };
  std::vector<float> on_cpu = run(cpu());
  expect_same_bits(on_cpu, run(interp()), "tiled matmul");
  tack::Array c = cpu().zeros(tack::DType::F32, {n * n});
  plain_matmul()(c, cpu().from_host(a), cpu().from_host(b), n);
  expect_same_bits(on_cpu, c.to_host<float>(), "tiled against plain matmul");
}

// ---- a value across two barriers ----------------------------------------------------------

TEST(LowerWorkgroups, ValueAcrossTwoBarriersIsSpilledOnce) {
  auto k = tack::kernel("lw_two_barriers", [](Array out, Array sums, Array x) {
    workgroup_for(sums.size(), [&](Group g) {
      SharedArray s = g.shared<float>(256);
      Value lid = g.local_id(), gid = g.global_id();
      Value v = x[gid];  // a load: per item, and live across both barriers
      Value local = v * 2.0f;
      s[lid] = local;  // used in its own region only
      g.barrier();
      Value u = s[255 - lid];  // live across one barrier
      g.barrier();
      s[lid] = u + 1.0f;
      Value total = g.reduce_add(v * s[lid]);
      out[gid] = v + total;
    });
  });
  const std::int64_t groups = 3;
  std::vector<float> x = random_floats(static_cast<std::size_t>(groups * kGroup), 2);
  ir::Kernel in = optimized_ir([&] {
    k(interp().zeros(tack::DType::F32, {groups * kGroup}), interp().zeros(tack::DType::F32, {groups}),
      interp().from_host(x));
  });
  ir::Kernel out = tack::passes::lower_workgroups(in);
  expect_lowered(in, out);
  // s, the reduction's scratch array, and one spill each for v and u (not for local).
  ASSERT_EQ(out.shared.size(), 4u) << ir::to_string(out);
  std::vector<int> stores(out.shared.size(), 0);
  ir::for_each_stmt(out.body, [&](const ir::Stmt& st) {
    auto store = st.as<ir::Store>();
    if (store && store->array.space == ir::ArrayRef::Space::Shared) ++stores[store->array.index];
  });
  for (std::size_t i = 1; i < stores.size(); ++i)
    EXPECT_EQ(stores[i], 1) << "shared" << i << " is written once, where its value is defined\n" << ir::to_string(out);

  auto run = [&](const tack::Device& d) {
    tack::Array o = d.zeros(tack::DType::F32, {groups * kGroup});
    k(o, d.zeros(tack::DType::F32, {groups}), d.from_host(x));
    return o.to_host<float>();
  };
  expect_same_bits(run(cpu()), run(interp()), "v + sum(v * s)");
}

// ---- shared arrays of several dtypes -------------------------------------------------------

TEST(LowerWorkgroups, SharedArraysOfSeveralDtypes) {
  auto k = tack::kernel("lw_shared_dtypes", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) {
      SharedArray s8 = g.shared<std::int8_t>(256), s16 = g.shared<std::uint16_t>(300),
                  s64 = g.shared<std::int64_t>(256), sd = g.shared<double>(256), sf = g.shared<float>(7);
      Value lid = g.local_id();
      Value fresh = s16[lid + 44];  // zero: every group starts with zeroed shared memory
      g.barrier();
      s8[lid] = cast<std::int8_t>(lid - 128 + g.group_id());
      s16[lid] = cast<std::uint16_t>(lid * 257);
      s64[lid] = lid * std::int64_t{1000000000001} - g.group_id();
      sd[lid] = cast<double>(lid) * 0.1;
      if_(lid < 7, [&] { sf[lid] = cast<float>(lid) / 3.0f; });
      g.barrier();
      Value r = 255 - lid;
      out[g.global_id()] = cast<double>(s8[r]) + cast<double>(s16[r]) * 1e3 + cast<double>(s64[r]) + sd[r] +
                           cast<double>(sf[lid % 7]) + cast<double>(fresh) * 1e6;
      g.barrier();
      s16[lid + 44] = 1;  // dirty for the next group
    });
  });
  const std::int64_t groups = 3;
  auto run = [&](const tack::Device& d) {
    tack::Array o = d.zeros(tack::DType::F64, {groups * kGroup});
    k(o);
    return o.to_host<double>();
  };
  std::vector<double> on_cpu = run(cpu());
  expect_same_bits(on_cpu, run(interp()), "shared i8, u16, i64, f64, f32");
  EXPECT_NE(on_cpu[5], 0.0);
}

// ---- group min and max with NaNs ----------------------------------------------------------

template <class T>
void min_max_with_nans() {
  auto k = tack::kernel("lw_min_max_nan", [](Array mins, Array maxs, Array x) {
    workgroup_for(mins.size(), [&](Group g) {
      Value v = x[g.global_id()];
      Value lo = g.reduce_min(v), hi = g.reduce_max(v);
      if_(g.local_id() == 3, [&] {
        mins[g.group_id()] = lo;
        maxs[g.group_id()] = hi;
      });
    });
  });
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const std::int64_t groups = 5;
  std::vector<T> x(static_cast<std::size_t>(groups * kGroup));
  std::mt19937 rng(3);
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::int64_t g = static_cast<std::int64_t>(i) / kGroup, l = static_cast<std::int64_t>(i) % kGroup;
    switch (g) {
      case 0: x[i] = (rng() % 5 == 0) ? nan : static_cast<T>(static_cast<int>(rng() % 2001) - 1000) / T(7); break;
      case 1: x[i] = nan; break;                                        // all NaN: NaN
      case 2: x[i] = l == 0 ? nan : (l % 2 ? T(-0.0) : T(0.0)); break;  // NaN first, then signed zeros
      case 3: x[i] = l % 2 ? T(0.0) : T(-0.0); break;
      default: x[i] = l == 255 ? -inf : (l == 17 ? inf : nan); break;
    }
  }
  auto run = [&](const tack::Device& d) {
    tack::Array lo = d.zeros(tack::dtype_of<T>, {groups}), hi = d.zeros(tack::dtype_of<T>, {groups});
    k(lo, hi, d.from_host(x));
    std::vector<T> r = lo.to_host<T>();
    for (T v : hi.to_host<T>()) r.push_back(v);
    return r;
  };
  std::vector<T> on_cpu = run(cpu()), on_interp = run(interp());
  expect_same_bits(on_cpu, on_interp, "group min and max");
  EXPECT_TRUE(std::isnan(on_cpu[1])) << "a group of NaNs has a NaN minimum";
  EXPECT_EQ(on_cpu[4], -inf);
  EXPECT_EQ(on_cpu[groups + 4], inf);
}

TEST(LowerWorkgroups, GroupMinMaxWithNaNsMatchTheInterpreter) {
  min_max_with_nans<float>();
  min_max_with_nans<double>();
}

// ---- control flow ----------------------------------------------------------------------------

// A while_ loop on a uniform Var and an if_ on the group id may hold barriers; a user loop
// with a per-item break and no barrier stays inside its region.
TEST(LowerWorkgroups, UniformControlFlowAndPerItemBreaks) {
  auto k = tack::kernel("lw_uniform_flow", [](Array out, Scalar rounds) {
    workgroup_for(out.size() / 256, [&](Group g) {
      SharedArray s = g.shared<std::int32_t>(256);
      Value lid = g.local_id();
      s[lid] = cast<std::int32_t>(lid);
      Var round = 0;
      while_([&] { return round < rounds; },
             [&] {
               g.barrier();
               Value left = s[(lid + 255) % 256];
               g.barrier();
               Var steps = 0;
               for_range(0, 100, [&](Index i) {  // per item: breaks after lid % 5 + round steps
                 if_(i >= lid % 5 + round, [&] { break_(); });
                 steps += 1;
               });
               s[lid] = left + steps;
               if_(g.group_id() == 1, [&] { g.barrier(); });
               round = round + 1;
             });
      g.barrier();
      out[g.global_id()] = s[lid] + 1000 * round;
    });
  });
  const std::int64_t groups = 2;
  ir::Kernel in = optimized_ir([&] { k(interp().zeros(tack::DType::I32, {groups * kGroup}), 3); });
  ir::Kernel out = tack::passes::lower_workgroups(in);
  expect_lowered(in, out);
  // The while_ loop is outside every region loop, and the per-item for_range inside one.
  bool loop_in_region = false, loop_at_top = false;
  for (const ir::Stmt& s : out.body.as<ir::Block>()->stmts) {
    if (s->kind == ir::StmtKind::Loop) loop_at_top = true;
    if (is_region(s, in))
      ir::for_each_stmt(s, [&](const ir::Stmt& c) { loop_in_region |= c->kind == ir::StmtKind::Loop; });
  }
  EXPECT_TRUE(loop_at_top) << ir::to_string(out);
  EXPECT_FALSE(loop_in_region) << ir::to_string(out);

  auto run = [&](const tack::Device& d) {
    tack::Array o = d.zeros(tack::DType::I32, {groups * kGroup});
    k(o, 3);
    return o.to_host<std::int32_t>();
  };
  expect_same_bits(run(cpu()), run(interp()), "uniform loops with barriers");
}

// A barrier, reduction or break the work-items may reach differently is refused at the call.
TEST(LowerWorkgroups, BarrierInDivergentControlFlowIsRefused) {
  auto in_if = tack::kernel("lw_divergent_if", [](Array out) {
    workgroup_for(1, [&](Group g) {
      if_(g.local_id() < 10, [&] { g.barrier(); });
      out[g.local_id()] = 1;
    });
  });
  auto in_for = tack::kernel("lw_divergent_for", [](Array out) {
    workgroup_for(
        1, [&](Group g) { for_range(0, g.local_id() % 3, [&](Index) { out[g.local_id()] = g.reduce_add(1); }); });
  });
  auto by_load = tack::kernel("lw_divergent_break", [](Array out) {
    workgroup_for(1, [&](Group g) {
      for_range(0, 4, [&](Index) {
        g.barrier();
        if_(out[g.local_id()] > 0, [&] { break_(); });
      });
    });
  });
  struct Case {
    tack::Kernel k;
    const char* what;
  } cases[] = {{in_if, "a barrier inside control flow that depends on the work-item"},
               {in_for, "a group reduce_add inside control flow that depends on the work-item"},
               {by_load, "a break_ inside control flow that depends on the work-item"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.k.name());
    tack::Array out = cpu().zeros(tack::DType::I32, {kGroup});
    try {
      c.k(out);
      ADD_FAILURE() << "not refused";
    } catch (const tack::InvalidArgument& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find("kernel '" + c.k.name() + "'"), std::string::npos) << msg;
      EXPECT_NE(msg.find(c.what), std::string::npos) << msg;
      EXPECT_NE(msg.find("test_lower_workgroups.cpp:"), std::string::npos) << msg;
    }
  }
}

}  // namespace
