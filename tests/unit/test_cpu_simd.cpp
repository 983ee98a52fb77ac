// The CPU's SIMD path decisions: the lane uniformity analysis
// (src/analysis/lane_uniformity) on traced kernels, the choice of path and
// gang width (src/analysis/simd_plan), and tack::inspect saying which was
// chosen. Whether the generated code is right is the conformance suite's
// business (conformance/divergence.cpp and every other suite, on both paths).
#include "analysis/lane_uniformity.hpp"
#include "analysis/simd_plan.hpp"
#include "ir/visitor.hpp"
#include "support/typed_kernel.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
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
  EXPECT_EQ(plan_simd(typed_kernel(saxpy, {{DType::I8, 1}, {DType::I8, 1}, {DType::I8, 0}}), 512, true).lanes, 16u);
  // 64-bit integers are indices (most fold into scalar addresses): they do not halve the gang.
  EXPECT_EQ(plan_simd(typed_kernel(saxpy, {{DType::I64, 1}, {DType::I64, 1}, {DType::I64, 0}}), 512, true).lanes, 16u);
  tack::analysis::SimdPlan off =
      plan_simd(typed_kernel(saxpy, {{DType::F32, 1}, {DType::F32, 1}, {DType::F32, 0}}), 512, false);
  EXPECT_EQ(off.lanes, 0u);
  EXPECT_NE(off.why.find("TACK_CPU_SIMD=0"), std::string::npos) << off.why;

  auto group = tack::kernel("plan_group", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) { out[g.global_id()] = g.local_id(); });
  });
  tack::analysis::SimdPlan wg = plan_simd(typed_kernel(group, {{DType::I64, 1}}), 512, true);
  EXPECT_EQ(wg.lanes, 0u);
  EXPECT_NE(wg.why.find("workgroup"), std::string::npos) << wg.why;
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
  tack::Array out = cpu.zeros(DType::F32, {xs.size()});
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

}  // namespace
