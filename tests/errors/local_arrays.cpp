// Refusals of per-work-item arrays (local_array): a count that is not positive,
// more than kMaxLocalBytes per work-item in all, an atomic on one (it is private),
// two subscripts (they are flat), and a declaration outside the kernel's body.
// Each is a tack::InvalidArgument naming the kernel and the line.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <string>

using namespace tack::lang;

namespace {

const std::string kFile = "local_arrays.cpp:";

void call(const tack::Kernel& k) {
  tack::Device d = tack::device("interp");
  k(d.zeros(tack::DType::F32, {4}));
}

TEST(LocalArrays, ACountThatIsNotPositive) {
  const int line = __LINE__ + 2;
  auto k = tack::kernel(
      "local_empty", [](Array out) { parallel_for(out.size(), [&](Index i) { out[i] = local_array<float>(0)[0]; }); });
  EXPECT_TACK_ERROR(call(k), tack::InvalidArgument, "kernel 'local_empty'", kFile + std::to_string(line),
                    "a local array needs a positive element count, got 0");
  auto negative = tack::kernel("local_negative", [](Array out) {
    parallel_for(out.size(), [&](Index i) { out[i] = local_array(tack::DType::I32, -3)[0]; });
  });
  EXPECT_TACK_ERROR(call(negative), tack::InvalidArgument, "got -3");
}

TEST(LocalArrays, MoreThanTheLimitPerWorkItem) {
  const int line = __LINE__ + 4;
  auto k = tack::kernel("local_big", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      LocalArray a = local_array<double>(1024);  // 8 KiB
      LocalArray b = local_array<double>(1025);  // 8 KiB and 8 bytes: over 16 KiB in all
      out[i] = a[0] + b[0];
    });
  });
  EXPECT_TACK_ERROR(call(k), tack::InvalidArgument, "kernel 'local_big'", kFile + std::to_string(line),
                    "the local arrays of one work-item may hold at most 16384 bytes in all",
                    "1025 f64 elements (8200 bytes) after 8192 bytes already declared");
  // Exactly the limit is accepted.
  auto fits = tack::kernel("local_fits", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      LocalArray a = local_array<float>(4096);
      a[i] = 2.0f;
      out[i] = a[i];
    });
  });
  tack::Device d = tack::device("interp");
  tack::Array out = d.zeros(tack::DType::F32, {4});
  fits(out);
  EXPECT_EQ(out.to_host<float>()[3], 2.0f);
}

TEST(LocalArrays, AnAtomicOnALocalArray) {
  const int line = __LINE__ + 4;
  auto k = tack::kernel("local_atomic", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      LocalArray a = local_array<float>(4);
      out[i] = atomic_add(a, 0, 1.0f);
    });
  });
  EXPECT_TACK_ERROR(call(k), tack::InvalidArgument, "kernel 'local_atomic'", kFile + std::to_string(line),
                    "atomic_add on a local array", "belongs to one work-item");
}

TEST(LocalArrays, TwoSubscripts) {
  const int line = __LINE__ + 4;
  auto k = tack::kernel("local_2d", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      LocalArray a = local_array<float>(16);
      out[i] = a(i, 0);
    });
  });
  EXPECT_TACK_ERROR(call(k), tack::InvalidArgument, "kernel 'local_2d'", kFile + std::to_string(line),
                    "local arrays are one-dimensional; index them with one flat index");
}

TEST(LocalArrays, OutsideTheKernelsBody) {
  const int line = __LINE__ + 2;
  auto k = tack::kernel("local_outside", [](Array out) {
    LocalArray a = local_array<float>(4);
    parallel_for(out.size(), [&](Index i) { out[i] = a[i]; });
  });
  EXPECT_TACK_ERROR(call(k), tack::InvalidArgument, "kernel 'local_outside'", kFile + std::to_string(line),
                    "local_array is a statement");
}

}  // namespace
