// The CPU's SIMD path decisions: the lane uniformity analysis
// (src/analysis/lane_uniformity) on traced kernels, the choice of path and
// gang width (src/analysis/simd_plan), and tack::inspect saying which was
// chosen. Whether the generated code is right is the conformance suite's
// business (conformance/divergence.cpp and every other suite, on both paths).
#include "analysis/lane_uniformity.hpp"
#include "analysis/simd_plan.hpp"
#include "ir/printer.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"
#include "passes/lower_workgroups.hpp"
#include "support/typed_kernel.hpp"

#include "../../examples/local_sort/local_sort_kernel.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

using namespace tack::lang;

namespace {

namespace ir = tack::ir;
using tack::DType;
using tack::analysis::LaneUniformity;

using tack_test::typed_kernel;  // parameters as {dtype, rank}: rank 0 for scalars

// The statements of kind T in program order.
template <class T>
std::vector<const T*> all(const ir::Kernel& k) {
  std::vector<const T*> out;
  ir::for_each_stmt(k.body, [&](const ir::Stmt& s) {
    if (auto n = s.as<T>()) out.push_back(n);
  });
  return out;
}

TEST(CpuSimd, UniformValuesStayUniform) {
  auto k = tack::kernel("uniformity", [](Array out, Array a, Scalar n) {
    parallel_for(out.size(), [&](Index i) {
      Value mine = a[i];   // varying: a load at the parallel index
      Value first = a[0];  // uniform: every lane reads the same element
      Var twice = n * 2;   // uniform
      Var sum = 0;
      for_range(0, n, [&](Index r) { sum += r; });  // a uniform loop: sum stays uniform
      Var own = 0;
      if_(mine > 0, [&] { own = 1; });  // assigned under a varying condition: varying
      out[i] = mine + first + twice + sum + own;
    });
  });
  ir::Kernel t = typed_kernel(k, {{DType::I32, 1}, {DType::I32, 1}, {DType::I32, 0}});
  LaneUniformity lanes(t);
  int varying_loads = 0, uniform_loads = 0;
  for (const ir::Let* let : all<ir::Let>(t)) {
    auto load = let->value.as<ir::Load>();
    if (!load) continue;
    (lanes.let_varying(let->id) ? varying_loads : uniform_loads) += 1;
    EXPECT_EQ(lanes.let_varying(let->id), lanes.varying(load->index));
  }
  EXPECT_EQ(varying_loads, 1);
  EXPECT_EQ(uniform_loads, 1);
  std::vector<const ir::DeclareVar*> vars = all<ir::DeclareVar>(t);
  ASSERT_EQ(vars.size(), 3u);
  EXPECT_FALSE(lanes.var_varying(vars[0]->id));  // twice
  EXPECT_FALSE(lanes.var_varying(vars[1]->id));  // sum
  EXPECT_TRUE(lanes.var_varying(vars[2]->id));   // own
  for (const ir::For* f : all<ir::For>(t)) EXPECT_FALSE(lanes.divergent_loop(f));
  for (const ir::If* f : all<ir::If>(t)) EXPECT_TRUE(lanes.varying_if(f));
}

TEST(CpuSimd, LoopsWithVaryingExitsOrBoundsAreDivergent) {
  auto k = tack::kernel("divergent_loops", [](Array out, Array a, Scalar n) {
    parallel_for(out.size(), [&](Index i) {
      Var s = 0;
      for_range(0, a[i], [&](Index r) { s += r; });  // varying bounds
      for_range(0, n, [&](Index r) {                 // uniform bounds, varying break
        if_(s > r * 3, [&] { break_(); });
        s += 1;
      });
      for_range(0, n, [&](Index r) {  // uniform bounds, uniform break: lanes stay together
        if_(r > 5, [&] { break_(); });
        s += 2;
      });
      out[i] = s;
    });
  });
  ir::Kernel t = typed_kernel(k, {{DType::I32, 1}, {DType::I32, 1}, {DType::I32, 0}});
  LaneUniformity lanes(t);
  std::vector<const ir::For*> loops = all<ir::For>(t);
  ASSERT_EQ(loops.size(), 3u);
  EXPECT_TRUE(lanes.divergent_loop(loops[0]));
  EXPECT_TRUE(lanes.let_varying(loops[0]->index));
  EXPECT_TRUE(lanes.divergent_loop(loops[1]));
  EXPECT_FALSE(lanes.let_varying(loops[1]->index));
  EXPECT_FALSE(lanes.divergent_loop(loops[2]));
}

// Mandelbrot's shape: Vars read only inside the divergent loop are assigned without a mask; the count read
// after it, a Var of a loop with continue_, and one assigned under a varying if_ keep theirs.
TEST(CpuSimd, OnlyAssignsWhoseOtherLanesMatterAreMasked) {
  auto k = tack::kernel("masking", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) {
      Var x = cast<float>(i) * 0.001f, it = 0;
      while_([&] { return it < a[0]; },
             [&] {
               x = x * x + 0.25f;  // varying, read only inside the loop
               if_(x > 2.0f, [&] { break_(); });
               it += 1;  // read after the loop
             });
      Var y = 0.0f, n = 0;
      while_([&] { return n < 9; },
             [&] {
               n += 1;
               if_(cast<float>(i) > cast<float>(n), [&] { continue_(); });
               y = y + 1.0f;  // a lane that continued comes back to it
             });
      Var z = 0.0f;
      if_(i % 2 == 0, [&] { z = 1.0f; });
      out[i] = cast<float>(it) + y + z;
    });
  });
  ir::Kernel t = typed_kernel(k, {{DType::F32, 1}, {DType::I32, 1}});
  LaneUniformity lanes(t);
  std::vector<const ir::DeclareVar*> vars = all<ir::DeclareVar>(t);
  ASSERT_EQ(vars.size(), 5u);
  auto masked = [&](const ir::DeclareVar* v) {
    bool any = false;
    for (const ir::Assign* a : all<ir::Assign>(t))
      if (a->id == v->id) any = any || lanes.assign_masked(a);
    return any;
  };
  EXPECT_FALSE(masked(vars[0]));  // x
  EXPECT_TRUE(masked(vars[1]));   // it
  EXPECT_TRUE(masked(vars[2]));   // y
  EXPECT_TRUE(masked(vars[4]));   // z
}

TEST(CpuSimd, PlanFillsOneRegisterWithTheWidestVaryingValue) {
  auto saxpy = tack::kernel("plan_saxpy", [](Array y, Array x, Scalar a) {
    parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
  using tack::analysis::plan_simd;
  EXPECT_EQ(plan_simd(typed_kernel(saxpy, {{DType::F32, 1}, {DType::F32, 1}, {DType::F32, 0}}), 512, true).lanes, 16u);
  EXPECT_EQ(plan_simd(typed_kernel(saxpy, {{DType::F64, 1}, {DType::F64, 1}, {DType::F64, 0}}), 512, true).lanes, 8u);
  EXPECT_EQ(plan_simd(typed_kernel(saxpy, {{DType::F32, 1}, {DType::F32, 1}, {DType::F32, 0}}), 256, true).lanes, 8u);
  // Narrower values count as 32 bits (a branch keeps an i8 kernel off the scalar path that a straight-line one
  // takes: NarrowStraightLineIntegerKernelsTakeTheScalarPath).
  auto clamp = tack::kernel("plan_clamp", [](Array y, Array x, Scalar a) {
    parallel_for(y.size(), [&](Index i) { if_(x[i] > a, [&] { y[i] = a * x[i]; }); });
  });
  EXPECT_EQ(plan_simd(typed_kernel(clamp, {{DType::I8, 1}, {DType::I8, 1}, {DType::I8, 0}}), 512, true).lanes, 16u);
  // 64-bit integers are indices (most fold into scalar addresses): they do not halve the gang.
  EXPECT_EQ(plan_simd(typed_kernel(saxpy, {{DType::I64, 1}, {DType::I64, 1}, {DType::I64, 0}}), 512, true).lanes, 16u);
  tack::analysis::SimdPlan off =
      plan_simd(typed_kernel(saxpy, {{DType::F32, 1}, {DType::F32, 1}, {DType::F32, 0}}), 512, false);
  EXPECT_EQ(off.lanes, 0u);
  EXPECT_NE(off.why.find("TACK_CPU_SIMD=0"), std::string::npos) << off.why;

  // A workgroup kernel, lowered to work-item loops, runs them as gangs too.
  auto group = tack::kernel("plan_group", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) { out[g.global_id()] = g.local_id(); });
  });
  ir::Kernel lowered = tack::passes::lower_workgroups(typed_kernel(group, {{DType::I64, 1}}));
  tack::analysis::SimdPlan wg = plan_simd(lowered, 512, true);
  EXPECT_EQ(wg.lanes, 16u);
  EXPECT_EQ(wg.why.rfind("SIMD path: gangs of 16", 0), 0u) << wg.why;
}

// A local array indexed per work-item inside a loop the lanes leave at different
// iterations (an insertion sort) takes the scalar path; the same array indexed
// by a uniform loop, or per work-item outside such a loop, stays in gangs.
TEST(CpuSimd, LocalArraysInDivergentLoopsKeepTheScalarPath) {
  using tack::analysis::plan_simd;
  const tack::Kernel sort = local_sort::sort16_kernel();
  tack::analysis::SimdPlan plan = plan_simd(typed_kernel(sort, {{DType::F32, 2}, {DType::F32, 2}}), 512, true);
  EXPECT_EQ(plan.lanes, 0u);
  EXPECT_NE(plan.why.find("a local array is indexed per work-item inside a loop"), std::string::npos) << plan.why;

  auto uniform = tack::kernel("plan_local_uniform", [](Array out, Array in) {
    parallel_for(out.shape(0), [&](Index i) {
      LocalArray a = local_array<float>(8);
      for_range(0, 8, [&](Index k) { a[k] = in(i, k); });
      Value pick = cast<std::int64_t>(in(i, 0)) & 7;  // a varying index, but in no loop
      out(i, 0) = a[pick];
      Var n = 0;
      while_([&] { return n < 3; },  // a uniform loop
             [&] {
               a[n] = a[n] + 1.0f;
               n += 1;
             });
      out(i, 1) = a[2];
    });
  });
  EXPECT_EQ(plan_simd(typed_kernel(uniform, {{DType::F32, 2}, {DType::F32, 2}}), 512, true).lanes, 16u);
}

// A straight-line integer kernel over byte or 16-bit arrays (an image filter) takes the scalar path, whose loop
// vectorizer packs 32 bytes a vector where a gang holds 8 lanes of 32-bit values; the same body over i32 arrays,
// with a loop, with a branch or with a float value keeps the gangs.
TEST(CpuSimd, NarrowStraightLineIntegerKernelsTakeTheScalarPath) {
  using tack::analysis::plan_simd;
  auto blur = tack::kernel("plan_blur", [](Array out, Array in) {
    parallel_for({in.shape(0) - 2, in.shape(1) - 2}, [&](Index i, Index j) {
      Value s =
          cast<std::int32_t>(in(i, j)) + cast<std::int32_t>(in(i + 1, j + 1)) + cast<std::int32_t>(in(i + 2, j + 2));
      out(i + 1, j + 1) = cast<std::uint8_t>((s + 1) / 3);
    });
  });
  for (DType t : {DType::U8, DType::I8, DType::U16, DType::I16}) {
    const tack::analysis::SimdPlan plan = plan_simd(typed_kernel(blur, {{t, 2}, {t, 2}}), 256, true);
    EXPECT_EQ(plan.lanes, 0u) << tack::dtype_name(t);
    EXPECT_NE(plan.why.find("a straight-line integer kernel over 8- and 16-bit arrays"), std::string::npos) << plan.why;
  }
  EXPECT_EQ(plan_simd(typed_kernel(blur, {{DType::U8, 2}, {DType::I32, 2}}), 256, true).lanes, 8u)
      << "an i32 array: gangs";
  EXPECT_EQ(plan_simd(typed_kernel(blur, {{DType::I32, 2}, {DType::I32, 2}}), 256, true).lanes, 8u);

  auto looped = tack::kernel("plan_narrow_loop", [](Array out, Array in) {
    parallel_for(out.size(), [&](Index i) {
      Var s = 0;
      for_range(0, 4, [&](Index k) { s = s + cast<std::int32_t>(in[i * 4 + k]); });
      out[i] = cast<std::uint8_t>(s);
    });
  });
  auto branched = tack::kernel("plan_narrow_branch", [](Array out, Array in) {
    parallel_for(out.size(), [&](Index i) { if_(in[i] > 7, [&] { out[i] = in[i]; }); });
  });
  auto scaled = tack::kernel("plan_narrow_float", [](Array out, Array in) {
    parallel_for(out.size(), [&](Index i) { out[i] = cast<std::uint8_t>(cast<float>(in[i]) * 0.5f); });
  });
  for (const tack::Kernel* k : {&looped, &branched, &scaled})
    EXPECT_EQ(plan_simd(typed_kernel(*k, {{DType::U8, 1}, {DType::U8, 1}}), 256, true).lanes, 8u) << k->name();
}

// A work-item walking its own row (an index one apart from iteration to iteration of a for_range, not from
// work-item to work-item) takes the scalar path, which runs along the row; a loop whose lanes read one column
// (contiguous across the gang), a row index that is not the loop's plus a constant, or a row read at a gathered
// offset keeps the gangs.
TEST(CpuSimd, WorkItemsWalkingTheirOwnRowsTakeTheScalarPath) {
  using tack::analysis::plan_simd;
  auto row_sum = tack::kernel("plan_row_sum", [](Array y, Array x) {
    Value cols = x.shape(1);
    parallel_for(x.shape(0), [&](Index r) {
      Value row = r * cols;
      Var s = 0.0f;
      for_range(0, cols, [&](Index j) { s = s + x[row + j]; });
      y[r] = s;
    });
  });
  auto backwards = tack::kernel("plan_row_backwards", [](Array y, Array x) {
    parallel_for(x.shape(0), [&](Index r) {
      for_range(0, x.shape(1), [&](Index j) { y(r, x.shape(1) - 1 - j) = x(r, j) * 2.0f; });
    });
  });
  const std::vector<tack::passes::ParamType> f32_1_2 = {{DType::F32, 1}, {DType::F32, 2}};
  for (const auto& [k, types] : {std::pair{&row_sum, f32_1_2}, {&backwards, {{DType::F32, 2}, {DType::F32, 2}}}}) {
    const tack::analysis::SimdPlan plan = plan_simd(typed_kernel(*k, types), 256, true);
    EXPECT_EQ(plan.lanes, 0u) << k->name();
    EXPECT_NE(plan.why.find("each work-item walks its own row"), std::string::npos) << plan.why;
  }

  auto column_sum = tack::kernel("plan_column_sum", [](Array y, Array x) {
    parallel_for(x.shape(1), [&](Index c) {
      Var s = 0.0f;
      for_range(0, x.shape(0), [&](Index i) { s = s + x(i, c); });  // lanes read one row's neighbours
      y[c] = s;
    });
  });
  auto strided = tack::kernel("plan_row_stride2", [](Array y, Array x) {
    Value cols = x.shape(1);
    parallel_for(y.size(), [&](Index r) {
      Var s = 0.0f;
      for_range(0, cols / 2, [&](Index j) { s = s + x[r * cols + 2 * j]; });  // two apart: not a row walk
      y[r] = s;
    });
  });
  auto gathered = tack::kernel("plan_row_gathered", [](Array y, Array x, Array offsets) {
    parallel_for(y.size(), [&](Index r) {
      Var s = 0.0f;
      for_range(0, 8, [&](Index k) { s = s + x[r * 64 + offsets[k]]; });  // the offset is a load
      y[r] = s;
    });
  });
  EXPECT_EQ(plan_simd(typed_kernel(column_sum, f32_1_2), 256, true).lanes, 8u);
  EXPECT_EQ(plan_simd(typed_kernel(strided, f32_1_2), 256, true).lanes, 8u);
  EXPECT_EQ(plan_simd(typed_kernel(gathered, {{DType::F32, 1}, {DType::F32, 1}, {DType::I64, 1}}), 256, true).lanes,
            8u);
  // A short row of constant length (a small vector's components): gangs; one more trip makes it a row walk.
  auto short_row = [](std::int64_t n) {
    return tack::kernel("plan_short_row_" + std::to_string(n), [n](Array y, Array x) {
      parallel_for(y.size(), [&](Index r) {
        Var s = 0.0f;
        for_range(0, n, [&](Index j) { s = s + x[r * n + j]; });
        y[r] = s;
      });
    });
  };
  EXPECT_EQ(plan_simd(typed_kernel(short_row(16), f32_1_2), 256, true).lanes, 8u);
  EXPECT_EQ(plan_simd(typed_kernel(short_row(17), f32_1_2), 256, true).lanes, 0u);
}

TEST(CpuSimd, GathersInDivergentLoopsKeepTheScalarPath) {
  using tack::analysis::plan_simd;
  // A level of a graph search: each node walks its own edges (a loop of its own length) and reaches the nodes
  // they name.
  auto bfs = tack::kernel("plan_bfs", [](Array mask, Array cost, Array visited, Array start, Array edges) {
    parallel_for(mask.size(), [&](Index v) {
      if_(mask[v] != 0, [&] {
        for_range(start[v], start[v + 1], [&](Index e) {
          Value id = edges[e];
          if_(visited[id] == 0, [&] { cost[id] = cost[v] + 1; });
        });
      });
    });
  });
  const std::vector<tack::passes::ParamType> ints(5, {DType::I32, 1});
  const tack::analysis::SimdPlan plan = plan_simd(typed_kernel(bfs, ints), 256, true);
  EXPECT_EQ(plan.lanes, 0u);
  EXPECT_NE(plan.why.find("an array is gathered or scattered"), std::string::npos) << plan.why;

  // The same loop over the work-item's own elements, one apart from lane to lane (a[i], b(i, j + 1)), and a gather
  // outside any divergent loop: gangs.
  auto own = tack::kernel("plan_own_elements", [](Array a, Array b, Array n, Array idx) {
    parallel_for({b.shape(0), b.shape(1) - 1}, [&](Index i, Index j) {
      Var k = 0;
      while_([&] { return k < n(i, j); },
             [&] {
               b(i, j + 1) = b(i, j + 1) + a[i * b.shape(1) + j] + a[idx(i, j)];
               k += 1;
             });
    });
  });
  const std::vector<tack::passes::ParamType> mixed = {{DType::F32, 1}, {DType::F32, 2}, {DType::I32, 2}, {DType::I32, 2}};
  const tack::analysis::SimdPlan gather_inside = plan_simd(typed_kernel(own, mixed), 256, true);
  EXPECT_EQ(gather_inside.lanes, 0u) << gather_inside.why;  // a[idx(i, j)] is a gather in the loop
  auto contiguous = tack::kernel("plan_contiguous", [](Array a, Array b, Array n, Array idx) {
    parallel_for({b.shape(0), b.shape(1) - 1}, [&](Index i, Index j) {
      Value far = a[idx(i, j)];
      Var k = 0;
      while_([&] { return k < n(i, j); },
             [&] {
               b(i, j + 1) = b(i, j + 1) + a[i * b.shape(1) + j] + far;
               k += 1;
             });
    });
  });
  EXPECT_EQ(plan_simd(typed_kernel(contiguous, mixed), 256, true).lanes, 8u);
}

// A lowered workgroup kernel: its work-item loops' indices vary, the group id does
// not; local_id / 16 is the same across a gang and local_id % 16 steps by one
// (16 x 16 tiles), but (local_id + 1) / 16 and local_id / 8 are varying.
TEST(CpuSimd, WorkItemLoopsOfWorkgroupKernelsAreGangs) {
  auto k = tack::kernel("gang_tiles", [](Array out, Array a) {
    workgroup_for(out.size() / 256, [&](Group g) {
      SharedArray s = g.shared<float>(256);
      Value lid = g.local_id();
      s[lid] = a[g.group_id() * 256 + (lid % 16) * 16 + lid / 16];
      g.barrier();
      out[g.global_id()] = s[(lid / 16) * 16] + s[lid >> 4] + s[lid & 15] + s[(lid + 1) / 16] + s[lid / 8];
    });
  });
  ir::Kernel t = tack::passes::lower_workgroups(typed_kernel(k, {{DType::F32, 1}, {DType::F32, 1}}));
  ASSERT_EQ(t.work_item_loops.size(), 2u);
  LaneUniformity lanes(t);
  for (int id : t.work_item_loops) {
    EXPECT_TRUE(lanes.work_item_index(id));
    EXPECT_TRUE(lanes.let_varying(id));
  }
  // Each shared load of the second region: its index, whether it varies, whether it steps by one.
  std::map<std::string, std::pair<bool, bool>> loads;
  ir::for_each_stmt(t.body, [&](const ir::Stmt& st) {
    for (const ir::Expr& e : ir::own_exprs(st)) {
      std::unordered_set<const ir::ExprNode*> seen;
      ir::walk(e, seen, [&](const ir::Expr& x) {
        if (auto l = x.as<ir::Load>(); l && l->array.space == ir::ArrayRef::Space::Shared)
          loads[ir::to_string(l->index)] = {lanes.varying(l->index), lanes.gang_offset(l->index)};
      });
    }
  });
  ASSERT_EQ(loads.size(), 5u);
  int uniform = 0, offsets = 0;
  for (const auto& [index, facts] : loads) {
    SCOPED_TRACE(index);
    const bool div16 = index.find("div") != std::string::npos && index.find("16") != std::string::npos;
    const bool shr4 = index.find("shr") != std::string::npos;
    const bool and15 = index.find("bitand") != std::string::npos;
    const bool plus1 = index.find("add") != std::string::npos;
    EXPECT_EQ(facts.first, !((div16 || shr4) && !plus1)) << "varying";
    EXPECT_EQ(facts.second, and15) << "steps by one";
    uniform += facts.first ? 0 : 1;
    offsets += facts.second ? 1 : 0;
  }
  EXPECT_EQ(uniform, 2);                                // (lid / 16) * 16 and lid >> 4
  EXPECT_EQ(offsets, 1);                                // lid & 15
  EXPECT_FALSE(lanes.varying(ir::LoopIndex::make(0)));  // the group id
}

// lower_workgroups never lets a value of a work-item loop out of it; a kernel
// that did would need one value per lane where the code around has a scalar,
// so it stays on the scalar path, saying why.
TEST(CpuSimd, AValueLeavingAWorkItemLoopKeepsTheScalarPath) {
  using ir::Expr;
  const ir::Type i64 = ir::Type::strong(DType::I64);
  ir::Kernel k;
  k.name = "leaks_a_lane";
  k.params = {ir::Param{ir::ParamKind::Array, std::nullopt, DType::I64, 1}};
  k.launch = ir::LaunchKind::Workgroup;
  k.dims = {ir::Const::make_int(i64, 1)};
  k.lets = {i64, i64};  // t0: the local id, t1: a copy of it
  k.typed = true;
  auto loop_of = [&](ir::Stmt body) {
    return ir::For::make(0, ir::Const::make_int(i64, 0), ir::Const::make_int(i64, 256), std::move(body));
  };
  const ir::ArrayRef out{ir::ArrayRef::Space::Param, 0};
  const Expr zero = ir::Const::make_int(i64, 0);
  // Inside: fine.
  k.body = loop_of(ir::Block::make({ir::Let::make(1, ir::LetRef::make(i64, 0)),
                                    ir::Store::make(out, ir::LetRef::make(i64, 1), 1, ir::LetRef::make(i64, 1))}));
  k.work_item_loops = {0};
  EXPECT_EQ(tack::analysis::plan_simd(k, 512, true).lanes, 16u);
  // t1 read after the loop.
  k.body = ir::Block::make(
      {loop_of(ir::Let::make(1, ir::LetRef::make(i64, 0))), ir::Store::make(out, zero, 1, ir::LetRef::make(i64, 1))});
  tack::analysis::SimdPlan plan = tack::analysis::plan_simd(k, 512, true);
  EXPECT_EQ(plan.lanes, 0u);
  EXPECT_EQ(plan.why, "scalar path: a value of a work-item loop is used outside it");
}

TEST(CpuSimd, InspectSaysWhichPathAndWidth) {
  auto saxpy = tack::kernel("inspect_saxpy", [](Array y, Array x, Scalar a) {
    parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
  const tack::ArraySpec f32{DType::F32, 1};
  const std::string simd = tack::inspect(saxpy, "cpu", f32, f32, 2.0f).source;
  const char* env = std::getenv("TACK_CPU_SIMD");
  if (env && std::string(env) == "0") {
    EXPECT_EQ(simd.rfind("; scalar path: TACK_CPU_SIMD=0", 0), 0u) << simd.substr(0, 200);
  } else {
    EXPECT_EQ(simd.rfind("; SIMD path: gangs of ", 0), 0u) << simd.substr(0, 200);
    EXPECT_NE(simd.find("<"), std::string::npos);  // vector types in the IR
  }
}

// The SIMD path's transcendentals call libmvec's variant for the gang's width, and its results stay within
// the 4 ulp docs/semantics.md states of the scalar path's libm (the conformance suite checks them against
// the host's libm too).
TEST(CpuSimd, TranscendentalsCallLibmvecWithinItsBound) {
  const char* env = std::getenv("TACK_CPU_SIMD");
  if (env && std::string(env) == "0") GTEST_SKIP() << "TACK_CPU_SIMD=0 runs the scalar path, which calls libm";
  void* libmvec = dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!libmvec || !dlsym(libmvec, "_ZGVbN4vv_atan2f"))
    GTEST_SKIP() << "no libmvec of glibc 2.35 or later here: transcendentals call libm per lane";
  auto waves = tack::kernel("simd_waves", [](Array out, Array x) {
    parallel_for(out.size(), [&](Index i) { out[i] = sin(x[i]) * exp(x[i] * 0.25f) + pow(x[i], 1.5f); });
  });
  const tack::ArraySpec f32{DType::F32, 1};
  const std::string source = tack::inspect(waves, "cpu", f32, f32).source;
  for (const char* fn : {"v_sinf(", "v_expf(", "vv_powf("})
    EXPECT_NE(source.find(fn), std::string::npos) << fn << " is not called:\n" << source.substr(0, 2000);
  EXPECT_EQ(source.find("@sinf("), std::string::npos) << "sin is still called per lane";

  std::vector<float> xs(1000);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = 0.013f * static_cast<float>(i) + 0.001f;
  tack::Device cpu = tack::device("cpu");
  tack::Array x = cpu.from_host(xs);
  tack::Array out = cpu.zeros(DType::F32, {static_cast<std::int64_t>(xs.size())});
  waves(out, x);
  const std::vector<float> got = out.to_host<float>();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const float v = xs[i];
    // Each function within 4 ulp makes the sum within a few ulp of its magnitude: 16 ulp of the largest term.
    const float want = std::sin(v) * std::exp(v * 0.25f) + std::pow(v, 1.5f);
    const float scale = std::max(std::fabs(std::sin(v) * std::exp(v * 0.25f)), std::pow(v, 1.5f));
    EXPECT_NEAR(got[i], want, 16 * std::numeric_limits<float>::epsilon() * scale) << "x = " << v;
  }
}

TEST(CpuSimd, InspectSaysAWorkgroupKernelRunsGangs) {
  auto reverse = tack::kernel("inspect_group", [](Array out, Array x) {
    workgroup_for(x.size() / 256, [&](Group g) {
      SharedArray s = g.shared<float>(256);
      s[g.local_id()] = x[g.global_id()];
      g.barrier();
      out[g.global_id()] = s[255 - g.local_id()];
    });
  });
  const tack::ArraySpec f32{DType::F32, 1};
  const std::string ir = tack::inspect(reverse, "cpu", f32, f32).source;
  const char* env = std::getenv("TACK_CPU_SIMD");
  if (env && std::string(env) == "0") {
    EXPECT_EQ(ir.rfind("; scalar path: TACK_CPU_SIMD=0", 0), 0u) << ir.substr(0, 200);
  } else {
    EXPECT_EQ(ir.rfind("; SIMD path: gangs of ", 0), 0u) << ir.substr(0, 200);
    EXPECT_NE(ir.find("local_id"), std::string::npos);  // the gang's vector of local ids
  }
}

// A varying if_ whose side is a few assignments that read no memory runs as selects: no branch on whether any
// lane takes it (k-means' nearest centre). A side that loads keeps the branch, and both give the scalar path's
// answers (the conformance suite runs every if_ on both paths).
TEST(CpuSimd, CheapIfSidesRunWithoutABranch) {
  auto nearest = tack::kernel("cheap_side", [](Array best, Array x, Array centres) {
    parallel_for(x.size(), [&](Index i) {
      Var best_d = 1e30f, at = 0;
      for_range(0, centres.size(), [&](Index c) {
        Value d = (x[i] - centres[c]) * (x[i] - centres[c]);
        if_(d < best_d, [&] {
          best_d = d;
          at = c;
        });
      });
      best[i] = at;
    });
  });
  auto loads = tack::kernel("loading_side", [](Array y, Array x) {
    parallel_for(x.size(), [&](Index i) {
      Var v = 0.0f;
      if_(x[i] > 0.0f, [&] { v = y[i + 1]; });
      y[i] = v;
    });
  });
  const tack::ArraySpec f32{DType::F32, 1};
  const std::string cheap = tack::inspect(nearest, "cpu", f32, f32, f32).source;
  const std::string loading = tack::inspect(loads, "cpu", f32, f32).source;
  const char* env = std::getenv("TACK_CPU_SIMD");
  if (!(env && std::string(env) == "0")) {
    EXPECT_EQ(cheap.find("if.then"), std::string::npos) << cheap;
    EXPECT_NE(loading.find("if.then"), std::string::npos) << loading;
  }
  tack::Device cpu = tack::device("cpu");
  const std::vector<float> xs = {0.1f, 2.9f, 1.2f,  -4.0f, 7.5f, 3.1f, 0.9f, 5.5f, 2.0f,
                                 2.5f, 6.0f, -1.0f, 4.4f,  1.6f, 3.3f, 0.0f, 8.0f, 2.2f};
  const std::vector<float> cs = {0.0f, 2.0f, 4.0f, 6.0f};
  tack::Array best = cpu.zeros(DType::F32, {std::int64_t(xs.size())});
  nearest(best, cpu.from_host(xs), cpu.from_host(cs));
  const std::vector<float> got = best.to_host<float>();
  for (size_t i = 0; i < xs.size(); ++i) {
    int want = 0;
    for (int c = 1; c < 4; ++c)
      if ((xs[i] - cs[c]) * (xs[i] - cs[c]) < (xs[i] - cs[want]) * (xs[i] - cs[want])) want = c;
    EXPECT_EQ(got[i], float(want)) << i;
  }
}

}  // namespace
