// The reference interpreter on hand-built typed IR: loops, control flow, atomics, workgroups, textures, errors.
#include "interp/interpreter.hpp"

#include <tack/error.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace tack::interp {
namespace {

using ir::ArrayRef;
using ir::Expr;
using ir::OpCode;
using ir::Stmt;
using ir::Type;

const ir::SourceLoc kLoc{"kern.cpp", 42};

Type strong(DType t) { return Type::strong(t); }

// Builds a typed kernel by hand.
struct Builder {
  ir::Kernel k;
  explicit Builder(std::string name, ir::LaunchKind launch = ir::LaunchKind::Parallel) {
    k.name = std::move(name);
    k.launch = launch;
    k.typed = true;
  }
  int array(DType t, int rank = 1) {
    k.params.push_back({ir::ParamKind::Array, std::nullopt, t, rank});
    return static_cast<int>(k.params.size()) - 1;
  }
  int scalar(DType t) {
    k.params.push_back({ir::ParamKind::Scalar, std::nullopt, t, -1});
    return static_cast<int>(k.params.size()) - 1;
  }
  int texture() {
    k.params.push_back({ir::ParamKind::Texture, std::nullopt, DType::F32, 3});
    return static_cast<int>(k.params.size()) - 1;
  }
  int shared(DType t, std::int64_t n) {
    k.shared.push_back({t, n});
    return static_cast<int>(k.shared.size()) - 1;
  }
  int let(DType t) {
    k.lets.push_back(strong(t));
    return static_cast<int>(k.lets.size()) - 1;
  }
  int var(DType t) {
    k.vars.push_back(strong(t));
    return static_cast<int>(k.vars.size()) - 1;
  }
  Expr let_ref(int id) const { return ir::LetRef::make(k.lets[static_cast<std::size_t>(id)], id); }
  Expr var_ref(int id) const { return ir::VarRef::make(k.vars[static_cast<std::size_t>(id)], id); }
  Expr param(int p) const { return ir::ScalarParam::make(strong(k.params[static_cast<std::size_t>(p)].dtype), p); }
  Expr load(int p, Expr index) const {
    return ir::Load::make(strong(k.params[static_cast<std::size_t>(p)].dtype), ArrayRef{ArrayRef::Space::Param, p},
                          std::move(index), 0);
  }
  Expr load_shared(int s, Expr index) const {
    return ir::Load::make(strong(k.shared[static_cast<std::size_t>(s)].dtype), ArrayRef{ArrayRef::Space::Shared, s},
                          std::move(index), 0);
  }
  // Let id = load(p, index); returns a reference to the loaded value.
  Expr bind_load(std::vector<Stmt>& body, int p, Expr index, ir::SourceLoc loc = {}) {
    int id = let(k.params[static_cast<std::size_t>(p)].dtype);
    body.push_back(ir::Let::make(id, load(p, std::move(index)), loc));
    return let_ref(id);
  }
  Expr bind_load_shared(std::vector<Stmt>& body, int s, Expr index) {
    int id = let(k.shared[static_cast<std::size_t>(s)].dtype);
    body.push_back(ir::Let::make(id, load_shared(s, std::move(index))));
    return let_ref(id);
  }
};

Expr i64(std::int64_t v) { return ir::Const::make_int(strong(DType::I64), v); }
Expr i32(std::int64_t v) { return ir::Const::make_int(strong(DType::I32), v); }
Expr f32c(float v) { return ir::Const::make_float(strong(DType::F32), v); }
Expr f64c(double v) { return ir::Const::make_float(strong(DType::F64), v); }

Expr op(OpCode o, Expr a, Expr b = {}, Expr c = {}) {
  ir::OpCategory cat = ir::op_category(o);
  Type t = cat == ir::OpCategory::Compare || cat == ir::OpCategory::Classify ? strong(DType::Bool) : a->type;
  return ir::Op::make(t, o, std::move(a), std::move(b), std::move(c));
}
Expr cast(DType t, Expr v) { return ir::Cast::make(strong(t), std::move(v)); }
Expr loop_index(int d) { return ir::LoopIndex::make(d); }
Expr group(ir::GroupField f) { return ir::GroupValue::make(f); }
Expr size_of(int p) { return ir::ArrayDim::make(p, ir::ArrayDim::kSize); }

Stmt store(int p, Expr index, Expr value, ir::SourceLoc loc = {}) {
  return ir::Store::make(ArrayRef{ArrayRef::Space::Param, p}, std::move(index), 0, std::move(value), loc);
}
Stmt store_shared(int s, Expr index, Expr value) {
  return ir::Store::make(ArrayRef{ArrayRef::Space::Shared, s}, std::move(index), 0, std::move(value));
}
Stmt block(std::vector<Stmt> s) { return ir::Block::make(std::move(s)); }

template <class T>
Arg array_arg(std::vector<T>& v, std::array<std::int64_t, 4> shape = {}, int rank = 1) {
  Arg a;
  a.kind = ir::ParamKind::Array;
  a.array.data = v.data();
  a.array.dtype = dtype_of<T>;
  a.array.size = static_cast<std::int64_t>(v.size());
  a.array.shape = rank == 1 ? std::array<std::int64_t, 4>{a.array.size, 0, 0, 0} : shape;
  a.array.rank = rank;
  return a;
}
template <class T>
Arg scalar_arg(T v) {
  Arg a;
  a.kind = ir::ParamKind::Scalar;
  if constexpr (std::is_floating_point_v<T>) {
    a.scalar = ir::bits_from_double(dtype_of<T>, v);
  } else {
    a.scalar = ir::bits_from_int(dtype_of<T>, static_cast<std::int64_t>(v));
  }
  return a;
}

// ---- parallel loops ----------------------------------------------------------

// saxpy: y[i] = a * x[i] + y[i], over several batches and a partial one, in two chunks.
TEST(Interpreter, Parallel1DSaxpy) {
  Builder b("saxpy");
  int y = b.array(DType::F32), x = b.array(DType::F32), a = b.scalar(DType::F32);
  std::vector<Stmt> body;
  Expr xi = b.bind_load(body, x, loop_index(0));
  Expr yi = b.bind_load(body, y, loop_index(0));
  body.push_back(store(y, loop_index(0), op(OpCode::Add, op(OpCode::Mul, b.param(a), xi), yi)));
  b.k.body = block(std::move(body));
  b.k.dims = {size_of(y)};

  const int n = 1000;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = 0.25f * static_cast<float>(i);
    hy[i] = 1.0f / static_cast<float>(i + 1);
  }
  std::vector<float> expect(n);
  for (int i = 0; i < n; ++i) {
    volatile float p = 3.1f * hx[i];  // volatile: two roundings even where the compiler would fuse them
    expect[i] = p + hy[i];
  }
  std::vector<Arg> args = {array_arg(hy), array_arg(hx), scalar_arg(3.1f)};
  EXPECT_EQ(static_cast<std::int64_t>(eval_host(b.k.dims[0], args)), n);
  run(b.k, args, 0, 300);
  run(b.k, args, 300, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(hy[i], expect[i]) << i;
}

// out(i, j) = i * 100 + j over a 2-D range taken from the array's shape; LoopIndex(0) is the outer index.
TEST(Interpreter, Parallel2DRowMajor) {
  Builder b("index2d");
  int out = b.array(DType::I64, 2);
  b.k.dims = {ir::ArrayDim::make(out, 0), ir::ArrayDim::make(out, 1)};
  Expr flat = op(OpCode::Add, op(OpCode::Mul, loop_index(0), ir::ArrayDim::make(out, 1)), loop_index(1));
  b.k.body = block({ir::Store::make(ArrayRef{ArrayRef::Space::Param, out}, flat, 2,
                                    op(OpCode::Add, op(OpCode::Mul, loop_index(0), i64(100)), loop_index(1)))});
  const std::int64_t rows = 37, cols = 19;
  std::vector<std::int64_t> h(rows * cols, -1);
  std::vector<Arg> args = {array_arg(h, {rows, cols, 0, 0}, 2)};
  run(b.k, args, 0, 100);
  run(b.k, args, 100, rows * cols);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) ASSERT_EQ(h[i * cols + j], i * 100 + j) << i << "," << j;
  }
}

// A 3-D range decomposes row-major, from any starting flat index.
TEST(Interpreter, Parallel3DFromOffset) {
  Builder b("index3d");
  int out = b.array(DType::I32);
  b.k.dims = {i64(3), i64(4), i64(5)};
  Expr code = op(OpCode::Add,
                 op(OpCode::Add, op(OpCode::Mul, loop_index(0), i64(100)), op(OpCode::Mul, loop_index(1), i64(10))),
                 loop_index(2));
  Expr flat =
      op(OpCode::Add, op(OpCode::Mul, op(OpCode::Add, op(OpCode::Mul, loop_index(0), i64(4)), loop_index(1)), i64(5)),
         loop_index(2));
  b.k.body = block({store(out, flat, cast(DType::I32, code))});
  std::vector<std::int32_t> h(60, -1);
  std::vector<Arg> args = {array_arg(h)};
  run(b.k, args, 7, 60);
  for (int f = 0; f < 60; ++f) {
    int expect = f < 7 ? -1 : (f / 20) * 100 + (f / 5 % 4) * 10 + f % 5;
    ASSERT_EQ(h[f], expect) << f;
  }
}

// ---- control flow --------------------------------------------------------------

// if (i % 3 == 0) { v = i * 2 } else { if (i % 3 == 1) v = -1 else v = 7 }; out[i] = v.
TEST(Interpreter, IfElseWithVars) {
  Builder b("ifelse");
  int out = b.array(DType::I64);
  int v = b.var(DType::I64);
  Expr i = loop_index(0);
  Expr m = op(OpCode::Mod, i, i64(3));
  Stmt inner = ir::If::make(op(OpCode::Eq, m, i64(1)), ir::Assign::make(v, i64(-1)), ir::Assign::make(v, i64(7)));
  b.k.body = block({ir::DeclareVar::make(v, i64(0)),
                    ir::If::make(op(OpCode::Eq, m, i64(0)), ir::Assign::make(v, op(OpCode::Mul, i, i64(2))), inner),
                    store(out, i, b.var_ref(v))});
  b.k.dims = {size_of(out)};
  std::vector<std::int64_t> h(600);
  std::vector<Arg> args = {array_arg(h)};
  run(b.k, args, 0, 600);
  for (int k = 0; k < 600; ++k) ASSERT_EQ(h[k], k % 3 == 0 ? 2 * k : k % 3 == 1 ? -1 : 7) << k;
}

// If without else, and Select, on a mixed-type computation with casts.
TEST(Interpreter, IfWithoutElseAndSelect) {
  Builder b("select");
  int out = b.array(DType::F64);
  Expr i = loop_index(0);
  Expr odd = op(OpCode::Eq, op(OpCode::BitAnd, i, i64(1)), i64(1));
  Expr half = op(OpCode::Mul, cast(DType::F64, i), f64c(0.5));
  b.k.body = block({store(out, i, ir::Select::make(strong(DType::F64), odd, half, f64c(-1.0))),
                    ir::If::make(op(OpCode::Lt, i, i64(4)), store(out, i, f64c(100.0)), Stmt{})});
  b.k.dims = {size_of(out)};
  std::vector<double> h(10);
  std::vector<Arg> args = {array_arg(h)};
  run(b.k, args, 0, 10);
  for (int k = 0; k < 10; ++k) ASSERT_EQ(h[k], k < 4 ? 100.0 : k % 2 ? 0.5 * k : -1.0) << k;
}

// acc = 0; for (k = 0; k < i + 1; ++k) { Let t = k * 2; acc += t }; out[i] = acc: trip counts differ per lane.
TEST(Interpreter, ForLoopWithPerLaneBounds) {
  Builder b("forloop");
  int out = b.array(DType::I64);
  int acc = b.var(DType::I64), k = b.let(DType::I64), t = b.let(DType::I64);
  Expr i = loop_index(0);
  Stmt body = block({ir::Let::make(t, op(OpCode::Mul, b.let_ref(k), i64(2))),
                     ir::Assign::make(acc, op(OpCode::Add, b.var_ref(acc), b.let_ref(t)))});
  b.k.body = block({ir::DeclareVar::make(acc, i64(0)), ir::For::make(k, i64(0), op(OpCode::Add, i, i64(1)), body),
                    store(out, i, b.var_ref(acc))});
  b.k.dims = {size_of(out)};
  std::vector<std::int64_t> h(300);
  std::vector<Arg> args = {array_arg(h)};
  run(b.k, args, 0, 300);
  for (std::int64_t n = 0; n < 300; ++n) ASSERT_EQ(h[n], n * (n + 1)) << n;
}

// An empty For range (lo >= hi) runs no iteration.
TEST(Interpreter, ForLoopEmptyRange) {
  Builder b("forempty");
  int out = b.array(DType::I32);
  int k = b.let(DType::I64);
  b.k.body =
      block({ir::For::make(k, i64(5), op(OpCode::Sub, i64(5), loop_index(0)), store(out, loop_index(0), i32(1)))});
  b.k.dims = {size_of(out)};
  std::vector<std::int32_t> h(4, 0);
  std::vector<Arg> args = {array_arg(h)};
  run(b.k, args, 0, 4);
  EXPECT_EQ(h, (std::vector<std::int32_t>{0, 0, 0, 0}));
}

// k = 0; s = 0; loop { if (k >= i) break; k += 1; if (k % 3 == 0) continue; s += k }; out[i] = s.
TEST(Interpreter, LoopWithBreakAndContinue) {
  Builder b("loop");
  int out = b.array(DType::I64);
  int k = b.var(DType::I64), s = b.var(DType::I64);
  Expr i = loop_index(0);
  Stmt body =
      block({ir::If::make(op(OpCode::Ge, b.var_ref(k), i), ir::Break::make(), Stmt{}),
             ir::Assign::make(k, op(OpCode::Add, b.var_ref(k), i64(1))),
             ir::If::make(op(OpCode::Eq, op(OpCode::Mod, b.var_ref(k), i64(3)), i64(0)), ir::Continue::make(), Stmt{}),
             ir::Assign::make(s, op(OpCode::Add, b.var_ref(s), b.var_ref(k)))});
  b.k.body = block({ir::DeclareVar::make(k, i64(0)), ir::DeclareVar::make(s, i64(0)), ir::Loop::make(body),
                    store(out, i, b.var_ref(s))});
  b.k.dims = {size_of(out)};
  std::vector<std::int64_t> h(520);
  std::vector<Arg> args = {array_arg(h)};
  run(b.k, args, 0, 520);
  for (std::int64_t n = 0; n < 520; ++n) {
    std::int64_t expect = 0;
    for (std::int64_t j = 1; j <= n; ++j) expect += j % 3 ? j : 0;
    ASSERT_EQ(h[n], expect) << n;
  }
}

// A Break leaves only the innermost loop; a Continue inside a For advances its index.
TEST(Interpreter, NestedLoopsBreakInnermostOnly) {
  Builder b("nested");
  int out = b.array(DType::I64);
  int j = b.let(DType::I64), c = b.var(DType::I64), m = b.var(DType::I64);
  Expr i = loop_index(0);
  // for j in [0, 5): { m = 0; loop { if (m >= j) break; m += 1 }; if (j == i) continue; c += m + 10 }
  Stmt inner =
      ir::Loop::make(block({ir::If::make(op(OpCode::Ge, b.var_ref(m), b.let_ref(j)), ir::Break::make(), Stmt{}),
                            ir::Assign::make(m, op(OpCode::Add, b.var_ref(m), i64(1)))}));
  Stmt outer_body = block({ir::Assign::make(m, i64(0)), inner,
                           ir::If::make(op(OpCode::Eq, b.let_ref(j), i), ir::Continue::make(), Stmt{}),
                           ir::Assign::make(c, op(OpCode::Add, b.var_ref(c), op(OpCode::Add, b.var_ref(m), i64(10))))});
  b.k.body = block({ir::DeclareVar::make(c, i64(0)), ir::DeclareVar::make(m, i64(0)),
                    ir::For::make(j, i64(0), i64(5), outer_body), store(out, i, b.var_ref(c))});
  b.k.dims = {size_of(out)};
  std::vector<std::int64_t> h(8);
  std::vector<Arg> args = {array_arg(h)};
  run(b.k, args, 0, 8);
  for (std::int64_t n = 0; n < 8; ++n) {
    std::int64_t expect = 0;
    for (std::int64_t jj = 0; jj < 5; ++jj) expect += jj == n ? 0 : jj + 10;
    ASSERT_EQ(h[n], expect) << n;
  }
}

// ---- atomics --------------------------------------------------------------------

// A histogram by atomic add; the old values of each bin are 0, 1, 2, ... in lane order.
TEST(Interpreter, AtomicAddHistogramInLaneOrder) {
  Builder b("histogram");
  int hist = b.array(DType::I32), old = b.array(DType::I32);
  int r = b.let(DType::I32);
  Expr i = loop_index(0);
  b.k.body = block({ir::Atomic::make(ir::AtomicOp::Add, ArrayRef{ArrayRef::Space::Param, hist},
                                     op(OpCode::Mod, i, i64(4)), 0, i32(1), Expr{}, r),
                    store(old, i, b.let_ref(r))});
  b.k.dims = {size_of(old)};
  std::vector<std::int32_t> h(4, 0), o(1000, -1);
  std::vector<Arg> args = {array_arg(h), array_arg(o)};
  run(b.k, args, 0, 1000);
  EXPECT_EQ(h, (std::vector<std::int32_t>{250, 250, 250, 250}));
  for (int n = 0; n < 1000; ++n) ASSERT_EQ(o[n], n / 4) << n;
}

// Runs one atomic on element 0 of a one-element array for lanes with values vals (and compares cmps, for Cas);
// returns the final element and the old values.
template <class T>
std::pair<T, std::vector<T>> run_atomic(ir::AtomicOp aop, T init, const std::vector<T>& vals,
                                        const std::vector<T>& cmps = {}) {
  Builder b(std::string("atomic_") + ir::atomic_name(aop));
  int a = b.array(dtype_of<T>), v = b.array(dtype_of<T>), c = b.array(dtype_of<T>), o = b.array(dtype_of<T>);
  int r = b.let(dtype_of<T>);
  std::vector<Stmt> body;
  Expr vi = b.bind_load(body, v, loop_index(0));
  Expr ci;
  if (aop == ir::AtomicOp::Cas) ci = b.bind_load(body, c, loop_index(0));
  body.push_back(ir::Atomic::make(aop, ArrayRef{ArrayRef::Space::Param, a}, i64(0), 0, vi, ci, r));
  body.push_back(store(o, loop_index(0), b.let_ref(r)));
  b.k.body = block(std::move(body));
  b.k.dims = {size_of(v)};
  std::vector<T> arr = {init}, vv = vals, cc = cmps.empty() ? vals : cmps, oo(vals.size());
  std::vector<Arg> args = {array_arg(arr), array_arg(vv), array_arg(cc), array_arg(oo)};
  run(b.k, args, 0, static_cast<std::int64_t>(vals.size()));
  return {arr[0], oo};
}

TEST(Interpreter, AtomicOps) {
  using ir::AtomicOp;
  EXPECT_EQ(run_atomic<std::uint32_t>(AtomicOp::Sub, 1, {1, 1, 1}).first, 0xfffffffeu);  // wraps
  EXPECT_EQ(run_atomic<std::int32_t>(AtomicOp::Min, 0, {5, -3, 7, -9, 2}).first, -9);
  EXPECT_EQ(run_atomic<std::int64_t>(AtomicOp::Max, 0, {5, -3, 7, -9, 2}).first, 7);
  EXPECT_EQ(run_atomic<std::uint32_t>(AtomicOp::And, 0xff, {0xf3, 0x3f}).first, 0x33u);
  EXPECT_EQ(run_atomic<std::uint64_t>(AtomicOp::Or, 1, {2, 8}).first, 11u);
  EXPECT_EQ(run_atomic<std::int32_t>(AtomicOp::Xor, 0, {1, 3, 4}).first, 6);
  auto [last, olds] = run_atomic<std::int32_t>(AtomicOp::Exchange, 100, {1, 2, 3});
  EXPECT_EQ(last, 3);
  EXPECT_EQ(olds, (std::vector<std::int32_t>{100, 1, 2}));
  auto [fsum, fold] = run_atomic<float>(AtomicOp::Add, 0.5f, {1.0f, 2.0f});
  EXPECT_EQ(fsum, 3.5f);
  EXPECT_EQ(fold, (std::vector<float>{0.5f, 1.5f}));
  // Float max: a NaN operand yields the other operand.
  EXPECT_EQ(run_atomic<float>(AtomicOp::Max, NAN, {1.0f, -2.0f}).first, 1.0f);
  EXPECT_EQ(run_atomic<double>(AtomicOp::Min, 4.0, {NAN, 3.0}).first, 3.0);
}

// Cas compares bit patterns: lane k finds k and writes k + 1, in lane order.
TEST(Interpreter, AtomicCasChainsInLaneOrder) {
  std::vector<std::int64_t> vals, cmps;
  for (int k = 0; k < 300; ++k) {
    vals.push_back(k + 1);
    cmps.push_back(k);
  }
  auto [last, olds] = run_atomic<std::int64_t>(ir::AtomicOp::Cas, 0, vals, cmps);
  EXPECT_EQ(last, 300);  // the second batch of lanes continues where the first ended
  for (int k = 0; k < 300; ++k) ASSERT_EQ(olds[k], k) << k;
  // -0.0 and +0.0 differ as bit patterns.
  EXPECT_EQ(std::bit_cast<std::uint32_t>(run_atomic<float>(ir::AtomicOp::Cas, 0.0f, {5.0f}, {-0.0f}).first),
            std::bit_cast<std::uint32_t>(0.0f));
  EXPECT_EQ(run_atomic<float>(ir::AtomicOp::Cas, 0.0f, {5.0f}, {0.0f}).first, 5.0f);
}

// ---- workgroups -------------------------------------------------------------------

// Block sums: a tree reduction in shared memory with barriers, checked against GroupReduce Add.
TEST(Interpreter, WorkgroupBlockSum) {
  Builder b("blocksum", ir::LaunchKind::Workgroup);
  int x = b.array(DType::I32), sums = b.array(DType::I32), red = b.array(DType::I32), meta = b.array(DType::I64);
  int sh = b.shared(DType::I32, kGroupSize);
  int gi = b.let(DType::I64), xv = b.let(DType::I32), s = b.let(DType::I64), stride = b.let(DType::I64);
  int total = b.let(DType::I32);
  Expr lid = group(ir::GroupField::LocalId);
  std::vector<Stmt> body;
  body.push_back(ir::Let::make(
      gi, op(OpCode::Add, op(OpCode::Mul, group(ir::GroupField::GroupId), group(ir::GroupField::GroupSize)), lid)));
  // xv = gi < size ? x[gi] : 0 (a Let per branch is not expressible, so load under an If into shared memory).
  body.push_back(store_shared(sh, lid, i32(0)));
  {
    std::vector<Stmt> then;
    Expr v = b.bind_load(then, x, b.let_ref(gi));
    then.push_back(store_shared(sh, lid, v));
    body.push_back(ir::If::make(op(OpCode::Lt, b.let_ref(gi), size_of(x)), block(std::move(then)), Stmt{}));
  }
  body.push_back(ir::Let::make(xv, b.load_shared(sh, lid)));
  body.push_back(ir::Barrier::make());
  // for s in [0, 8): stride = 128 >> s; if (lid < stride) sh[lid] += sh[lid + stride]; barrier
  {
    std::vector<Stmt> step;
    step.push_back(ir::Let::make(stride, op(OpCode::Shr, i64(128), b.let_ref(s))));
    std::vector<Stmt> add;
    Expr a0 = b.bind_load_shared(add, sh, lid);
    Expr a1 = b.bind_load_shared(add, sh, op(OpCode::Add, lid, b.let_ref(stride)));
    add.push_back(store_shared(sh, lid, op(OpCode::Add, a0, a1)));
    step.push_back(ir::If::make(op(OpCode::Lt, lid, b.let_ref(stride)), block(std::move(add)), Stmt{}));
    step.push_back(ir::Barrier::make());
    body.push_back(ir::For::make(s, i64(0), i64(8), block(std::move(step))));
  }
  body.push_back(ir::GroupReduce::make(ir::ReduceOp::Add, b.let_ref(xv), total));
  {
    std::vector<Stmt> first;
    Expr v = b.bind_load_shared(first, sh, i64(0));
    first.push_back(store(sums, group(ir::GroupField::GroupId), v));
    first.push_back(store(red, group(ir::GroupField::GroupId), b.let_ref(total)));
    first.push_back(store(meta, i64(0), group(ir::GroupField::NumGroups)));
    first.push_back(store(meta, i64(1), group(ir::GroupField::GroupSize)));
    body.push_back(ir::If::make(op(OpCode::Eq, lid, i64(0)), block(std::move(first)), Stmt{}));
  }
  b.k.body = block(std::move(body));
  b.k.dims = {op(OpCode::FloorDiv, op(OpCode::Add, size_of(x), i64(kGroupSize - 1)), i64(kGroupSize))};

  const int n = 1000;  // 4 groups, the last one partial
  std::vector<std::int32_t> hx(n);
  for (int k = 0; k < n; ++k) hx[k] = (k * 37) % 101 - 50;
  std::vector<std::int32_t> hs(4, -1), hr(4, -1);
  std::vector<std::int64_t> hm(2, -1);
  std::vector<Arg> args = {array_arg(hx), array_arg(hs), array_arg(hr), array_arg(hm)};
  std::int64_t groups = static_cast<std::int64_t>(eval_host(b.k.dims[0], args));
  ASSERT_EQ(groups, 4);
  run(b.k, args, 0, 1);
  run(b.k, args, 1, groups);
  for (int g = 0; g < 4; ++g) {
    std::int32_t expect = 0;
    for (int k = g * 256; k < std::min(n, (g + 1) * 256); ++k) expect += hx[k];
    EXPECT_EQ(hs[g], expect) << g;
    EXPECT_EQ(hr[g], expect) << g;
  }
  EXPECT_EQ(hm[0], 4);
  EXPECT_EQ(hm[1], kGroupSize);
}

// Shared memory is zeroed at every group's start; GroupReduce Min/Max over all work-items.
TEST(Interpreter, WorkgroupSharedZeroedAndReduceMinMax) {
  Builder b("shared", ir::LaunchKind::Workgroup);
  int out = b.array(DType::F32), mins = b.array(DType::F64), maxs = b.array(DType::F64);
  int sh = b.shared(DType::F32, kGroupSize);
  int lo = b.let(DType::F64), hi = b.let(DType::F64);
  Expr lid = group(ir::GroupField::LocalId);
  Expr gid = group(ir::GroupField::GroupId);
  std::vector<Stmt> body;
  Expr old = b.bind_load_shared(body, sh, lid);
  body.push_back(store_shared(sh, lid, op(OpCode::Add, old, f32c(1.0f))));
  Expr now = b.bind_load_shared(body, sh, lid);
  body.push_back(store(out, op(OpCode::Add, op(OpCode::Mul, gid, i64(kGroupSize)), lid), now));
  // value = (lid - 100) * (gid + 1), as f64
  Expr v =
      op(OpCode::Mul, cast(DType::F64, op(OpCode::Sub, lid, i64(100))), cast(DType::F64, op(OpCode::Add, gid, i64(1))));
  body.push_back(ir::GroupReduce::make(ir::ReduceOp::Min, v, lo));
  body.push_back(ir::GroupReduce::make(ir::ReduceOp::Max, v, hi));
  body.push_back(ir::If::make(op(OpCode::Eq, lid, i64(255)),
                              block({store(mins, gid, b.let_ref(lo)), store(maxs, gid, b.let_ref(hi))}), Stmt{}));
  b.k.body = block(std::move(body));
  b.k.dims = {i64(3)};
  std::vector<float> h(3 * kGroupSize, -1.0f);
  std::vector<double> hmin(3), hmax(3);
  std::vector<Arg> args = {array_arg(h), array_arg(hmin), array_arg(hmax)};
  run(b.k, args, 0, 3);
  for (float f : h) ASSERT_EQ(f, 1.0f);
  for (int g = 0; g < 3; ++g) {
    EXPECT_EQ(hmin[g], -100.0 * (g + 1));
    EXPECT_EQ(hmax[g], 155.0 * (g + 1));
  }
}

// A barrier or reduction that only part of a group reaches is an error naming the kernel and the location.
TEST(Interpreter, DivergentBarrierIsAnError) {
  for (bool reduce : {false, true}) {
    Builder b("divergent", ir::LaunchKind::Workgroup);
    int r = b.let(DType::I64);
    Stmt collective = reduce ? ir::GroupReduce::make(ir::ReduceOp::Add, i64(1), r, kLoc) : ir::Barrier::make(kLoc);
    b.k.body = block({ir::If::make(op(OpCode::Lt, group(ir::GroupField::LocalId), i64(10)), collective, Stmt{})});
    b.k.dims = {i64(1)};
    try {
      run(b.k, {}, 0, 1);
      ADD_FAILURE() << "no error";
    } catch (const InvalidArgument& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find("divergent"), std::string::npos) << msg;
      EXPECT_NE(msg.find("kern.cpp:42"), std::string::npos) << msg;
      EXPECT_NE(msg.find("10 of the 256"), std::string::npos) << msg;
    }
  }
}

// A barrier in a branch every work-item takes (or none takes) is fine.
TEST(Interpreter, UniformBranchBarrierIsFine) {
  Builder b("uniform", ir::LaunchKind::Workgroup);
  int out = b.array(DType::I32);
  Expr gid = group(ir::GroupField::GroupId);
  Stmt then =
      block({ir::Barrier::make(),
             store(out, op(OpCode::Add, op(OpCode::Mul, gid, i64(256)), group(ir::GroupField::LocalId)), i32(1))});
  b.k.body = block({ir::If::make(op(OpCode::Eq, gid, i64(1)), then, ir::Barrier::make())});
  b.k.dims = {i64(2)};
  std::vector<std::int32_t> h(512, 0);
  std::vector<Arg> args = {array_arg(h)};
  run(b.k, args, 0, 2);
  for (int k = 0; k < 512; ++k) ASSERT_EQ(h[k], k >= 256 ? 1 : 0);
}

// ---- textures -----------------------------------------------------------------------

TEST(Interpreter, TextureSampleTrilinear) {
  Builder b("tex");
  int tex = b.texture(), coords = b.array(DType::F32), out = b.array(DType::F32);
  std::vector<Stmt> body;
  Expr base = op(OpCode::Mul, loop_index(0), i64(3));
  Expr u = b.bind_load(body, coords, base);
  Expr v = b.bind_load(body, coords, op(OpCode::Add, base, i64(1)));
  Expr w = b.bind_load(body, coords, op(OpCode::Add, base, i64(2)));
  body.push_back(store(out, loop_index(0), ir::TexSample::make(strong(DType::F32), tex, u, v, w)));
  b.k.body = block(std::move(body));
  b.k.dims = {size_of(out)};

  // 3 x 2 x 2 texels: value = x + 10 y + 100 z, which trilinear interpolation reproduces exactly.
  const std::int64_t W = 3, H = 2, D = 2;
  std::vector<float> texels(W * H * D);
  for (std::int64_t z = 0; z < D; ++z)
    for (std::int64_t y = 0; y < H; ++y)
      for (std::int64_t x = 0; x < W; ++x) texels[(z * H + y) * W + x] = x + 10.0f * y + 100.0f * z;
  std::vector<float> c = {0.0f,  0.0f, 0.0f,   // first texel centre
                          1.0f,  1.0f, 1.0f,   // last texel centre
                          0.5f,  0.5f, 0.5f,   // the middle
                          0.25f, 0.0f, 0.75f,  // x = 0.5, z = 0.75
                          -3.0f, 7.0f, 2.0f,   // clamped
                          NAN,   0.0f, 1.0f};  // NaN counts as 0
  std::vector<float> expect = {0.0f, 112.0f, 1.0f + 5.0f + 50.0f, 0.5f + 75.0f, 10.0f + 100.0f, 100.0f};
  std::vector<float> h(expect.size());
  Arg targ;
  targ.kind = ir::ParamKind::Texture;
  targ.texture = {texels.data(), W, H, D};
  std::vector<Arg> args = {targ, array_arg(c), array_arg(h)};
  run(b.k, args, 0, static_cast<std::int64_t>(h.size()));
  for (std::size_t k = 0; k < h.size(); ++k) EXPECT_FLOAT_EQ(h[k], expect[k]) << k;

  // One hot texel at (1, 1, 1) of 2 x 2 x 2: the weights multiply.
  std::vector<float> hot(8, 0.0f);
  hot[7] = 1.0f;
  std::vector<float> c2 = {0.5f, 0.5f, 0.5f, 0.25f, 0.5f, 1.0f, 1.0f, 1.0f, 0.0f, 0.75f, 0.75f, 0.75f};
  std::vector<float> h2(4);
  args = {targ, array_arg(c2), array_arg(h2)};
  args[0].texture = {hot.data(), 2, 2, 2};
  run(b.k, args, 0, 4);
  EXPECT_FLOAT_EQ(h2[0], 0.125f);
  EXPECT_FLOAT_EQ(h2[1], 0.125f);
  EXPECT_FLOAT_EQ(h2[2], 0.0f);
  EXPECT_FLOAT_EQ(h2[3], 0.421875f);
}

// ---- errors ---------------------------------------------------------------------------

TEST(Interpreter, OutOfRangeLoadIsAnIndexError) {
  Builder b("oob_load");
  int out = b.array(DType::F32), in = b.array(DType::F32);
  std::vector<Stmt> body;
  Expr v = b.bind_load(body, in, op(OpCode::Add, loop_index(0), i64(1)), kLoc);
  body.push_back(store(out, loop_index(0), v));
  b.k.body = block(std::move(body));
  b.k.dims = {size_of(out)};
  std::vector<float> ho(10), hi(10, 2.0f);
  std::vector<Arg> args = {array_arg(ho), array_arg(hi)};
  try {
    run(b.k, args, 0, 10);
    ADD_FAILURE() << "no error";
  } catch (const IndexError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("oob_load"), std::string::npos) << msg;
    EXPECT_NE(msg.find("argument 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("index 10"), std::string::npos) << msg;
    EXPECT_NE(msg.find("extent 10"), std::string::npos) << msg;
    EXPECT_NE(msg.find("kern.cpp:42"), std::string::npos) << msg;
  }
}

TEST(Interpreter, OutOfRangeStoreAndSharedAreIndexErrors) {
  {
    Builder b("oob_store");
    int out = b.array(DType::I32);
    b.k.body = block({store(out, op(OpCode::Sub, loop_index(0), i64(1)), i32(1), kLoc)});
    b.k.dims = {size_of(out)};
    std::vector<std::int32_t> h(4, 0);
    std::vector<Arg> args = {array_arg(h)};
    EXPECT_THROW(run(b.k, args, 0, 4), IndexError);
    EXPECT_NO_THROW(run(b.k, args, 1, 4));
    EXPECT_EQ(h, (std::vector<std::int32_t>{1, 1, 1, 0}));
  }
  {
    Builder b("oob_shared", ir::LaunchKind::Workgroup);
    int sh = b.shared(DType::F64, 16);
    b.k.body = block({store_shared(sh, group(ir::GroupField::LocalId), f64c(1.0))});
    b.k.dims = {i64(1)};
    try {
      run(b.k, {}, 0, 1);
      ADD_FAILURE() << "no error";
    } catch (const IndexError& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find("shared array 0"), std::string::npos) << msg;
      EXPECT_NE(msg.find("index 16"), std::string::npos) << msg;
    }
  }
}

TEST(Interpreter, EvalHostLaunchRanges) {
  Builder b("host");
  int a = b.array(DType::F32, 2), n = b.scalar(DType::I32);
  std::vector<float> h(12);
  std::vector<Arg> args = {array_arg(h, {3, 4, 0, 0}, 2), scalar_arg(std::int32_t{-5})};
  EXPECT_EQ(static_cast<std::int64_t>(eval_host(op(OpCode::Sub, ir::ArrayDim::make(a, 1), i64(2)), args)), 2);
  EXPECT_EQ(static_cast<std::int64_t>(eval_host(size_of(a), args)), 12);
  Expr sel =
      ir::Select::make(strong(DType::I64), op(OpCode::Lt, b.param(n), i32(0)), i64(0), cast(DType::I64, b.param(n)));
  EXPECT_EQ(eval_host(sel, args), 0u);
  EXPECT_EQ(static_cast<std::int64_t>(eval_host(cast(DType::I64, b.param(n)), args)), -5);
  EXPECT_THROW(eval_host(loop_index(0), args), InvalidArgument);
}

}  // namespace
}  // namespace tack::interp
