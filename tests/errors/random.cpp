// Errors of random numbers in kernels: a draw of a dtype that is not a float, a
// generator made outside the parallel loop or outside any kernel.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

namespace {

using namespace tack::lang;

TEST(RandomErrors, AUniformOrNormalOfAnIntegerDtype) {
  auto k = tack::kernel("int_uniform", [](Array out, Scalar seed) {
    parallel_for(out.size(), [&](Index i) {
      Random rng(seed, i);
      out[i] = rng.uniform(tack::DType::I32);
    });
  });
  tack::Array out = tack::device("interp").zeros(tack::DType::F32, {4});
  EXPECT_TACK_ERROR(k(out, 1), tack::InvalidArgument, "kernel 'int_uniform' at ", "errors/random.cpp:15",
                    "Random's uniform() makes float32 or float64 values, not i32");
  auto n = tack::kernel("bool_normal", [](Array out, Scalar seed) {
    parallel_for(out.size(), [&](Index i) {
      Random rng(seed, i);
      out[i] = rng.normal(tack::DType::Bool);
    });
  });
  EXPECT_TACK_ERROR(n(out, 1), tack::InvalidArgument, "kernel 'bool_normal' at ", "errors/random.cpp:24",
                    "Random's normal() makes float32 or float64 values, not bool");
}

TEST(RandomErrors, AGeneratorOutsideTheParallelLoop) {
  auto k = tack::kernel("random_outside", [](Array out, Scalar seed) {
    Random rng(seed, 0);
    parallel_for(out.size(), [&](Index i) { out[i] = rng.uniform(); });
  });
  tack::Array out = tack::device("interp").zeros(tack::DType::F32, {4});
  EXPECT_TACK_ERROR(k(out, 1), tack::InvalidArgument, "kernel 'random_outside' at ", "errors/random.cpp:33",
                    "Random is a statement, and statements belong inside the kernel's parallel_for");
}

TEST(RandomErrors, OutsideAnyKernel) {
  EXPECT_TACK_ERROR(Random(1, 2), tack::InvalidArgument, "Random");
  EXPECT_TACK_ERROR(philox4x32(0, 0, 0, 0, 0, 0), tack::InvalidArgument, "philox4x32");
}

}  // namespace
