// Vectors and matrices refused: an array whose trailing dimensions are not the
// element's shape (at the call, before anything runs, and for inspect and
// precompile with ArraySpecs), a component index out of range, a bad or
// conflicting element shape, and the mistakes C++'s types refuse at compile time
// (mismatched shapes, cross of 2-vectors, a scalar divided by a vector,
// comparisons of vectors).
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <string>

using namespace tack::lang;

namespace {

// ---- refused by the compiler ----------------------------------------------------

template <class A, class B>
concept Addable = requires(A a, B b) {
  a + b;
};
template <class A, class B>
concept Multipliable = requires(A a, B b) {
  a* b;
};
template <class A, class B>
concept Divisible = requires(A a, B b) {
  a / b;
};
template <class A, class B>
concept Comparable = requires(A a, B b) {
  a == b;
};
template <class A, class B>
concept Crossable = requires(A a, B b) {
  cross(a, b);
};
template <class A, class B>
concept Dottable = requires(A a, B b) {
  dot(a, b);
};
template <class A, class B>
concept MatMul = requires(A a, B b) {
  matmul(a, b);
};

static_assert(Addable<Vec3, Vec3> && !Addable<Vec3, Vec2> && !Addable<Vec3, Mat33> && !Addable<Vec3, Value>,
              "vectors add to vectors of their own size only");
static_assert(Multipliable<Vec3, Value> && Multipliable<Value, Vec3> && Multipliable<Vec3, float> &&
                  !Multipliable<Vec3, Vec4> && !Multipliable<Mat33, Mat22>,
              "scalar * vector broadcasts; vectors of other sizes do not multiply");
static_assert(Divisible<Vec3, Value> && !Divisible<Value, Vec3> && !Divisible<Vec3, Vec3>, "s / v is refused");
static_assert(!Comparable<Vec3, Vec3> && !Comparable<Vec3, Value>, "compare components, not vectors");
static_assert(Crossable<Vec3, Vec3> && !Crossable<Vec2, Vec2> && !Crossable<Vec4, Vec4>, "cross is for vec3 only");
static_assert(Dottable<Vec3, Vec3> && !Dottable<Vec3, Vec2> && !Dottable<Mat33, Mat33>);
static_assert(MatMul<Mat33, Vec3> && MatMul<Vec3, Mat33> && MatMul<Mat33, Mat33> && !MatMul<Mat33, Vec2> &&
              !MatMul<Mat22, Mat33> && !MatMul<Vec3, Vec3>);
static_assert(!std::is_constructible_v<Vec3, Value, Value> && !std::is_constructible_v<Mat22, Value, Value, Value>,
              "a vector takes exactly its number of components");

// ---- refused at the call: the trailing shape ----------------------------------------

tack::Kernel copy_vec3() {
  return tack::kernel("copy_vec3", [](ArrayOf<Vec3> out, ArrayOf<Vec3> in) {
    parallel_for(out.shape(0), [&](Index i) { out[i] = in[i]; });
  });
}

TEST(VectorErrors, TrailingShapeRefusedAtTheCall) {
  auto k = copy_vec3();
  auto dev = tack::device("interp");
  auto out = dev.zeros(tack::DType::F32, {4, 3});
  EXPECT_TACK_ERROR(k(out, dev.zeros(tack::DType::F32, {4, 4})), tack::InvalidArgument, "kernel 'copy_vec3'",
                    "argument 1 holds vec3 elements", "expected an array of shape (..., 3)", "got shape (4, 4)");
  EXPECT_TACK_ERROR(k(out, dev.zeros(tack::DType::F32, {3})), tack::InvalidArgument, "argument 1 holds vec3 elements",
                    "with 1 to 3 leading dimensions", "got shape (3,)");
  EXPECT_TACK_ERROR(k(dev.zeros(tack::DType::F32, {3, 4, 2}), out), tack::InvalidArgument, "kernel 'copy_vec3'",
                    "argument 0 holds vec3 elements", "got shape (3, 4, 2)");
  // Nothing ran: the output is untouched.
  auto src = dev.from_host(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  auto dst = dev.zeros(tack::DType::F32, {2, 3});
  EXPECT_NO_THROW(k(dst, src));
  EXPECT_EQ(dst.to_host<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(VectorErrors, MatrixTrailingShapeRefusedAtTheCall) {
  auto k = tack::kernel("copy_mat33", [](ArrayOf<Mat33> out, ArrayOf<Mat33, float> in) {
    parallel_for(out.shape(0), [&](Index i) { out[i] = in[i]; });
  });
  auto dev = tack::device("interp");
  EXPECT_TACK_ERROR(k(dev.zeros(tack::DType::F32, {2, 3, 3}), dev.zeros(tack::DType::F32, {2, 3, 4})),
                    tack::InvalidArgument, "kernel 'copy_mat33'", "argument 1 holds mat33 elements",
                    "expected an array of shape (..., 3, 3) with 1 to 2 leading dimensions", "got shape (2, 3, 4)");
  EXPECT_TACK_ERROR(k(dev.zeros(tack::DType::F32, {3, 3}), dev.zeros(tack::DType::F32, {2, 3, 3})),
                    tack::InvalidArgument, "argument 0 holds mat33 elements", "got shape (3, 3)");
  // ArrayOf<Mat33, float> also fixes the dtype.
  EXPECT_TACK_ERROR(k(dev.zeros(tack::DType::F32, {2, 3, 3}), dev.zeros(tack::DType::F64, {2, 3, 3})), tack::TypeError,
                    "argument 1", "ArrayOf<f32>, got f64");
}

TEST(VectorErrors, ElementShapeInTheIrAndInspect) {
  auto k = copy_vec3();
  EXPECT_NE(k.ir().find("%0: Array<element 3>, %1: Array<element 3>"), std::string::npos) << k.ir();
  auto ins = tack::inspect(k, "interp", tack::ArraySpec{tack::DType::F32, 2}, tack::ArraySpec{tack::DType::F64, 2});
  EXPECT_NE(ins.typed_ir.find("%0: Array<f32, rank 2, element 3>, %1: Array<f64, rank 2, element 3>"),
            std::string::npos)
      << ins.typed_ir;
  EXPECT_TACK_ERROR(tack::inspect(k, "interp", tack::ArraySpec{tack::DType::F32, 1}, tack::ArraySpec{}),
                    tack::InvalidArgument, "kernel 'copy_vec3', argument 0 holds vec3 elements",
                    "got an ArraySpec of rank 1");
  EXPECT_TACK_ERROR(k.precompile(tack::device("interp"), tack::ArraySpec{tack::DType::F32, 2}, tack::ArraySpec{}),
                    tack::InvalidArgument, "argument 1 holds vec3 elements", "got an ArraySpec of rank 1");
  // The element shape is part of the traced kernel: the same body over mat22 elements is another kernel.
  auto k22 = tack::kernel("copy_vec3", [](ArrayOf<Vec4> out, ArrayOf<Vec4> in) {
    parallel_for(out.shape(0), [&](Index i) { out[i] = in[i]; });
  });
  EXPECT_NE(k22.ir(), k.ir());
}

// ---- refused while tracing --------------------------------------------------------------

TEST(VectorErrors, ComponentIndexOutOfRange) {
  const int line = __LINE__ + 4;
  auto k = tack::kernel("bad_component", [](ArrayOf<Vec3> out) {
    parallel_for(out.shape(0), [&](Index i) {
      Vec3 v = out[i];
      v[3] = 1;
    });
  });
  auto dev = tack::device("interp");
  EXPECT_TACK_ERROR(k(dev.zeros(tack::DType::F32, {2, 3})), tack::InvalidArgument, "kernel 'bad_component'",
                    "vectors.cpp:" + std::to_string(line),
                    "index 3 is out of range for a vec3 (3 entries, indices 0 to 2)");
  auto m = tack::kernel("bad_entry", [](ArrayOf<Mat22> out) {
    parallel_for(out.shape(0), [&](Index i) {
      Mat22 x = out[i];
      out[i] = x * x(0, 2);
    });
  });
  EXPECT_TACK_ERROR(m(dev.zeros(tack::DType::F32, {2, 2, 2})), tack::InvalidArgument, "kernel 'bad_entry'",
                    "index 2 is out of range for a mat22 (2 entries, indices 0 to 1)");
  // Outside a kernel, too.
  Vec2 v = vec2(1, 2);
  EXPECT_TACK_ERROR((void)v[-1], tack::InvalidArgument, "index -1 is out of range for a vec2");
  Quat q = quat(1, 2, 3, 4);
  EXPECT_TACK_ERROR((void)q[4], tack::InvalidArgument, "index 4 is out of range for a quat");
}

TEST(VectorErrors, BadOrConflictingElementShape) {
  auto bad = tack::kernel("bad_shape", [](Array a) {
    tack::lang::detail::require_element_shape(a, 5, 0);
    parallel_for(1, [&](Index) {});
  });
  EXPECT_TACK_ERROR(bad(tack::device("interp").zeros(tack::DType::F32, {2})), tack::InvalidArgument,
                    "kernel 'bad_shape'", "argument 0 is taken to hold elements of shape (5)", "2 to 4 components");
  auto twice = tack::kernel("two_shapes", [](ArrayOf<Vec3> a) {
    tack::lang::detail::require_element_shape(a, 3, 3);
    parallel_for(1, [&](Index) {});
  });
  EXPECT_TACK_ERROR(twice(tack::device("interp").zeros(tack::DType::F32, {2, 3})), tack::InvalidArgument,
                    "kernel 'two_shapes'",
                    "argument 0 is taken to hold elements of shape (3, 3) here, but of shape (3) at");
  auto lead = tack::kernel("too_many_leading",
                           [](ArrayOf<Mat22> a) { parallel_for(1, [&](Index i) { a(i, i, i) = identity<2>(); }); });
  EXPECT_TACK_ERROR(lead(tack::device("interp").zeros(tack::DType::F32, {2, 2, 2})), tack::InvalidArgument,
                    "kernel 'too_many_leading'", "3 leading indices", "at most 2 leading indices");
}

}  // namespace
