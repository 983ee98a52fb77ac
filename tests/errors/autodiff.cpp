// Refusals of differentiation (docs/autodiff.md, "What is refused"): each construct the adjoint or tangent
// kernel cannot differentiate is a tack::NotDifferentiable naming the kernel, the construct and its line, at
// the derivative's first call; gradient arrays of the wrong dtype or shape are refused before anything runs.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <string>

using namespace tack::lang;

namespace {

const std::string kFile = "autodiff.cpp:";

tack::Device interp() { return tack::device("interp"); }

// The adjoint of k(x, y) called on interp with zero arrays of n f32 elements.
void adjoint_of(const tack::Kernel& k, std::int64_t n = 4) {
  tack::Device d = interp();
  tack::Array x = d.zeros(tack::DType::F32, {n}), y = d.zeros(tack::DType::F32, {n});
  tack::adjoint(k)(x, y, d.zeros(tack::DType::F32, {n}), d.zeros(tack::DType::F32, {n}));
}

TEST(Autodiff, AWhileLoopNamesItsLine) {
  const int line = __LINE__ + 4;
  auto k = tack::kernel("ad_while", [](Array x, Array y) {
    parallel_for(x.size(), [&](Index i) {
      Var v = x[i];
      while_([&] { return v < 10.0f; }, [&] { v = v * 2.0f + 1.0f; });
      y[i] = v;
    });
  });
  EXPECT_TACK_ERROR(adjoint_of(k), tack::NotDifferentiable, "kernel 'ad_while_adjoint'", "a while loop",
                    kFile + std::to_string(line), "write it as a for loop");
  // Forward mode follows the loop as it runs.
  tack::Device d = interp();
  tack::Array x = d.from_host(std::vector<float>{1, 2, 3, 4}), y = d.zeros(tack::DType::F32, {4});
  tack::Array dx = d.from_host(std::vector<float>{1, 1, 1, 1}), dy = d.zeros(tack::DType::F32, {4});
  tack::jvp(k)(x, y, dx, dy);
  EXPECT_EQ(dy.to_host<float>(), (std::vector<float>{8, 4, 4, 4}));  // 1->3->7->15, 2->5->11, 3->7->15, 4->9->19
}

TEST(Autodiff, BreakAndContinue) {
  const int line = __LINE__ + 5;
  auto k = tack::kernel("ad_break", [](Array x, Array y) {
    parallel_for(x.size(), [&](Index i) {
      Var v = x[i];
      for_range(0, 4, [&](Index) {
        if_(v > 3.0f, [&] { break_(); });
        v = v * v;
      });
      y[i] = v;
    });
  });
  EXPECT_TACK_ERROR(adjoint_of(k), tack::NotDifferentiable, "break", kFile + std::to_string(line));
  auto c = tack::kernel("ad_continue", [](Array x, Array y) {
    parallel_for(x.size(), [&](Index i) {
      Var v = x[i];
      for_range(0, 4, [&](Index) {
        if_(v > 3.0f, [&] { continue_(); });
        v = v * v;
      });
      y[i] = v;
    });
  });
  EXPECT_TACK_ERROR(adjoint_of(c), tack::NotDifferentiable, "continue");
}

TEST(Autodiff, AtomicsOtherThanAddAndTheirOldValues) {
  const int line = __LINE__ + 2;
  auto k = tack::kernel("ad_atomic_max",
                        [](Array x, Array y) { parallel_for(x.size(), [&](Index i) { atomic_max(y, 0, x[i]); }); });
  EXPECT_TACK_ERROR(adjoint_of(k), tack::NotDifferentiable, "atomic_max on a float array", kFile + std::to_string(line),
                    "only atomic_add and atomic_sub");
  const int old_line = __LINE__ + 2;
  auto old = tack::kernel("ad_atomic_old", [](Array x, Array y) {
    parallel_for(x.size(), [&](Index i) { y[i] = atomic_add(x, 0, 1.0f) * 2.0f; });
  });
  EXPECT_TACK_ERROR(adjoint_of(old), tack::NotDifferentiable, "the old value an atomic returns",
                    kFile + std::to_string(old_line));
}

TEST(Autodiff, InPlaceUpdatesThatNeedTheOldValues) {
  const int line = __LINE__ + 2;
  auto shifted = tack::kernel("ad_shift", [](Array x, Array y) {
    parallel_for(x.size() - 1, [&](Index i) { x[i + 1] = x[i] * 2.0f + y[i]; });
  });
  EXPECT_TACK_ERROR(adjoint_of(shifted), tack::NotDifferentiable, "a read of argument 0",
                    "also writes at other elements", kFile + std::to_string(line));
  const int square_line = __LINE__ + 2;
  auto squared = tack::kernel("ad_square_in_place", [](Array x, Array y) {
    parallel_for(x.size(), [&](Index i) { x[i] = x[i] * x[i] + y[i]; });
  });
  EXPECT_TACK_ERROR(adjoint_of(squared), tack::NotDifferentiable, "a read of argument 0, which the kernel overwrites",
                    kFile + std::to_string(square_line), "the adjoint needs the value read");
  // A linear in-place update needs no old value: accepted.
  auto scaled = tack::kernel("ad_scale_in_place", [](Array x, Array y) {
    parallel_for(x.size(), [&](Index i) { x[i] = x[i] * 3.0f + y[i] * y[i]; });
  });
  EXPECT_NO_THROW(adjoint_of(scaled));
}

TEST(Autodiff, WorkgroupsSharedMemoryAndGroupReductions) {
  const int line = __LINE__ + 4;
  auto k = tack::kernel("ad_barrier", [](Array x, Array y) {
    workgroup_for(1, [&](Group g) {
      SharedArray s = g.shared<float>(256);
      s[g.local_id()] = x[g.local_id()];
      g.barrier();
      y[g.local_id()] = s[255 - g.local_id()];
    });
  });
  EXPECT_TACK_ERROR(adjoint_of(k, 256), tack::NotDifferentiable, "workgroup shared memory",
                    kFile + std::to_string(line));
  const int barrier_line = __LINE__ + 4;
  auto b = tack::kernel("ad_barrier_alone", [](Array x, Array y) {
    workgroup_for(1, [&](Group g) {
      Value v = x[g.local_id()];
      g.barrier();
      y[g.local_id()] = v * v;
    });
  });
  EXPECT_TACK_ERROR(adjoint_of(b, 256), tack::NotDifferentiable, "a workgroup barrier",
                    kFile + std::to_string(barrier_line));
  const int reduce_line = __LINE__ + 2;
  auto r = tack::kernel("ad_group_reduce", [](Array x, Array y) {
    workgroup_for(1, [&](Group g) { y[g.local_id()] = g.reduce_add(x[g.local_id()]); });
  });
  EXPECT_TACK_ERROR(adjoint_of(r, 256), tack::NotDifferentiable, "a group reduction",
                    kFile + std::to_string(reduce_line));
}

TEST(Autodiff, GradientArraysOfAnotherDtypeOrShape) {
  auto k =
      tack::kernel("ad_shapes", [](Array x, Array y) { parallel_for(x.size(), [&](Index i) { y[i] = x[i] * x[i]; }); });
  tack::Device d = interp();
  tack::Array x = d.zeros(tack::DType::F32, {4}), y = d.zeros(tack::DType::F32, {4});
  EXPECT_TACK_ERROR(tack::adjoint(k)(x, y, d.zeros(tack::DType::F64, {4}), d.zeros(tack::DType::F32, {4})),
                    tack::TypeError, "kernel 'ad_shapes_adjoint', argument 2 (the gradient of argument 0)",
                    "must have its dtype f32, got f64");
  EXPECT_TACK_ERROR(tack::adjoint(k)(x, y, d.zeros(tack::DType::F32, {4}), d.zeros(tack::DType::F32, {2, 2})),
                    tack::InvalidArgument, "argument 3 (the gradient of argument 1)",
                    "must have its shape (4,), got shape (2, 2)");
  EXPECT_TACK_ERROR(tack::jvp(k)(x, y, d.zeros(tack::DType::F32, {5}), d.zeros(tack::DType::F32, {4})),
                    tack::InvalidArgument, "kernel 'ad_shapes_jvp', argument 2 (the tangent of argument 0)");
  EXPECT_TACK_ERROR(tack::adjoint(k)(x, y), tack::InvalidArgument, "kernel 'ad_shapes_adjoint' takes 4 arguments");
  EXPECT_TACK_ERROR(tack::adjoint(tack::Kernel{}), tack::InvalidArgument, "an empty tack::Kernel");
}

}  // namespace
