// Integer expressions against the host (the reference's
// test_integer_expression_differential): trees of i64 arithmetic, bitwise
// operations, shifts, comparisons, min/max, select and a round trip through
// i32, generated from fixed seeds, evaluated by every backend (and by interp
// on the others) and by C++ here with DESIGN §4's rules: + - * and unary minus
// wrap, shift counts are taken modulo 64, >> is arithmetic, an i64 to i32 cast
// keeps the low 32 bits. Everything is defined for every input, so a
// difference is the backend's (or its compiler's).
//
// One case is a known compiler defect (reference, HIP): AMD clang 20 in ROCm
// 7.0 and 7.1 evaluates a 64-bit signed -253 < -1 inside one generated integer
// expression as false at -O1 and above. On the hip device, where the runtime
// is one of those (drivers::hip::has_integer_expression_miscompile), that case
// is a strict expected failure: wrong values end it as SKIPPED, with the
// values, and right ones fail it (XPASS: the mark is to be dropped for that
// release). Everywhere else it must pass.
#include "conformance/backend_param.hpp"
#include "drivers/hip_api.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(IntegerExpressionDifferential);

// One node of an expression over the row's x, y and z (i64).
struct Expr {
  enum Op { X, Y, Z, Const, Add, Sub, Mul, And, Or, Xor, Shl, Shr, Neg, Not, Min, Max, Lt, Le, Eq, Ne, Sel, Via32 };
  Op op = X;
  std::int64_t value = 0;  // Const's
  std::vector<Expr> kids;  // Sel: (a < b) ? c : d
};
constexpr int kArity[] = {0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 2, 2, 2, 2, 2, 2, 4, 1};
const char* const kName[] = {"x",  "y", "z", "c",   "+",   "-", "*",  "&",  "|",  "^",      "<<",
                             ">>", "-", "~", "min", "max", "<", "<=", "==", "!=", "select", "via_i32"};

Expr leaf(Expr::Op op, std::int64_t value = 0) { return Expr{op, value, {}}; }
Expr node(Expr::Op op, std::vector<Expr> kids) { return Expr{op, 0, std::move(kids)}; }

std::string text(const Expr& e) {
  if (e.op == Expr::Const) return std::to_string(e.value);
  if (e.kids.empty()) return kName[e.op];
  std::string s = std::string("(") + kName[e.op];
  for (const Expr& k : e.kids) s += " " + text(k);
  return s + ")";
}

std::int64_t wrap(std::uint64_t v) { return static_cast<std::int64_t>(v); }
std::uint64_t u(std::int64_t v) { return static_cast<std::uint64_t>(v); }

// The host's value, with DESIGN §4's rules.
std::int64_t eval(const Expr& e, std::int64_t x, std::int64_t y, std::int64_t z) {
  auto k = [&](int i) { return eval(e.kids[i], x, y, z); };
  switch (e.op) {
    case Expr::X: return x;
    case Expr::Y: return y;
    case Expr::Z: return z;
    case Expr::Const: return e.value;
    case Expr::Add: return wrap(u(k(0)) + u(k(1)));
    case Expr::Sub: return wrap(u(k(0)) - u(k(1)));
    case Expr::Mul: return wrap(u(k(0)) * u(k(1)));
    case Expr::And: return k(0) & k(1);
    case Expr::Or: return k(0) | k(1);
    case Expr::Xor: return k(0) ^ k(1);
    case Expr::Shl: return wrap(u(k(0)) << (u(k(1)) & 63));
    case Expr::Shr: return k(0) >> (u(k(1)) & 63);  // arithmetic (C++20)
    case Expr::Neg: return wrap(0 - u(k(0)));
    case Expr::Not: return ~k(0);
    case Expr::Min: return std::min(k(0), k(1));
    case Expr::Max: return std::max(k(0), k(1));
    case Expr::Lt: return k(0) < k(1);
    case Expr::Le: return k(0) <= k(1);
    case Expr::Eq: return k(0) == k(1);
    case Expr::Ne: return k(0) != k(1);
    case Expr::Sel: return k(0) < k(1) ? k(2) : k(3);
    case Expr::Via32: return static_cast<std::int32_t>(static_cast<std::uint32_t>(u(k(0))));
  }
  return 0;
}

// The same expression traced into a kernel.
Value trace(const Expr& e, const Value& x, const Value& y, const Value& z) {
  auto k = [&](int i) { return trace(e.kids[i], x, y, z); };
  switch (e.op) {
    case Expr::X: return x;
    case Expr::Y: return y;
    case Expr::Z: return z;
    case Expr::Const: return cast<i64>(Value(e.value));
    case Expr::Add: return k(0) + k(1);
    case Expr::Sub: return k(0) - k(1);
    case Expr::Mul: return k(0) * k(1);
    case Expr::And: return k(0) & k(1);
    case Expr::Or: return k(0) | k(1);
    case Expr::Xor: return k(0) ^ k(1);
    case Expr::Shl: return k(0) << k(1);
    case Expr::Shr: return k(0) >> k(1);
    case Expr::Neg: return -k(0);
    case Expr::Not: return ~k(0);
    case Expr::Min: return min(k(0), k(1));
    case Expr::Max: return max(k(0), k(1));
    case Expr::Lt: return cast<i64>(k(0) < k(1));
    case Expr::Le: return cast<i64>(k(0) <= k(1));
    case Expr::Eq: return cast<i64>(k(0) == k(1));
    case Expr::Ne: return cast<i64>(k(0) != k(1));
    case Expr::Sel: return select(k(0) < k(1), k(2), k(3));
    case Expr::Via32: return cast<i64>(cast<std::int32_t>(k(0)));
  }
  return x;
}

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

const std::vector<std::int64_t>& edge_values() {
  static const std::vector<std::int64_t> v = {
      0,         1,        -1, 2, -253, 63, 64, 65, std::int64_t{1} << 32, -(std::int64_t{1} << 31), 0x5555555555555555,
      INT64_MAX, INT64_MIN};
  return v;
}

// A random tree of at most `depth` levels.
Expr generate(std::uint64_t& s, int depth) {
  if (depth == 0 || splitmix(s) % 5 == 0) {
    const std::uint64_t r = splitmix(s) % 4;
    if (r < 3) return leaf(static_cast<Expr::Op>(Expr::X + r));
    return leaf(Expr::Const, edge_values()[splitmix(s) % edge_values().size()]);
  }
  const auto op = static_cast<Expr::Op>(Expr::Add + splitmix(s) % (Expr::Via32 - Expr::Add + 1));
  std::vector<Expr> kids;
  for (int i = 0; i < kArity[op]; ++i) kids.push_back(generate(s, depth - 1));
  return node(op, std::move(kids));
}

// Rows: every edge value in each column, then seeded ones.
struct Rows {
  std::vector<std::int64_t> x, y, z;
};
Rows make_rows(std::uint64_t seed, std::size_t n) {
  Rows r;
  const auto& edges = edge_values();
  for (std::size_t i = 0; i < n; ++i) {
    r.x.push_back(i < edges.size() ? edges[i] : wrap(splitmix(seed)) >> (splitmix(seed) % 64));
    r.y.push_back(i < edges.size() ? edges[(i * 5 + 3) % edges.size()] : wrap(splitmix(seed)) >> (splitmix(seed) % 64));
    r.z.push_back(wrap(splitmix(seed)) >> (splitmix(seed) % 64));
  }
  return r;
}

// out[e * n + i] = exprs[e](x[i], y[i], z[i]) on device d; the kernel is traced from the trees.
std::vector<std::int64_t> run(const tack::Kernel& k, const tack::Device& d, const Rows& r, std::size_t count) {
  tack::Array out = zeros<std::int64_t>(d, static_cast<std::int64_t>(count * r.x.size()));
  k(out, d.from_host(r.x), d.from_host(r.y), d.from_host(r.z));
  return out.to_host<std::int64_t>();
}
tack::Kernel kernel_of(const std::string& name, const std::vector<Expr>& exprs) {
  return tack::kernel(name, [exprs](Array out, Array x, Array y, Array z) {
    parallel_for(x.size(), [&](Index i) {
      for (std::size_t e = 0; e < exprs.size(); ++e)
        out[static_cast<std::int64_t>(e) * x.size() + i] = trace(exprs[e], x[i], y[i], z[i]);
    });
  });
}
std::vector<std::int64_t> on_host(const std::vector<Expr>& exprs, const Rows& r) {
  std::vector<std::int64_t> want;
  for (const Expr& e : exprs)
    for (std::size_t i = 0; i < r.x.size(); ++i) want.push_back(eval(e, r.x[i], r.y[i], r.z[i]));
  return want;
}
RowText describe(const std::vector<Expr>& exprs, const Rows& r) {
  return [exprs, r](std::size_t j) {
    const std::size_t n = r.x.size(), e = j / n, i = j % n;
    return text(exprs[e]) + " at x = " + std::to_string(r.x[i]) + ", y = " + std::to_string(r.y[i]) +
           ", z = " + std::to_string(r.z[i]);
  };
}

// Whether this backend's device is a hip device on a runtime with the known defect.
bool has_known_miscompile(const std::string& backend) {
  if (backend != "hip") return false;
  const tack::drivers::hip::Api* api = tack::drivers::hip::load(nullptr);
  return api && tack::drivers::hip::has_integer_expression_miscompile(
                    tack::drivers::hip::split_runtime_version(api->runtime_version));
}

// 48 seeded trees of depth up to 5, one kernel, 40 rows.
TEST_P(IntegerExpressionDifferential, SeededExpressionsMatchTheHost) {
  if (!has_dtype<std::int64_t>() || !has_dtype<std::int32_t>()) return;
  std::uint64_t s = 20240915;
  std::vector<Expr> exprs;
  for (int e = 0; e < 48; ++e) exprs.push_back(generate(s, 5));
  const Rows rows = make_rows(7, 40);
  const tack::Kernel k = kernel_of("int_expr_seeded", exprs);
  const std::vector<std::int64_t> want = on_host(exprs, rows);
  compare_exact("seeded expressions", backend(), run(k, dev(), rows, exprs.size()), "host", want,
                describe(exprs, rows));
  if (!on_interp())
    compare_exact("seeded expressions", "interp", run(k, interp(), rows, exprs.size()), "host", want,
                  describe(exprs, rows));
}

// The defect's shape: t = x * 11 + z and u = y - 1 are -253 and -1 in row 0, and t < u decides three
// parts of one expression: ((t < u) << 3 ^ (x & y)) + max(t, u) * 5 - select(t < u, z ^ 17, y | 2).
TEST_P(IntegerExpressionDifferential, SignedCompareOfNegativesInsideOneExpression) {
  if (!has_dtype<std::int64_t>()) return;
  const Expr t = node(Expr::Add, {node(Expr::Mul, {leaf(Expr::X), leaf(Expr::Const, 11)}), leaf(Expr::Z)});
  const Expr v = node(Expr::Sub, {leaf(Expr::Y), leaf(Expr::Const, 1)});
  const Expr e = node(
      Expr::Sub, {node(Expr::Add, {node(Expr::Xor, {node(Expr::Shl, {node(Expr::Lt, {t, v}), leaf(Expr::Const, 3)}),
                                                    node(Expr::And, {leaf(Expr::X), leaf(Expr::Y)})}),
                                   node(Expr::Mul, {node(Expr::Max, {t, v}), leaf(Expr::Const, 5)})}),
                  node(Expr::Sel, {t, v, node(Expr::Xor, {leaf(Expr::Z), leaf(Expr::Const, 17)}),
                                   node(Expr::Or, {leaf(Expr::Y), leaf(Expr::Const, 2)})})});
  Rows rows{{-23, -23, 5, -1}, {0, -300, 0, INT64_MIN}, {0, 0, -3, 7}};
  ASSERT_EQ(eval(t, -23, 0, 0), -253);
  ASSERT_EQ(eval(v, -23, 0, 0), -1);
  // Row 0 by hand: (1 << 3 ^ (-23 & 0)) + -1 * 5 - (0 ^ 17) = 8 - 5 - 17.
  ASSERT_EQ(eval(e, -23, 0, 0), -14);
  const std::vector<Expr> exprs = {e};
  const tack::Kernel k = kernel_of("int_expr_signed_compare", exprs);
  const std::vector<std::int64_t> want = on_host(exprs, rows);
  const std::vector<std::int64_t> got = run(k, dev(), rows, 1);
  if (has_known_miscompile(backend())) {
    // A strict expected failure: the defect must show, and a toolchain that fixed it is reported.
    if (got == want)
      ADD_FAILURE() << "XPASS: this HIP runtime no longer miscompiles the expression; drop the mark for it in "
                       "drivers::hip::has_integer_expression_miscompile (reference, HIP: Known toolchain defect)";
    else
      GTEST_SKIP() << "expected failure (ROCm 7.0/7.1, AMD clang 20 evaluates -253 < -1 as false): row 0 gave "
                   << got[0] << ", the host " << want[0];
    return;
  }
  compare_exact("one expression deciding on -253 < -1", backend(), got, "host", want, describe(exprs, rows));
  if (!on_interp())
    compare_exact("one expression deciding on -253 < -1", "interp", run(k, interp(), rows, 1), "host", want,
                  describe(exprs, rows));
}

}  // namespace
