// Vectors, matrices and quaternions (<tack/vector.hpp>, docs/language.md): every
// function against the same mathematics computed on the host in double
// precision, within the tolerance of docs/semantics.md for f32 arithmetic and
// the device's math library; promotion and weak literals per component; Vars in
// loops and branches; arrays of vec3 and mat33 loaded, stored, += and
// atomic_add. One kernel computes many rows (one output column each), so each
// backend compiles a few kernels, not one per function.
#include "conformance/backend_param.hpp"

#include <array>
#include <cmath>
#include <functional>
#include <regex>
#include <string>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Vectors);

constexpr int kRows = 16;

using H = std::vector<double>;  // a host vector or a row-major matrix, in double

// Values in [-2, 2], none zero or exactly half-way, different per row and column.
std::vector<float> inputs(int n, int width, int seed) {
  std::vector<float> v;
  for (int i = 0; i < n * width; ++i) {
    double x = std::sin(1.7 * (i + 1) + 0.37 * seed) * 1.9;
    if (std::abs(x) < 0.05) x += 0.3;
    v.push_back(static_cast<float>(x));
  }
  return v;
}

// One output column group: what the kernel computes and what the host computes, from a, b (vec3) and s.
struct Row {
  std::string name;
  std::function<std::vector<Value>(const Vec3&, const Vec3&, const Value&)> dev;
  std::function<H(const H&, const H&, double)> host;
  double tol = 2e-5;  // relative to max(1, |want|)
};

std::vector<Value> flat(const Vec3& v) { return {v.x, v.y, v.z}; }
std::vector<Value> flat(const Vec4& v) { return {v.x, v.y, v.z, v.w}; }
std::vector<Value> flat(const Vec2& v) { return {v.x, v.y}; }
std::vector<Value> flat(const Quat& q) { return {q.x, q.y, q.z, q.w}; }
template <int R, int C>
std::vector<Value> flat(const Mat<R, C>& m) {
  std::vector<Value> out;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) out.push_back(m(i, j));
  return out;
}

H map(const H& a, const std::function<double(double)>& f) {
  H out;
  for (double x : a) out.push_back(f(x));
  return out;
}
H zip(const H& a, const H& b, const std::function<double(double, double)>& f) {
  H out;
  for (size_t k = 0; k < a.size(); ++k) out.push_back(f(a[k], b[k]));
  return out;
}
double hdot(const H& a, const H& b) {
  double s = 0;
  for (size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}
H hcross(const H& a, const H& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
// Row-major n x n helpers.
double hdet(const H& m, int n) {
  if (n == 1) return m[0];
  double d = 0;
  for (int j = 0; j < n; ++j) {
    H minor;
    for (int r = 1; r < n; ++r)
      for (int c = 0; c < n; ++c)
        if (c != j) minor.push_back(m[r * n + c]);
    d += (j % 2 ? -1 : 1) * m[j] * hdet(minor, n - 1);
  }
  return d;
}
// Gauss-Jordan with partial pivoting: independent of the cofactor formula the kernel uses.
H hinverse(H m, int n) {
  H inv(n * n, 0.0);
  for (int i = 0; i < n; ++i) inv[i * n + i] = 1;
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int r = c + 1; r < n; ++r)
      if (std::abs(m[r * n + c]) > std::abs(m[p * n + c])) p = r;
    for (int k = 0; k < n; ++k) {
      std::swap(m[c * n + k], m[p * n + k]);
      std::swap(inv[c * n + k], inv[p * n + k]);
    }
    double d = m[c * n + c];
    for (int k = 0; k < n; ++k) m[c * n + k] /= d, inv[c * n + k] /= d;
    for (int r = 0; r < n; ++r) {
      if (r == c) continue;
      double f = m[r * n + c];
      for (int k = 0; k < n; ++k) m[r * n + k] -= f * m[c * n + k], inv[r * n + k] -= f * inv[c * n + k];
    }
  }
  return inv;
}
H hmatmul(const H& a, const H& b, int n, int k, int m) {
  H out(n * m, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      for (int t = 0; t < k; ++t) out[i * m + j] += a[i * k + t] * b[t * m + j];
  return out;
}
H htranspose(const H& a, int n) {
  H out(n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) out[i * n + j] = a[j * n + i];
  return out;
}
// The well-conditioned test matrix of a row: entries from a, b and s, 3 added on the diagonal.
H hmatrix(const H& a, const H& b, double s, int n) {
  const H src = {a[0], a[1], a[2], b[0], b[1], b[2], s};
  H m;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m.push_back(src[(i * n + j) % 7] * 0.5 + (i == j ? 3.0 : 0.0));
  return m;
}
template <int N>
Mat<N, N> dmatrix(const Vec3& a, const Vec3& b, const Value& s) {
  const std::array<Value, 7> src = {a.x, a.y, a.z, b.x, b.y, b.z, s};
  return Mat<N, N>::from_entries(
      [&](int i, int j) { return src[static_cast<size_t>((i * N + j) % 7)] * 0.5 + (i == j ? 3.0 : 0.0); });
}
H hquat_mul(const H& a, const H& b) {
  return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
          a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}
H hnormalize(const H& a) {
  double l = std::sqrt(hdot(a, a));
  return map(a, [&](double x) { return x / l; });
}
H cat(std::initializer_list<H> parts) {
  H out;
  for (const H& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::vector<Value> cat_values(std::vector<Value> a, const std::vector<Value>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

#define DEV_ARGS (const Vec3& a, const Vec3& b, const Value& s)->std::vector<Value>
#define HOST_ARGS (const H& a, const H& b, double s)->H
#define DEV [] DEV_ARGS
#define HOST [] HOST_ARGS

std::vector<Row> vector_rows() {
  std::vector<Row> r;
  auto add = [&](std::string n, auto d, auto h, double tol = 2e-5) { r.push_back({std::move(n), d, h, tol}); };
  add(
      "a + b", DEV { return flat(a + b); }, HOST { return zip(a, b, std::plus<>()); });
  add(
      "a - b", DEV { return flat(a - b); }, HOST { return zip(a, b, std::minus<>()); });
  add(
      "a * b", DEV { return flat(a * b); }, HOST { return zip(a, b, std::multiplies<>()); });
  add(
      "-a", DEV { return flat(-a); }, HOST { return map(a, [](double x) { return -x; }); });
  add(
      "a * s", DEV { return flat(a * s); }, HOST { return map(a, [&](double x) { return x * s; }); });
  add(
      "s * a", DEV { return flat(s * a); }, HOST { return map(a, [&](double x) { return s * x; }); });
  add(
      "a / s", DEV { return flat(a / s); }, HOST { return map(a, [&](double x) { return x / s; }); });
  add(
      "dot", DEV { return {dot(a, b)}; }, HOST { return {hdot(a, b)}; });
  add(
      "cross", DEV { return flat(cross(a, b)); }, HOST { return hcross(a, b); });
  add(
      "length", DEV { return {length(a)}; }, HOST { return {std::sqrt(hdot(a, a))}; });
  add(
      "length_sq", DEV { return {length_sq(a)}; }, HOST { return {hdot(a, a)}; });
  add(
      "normalize", DEV { return flat(normalize(a)); }, HOST { return hnormalize(a); });
  add(
      "vec2 dot, normalize",
      DEV { return cat_values({dot(vec2(a.x, a.y), vec2(b.x, b.y))}, flat(normalize(vec2(a.x, b.y)))); },
      HOST {
        return cat({{a[0] * b[0] + a[1] * b[1]}, hnormalize({a[0], b[1]})});
      });
  add(
      "vec4 dot, length",
      DEV {
        return {dot(vec4(a.x, a.y, a.z, s), vec4(b.x, b.y, b.z, s)), length(vec4(a.x, a.y, a.z, s))};
      },
      HOST {
        return {hdot(a, b) + s * s, std::sqrt(hdot(a, a) + s * s)};
      });
  add(
      "v[k]",
      DEV {
        return {a[0], a[1], a[2], b[2]};
      },
      HOST {
        return {a[0], a[1], a[2], b[2]};
      });
  add(
      "min, max", DEV { return cat_values(flat(min(a, b)), flat(max(a, b))); },
      HOST {
        return cat({zip(a, b, [](double x, double y) { return std::min(x, y); }),
                    zip(a, b, [](double x, double y) { return std::max(x, y); })});
      });
  add(
      "min(a, s), max(s, a)", DEV { return cat_values(flat(min(a, s)), flat(max(s, a))); },
      HOST {
        return cat(
            {map(a, [&](double x) { return std::min(x, s); }), map(a, [&](double x) { return std::max(s, x); })});
      });
  add(
      "abs", DEV { return flat(abs(a)); }, HOST { return map(a, [](double x) { return std::abs(x); }); });
  add(
      "clamp(a, -0.5, 0.5)", DEV { return flat(clamp(a, -0.5f, 0.5f)); },
      HOST { return map(a, [](double x) { return std::min(std::max(x, -0.5), 0.5); }); });
  add(
      "select(scalar)", DEV { return flat(select(s > 0, a, b)); }, HOST { return s > 0 ? a : b; });
  add(
      "select(vector)", DEV { return flat(select(vec3(a.x < b.x, a.y < b.y, a.z < b.z), a, 0)); },
      HOST { return zip(a, b, [](double x, double y) { return x < y ? x : 0.0; }); });
  add(
      "floor", DEV { return flat(floor(a)); }, HOST { return map(a, [](double x) { return std::floor(x); }); });
  add(
      "ceil", DEV { return flat(ceil(a)); }, HOST { return map(a, [](double x) { return std::ceil(x); }); });
  add(
      "round", DEV { return flat(round(a * 2.0f)); },
      HOST { return map(a, [](double x) { return std::nearbyint(float(x * 2)); }); });
  add(
      "trunc", DEV { return flat(trunc(a * 2.0f)); },
      HOST { return map(a, [](double x) { return std::trunc(float(x * 2)); }); });
  add(
      "sqrt", DEV { return flat(sqrt(abs(a))); },
      HOST { return map(a, [](double x) { return std::sqrt(std::abs(x)); }); });
  add(
      "rsqrt", DEV { return flat(rsqrt(abs(a))); },
      HOST { return map(a, [](double x) { return 1 / std::sqrt(std::abs(x)); }); }, 1e-4);
  add(
      "exp", DEV { return flat(exp(a)); }, HOST { return map(a, [](double x) { return std::exp(x); }); });
  add(
      "exp2", DEV { return flat(exp2(a)); }, HOST { return map(a, [](double x) { return std::exp2(x); }); });
  add(
      "log", DEV { return flat(log(abs(a))); },
      HOST { return map(a, [](double x) { return std::log(std::abs(x)); }); });
  add(
      "log2", DEV { return flat(log2(abs(a))); },
      HOST { return map(a, [](double x) { return std::log2(std::abs(x)); }); });
  add(
      "log10", DEV { return flat(log10(abs(a))); },
      HOST { return map(a, [](double x) { return std::log10(std::abs(x)); }); });
  add(
      "sin", DEV { return flat(sin(a)); }, HOST { return map(a, [](double x) { return std::sin(x); }); });
  add(
      "cos", DEV { return flat(cos(a)); }, HOST { return map(a, [](double x) { return std::cos(x); }); });
  add(
      "tan", DEV { return flat(tan(a * 0.5f)); }, HOST { return map(a, [](double x) { return std::tan(x * 0.5); }); });
  add(
      "asin", DEV { return flat(asin(a * 0.25f)); },
      HOST { return map(a, [](double x) { return std::asin(x * 0.25); }); });
  add(
      "acos", DEV { return flat(acos(a * 0.25f)); },
      HOST { return map(a, [](double x) { return std::acos(x * 0.25); }); });
  add(
      "atan", DEV { return flat(atan(a)); }, HOST { return map(a, [](double x) { return std::atan(x); }); });
  add(
      "atan2", DEV { return flat(atan2(a, b)); },
      HOST { return zip(a, b, [](double y, double x) { return std::atan2(y, x); }); });
  add(
      "sinh", DEV { return flat(sinh(a)); }, HOST { return map(a, [](double x) { return std::sinh(x); }); });
  add(
      "cosh", DEV { return flat(cosh(a)); }, HOST { return map(a, [](double x) { return std::cosh(x); }); });
  add(
      "tanh", DEV { return flat(tanh(a)); }, HOST { return map(a, [](double x) { return std::tanh(x); }); });
  add(
      "pow", DEV { return flat(pow(abs(a), b)); },
      HOST { return zip(a, b, [](double x, double y) { return std::pow(std::abs(x), y); }); }, 1e-4);
  add(
      "pow(a, 2)", DEV { return flat(pow(abs(a), 2)); }, HOST { return map(a, [](double x) { return x * x; }); });
  add(
      "fma", DEV { return flat(fma(a, b, s)); },
      HOST { return map(zip(a, b, std::multiplies<>()), [&](double x) { return x + s; }); });
  add(
      "copysign", DEV { return flat(copysign(a, b)); },
      HOST { return zip(a, b, [](double x, double y) { return std::copysign(x, y); }); });
  add(
      "isnan, isinf",
      DEV { return cat_values(flat(select(isnan((a - a) / 0.0f), 1, 0)), flat(select(isinf(a / 0.0f), 1, 0))); },
      HOST { return {1, 1, 1, 1, 1, 1}; });
  add(
      "cast<int>", DEV { return flat(cast<std::int32_t>(a * 3.0f)); },
      HOST { return map(a, [](double x) { return std::trunc(float(x * 3)); }); });
  add(
      "outer", DEV { return flat(outer(a, b)); }, HOST { return hmatmul(a, b, 3, 1, 3); });
  return r;
}

std::vector<Row> matrix_rows() {
  std::vector<Row> r;
  auto add = [&](std::string n, auto d, auto h, double tol = 2e-5) { r.push_back({std::move(n), d, h, tol}); };
  auto m3 = [](const Vec3& a, const Vec3& b, const Value& s) { return dmatrix<3>(a, b, s); };
  auto n3 = [](const Vec3& a, const Vec3& b, const Value& s) { return dmatrix<3>(b, a, s * 0.5f); };
  auto hm3 = [](const H& a, const H& b, double s) { return hmatrix(a, b, s, 3); };
  auto hn3 = [](const H& a, const H& b, double s) { return hmatrix(b, a, s * 0.5, 3); };
  add(
      "m + n", [=] DEV_ARGS { return flat(m3(a, b, s) + n3(a, b, s)); },
      [=] HOST_ARGS { return zip(hm3(a, b, s), hn3(a, b, s), std::plus<>()); });
  add(
      "m - n", [=] DEV_ARGS { return flat(m3(a, b, s) - n3(a, b, s)); },
      [=] HOST_ARGS { return zip(hm3(a, b, s), hn3(a, b, s), std::minus<>()); });
  add(
      "m * n (entries)", [=] DEV_ARGS { return flat(m3(a, b, s) * n3(a, b, s)); },
      [=] HOST_ARGS { return zip(hm3(a, b, s), hn3(a, b, s), std::multiplies<>()); });
  add(
      "m * s, s * m, m / s, -m",
      [=] DEV_ARGS {
        Mat33 m = m3(a, b, s);
        return cat_values(cat_values(flat(m * s), flat(s * m)), cat_values(flat(m / s), flat(-m)));
      },
      [=] HOST_ARGS {
        H m = hm3(a, b, s);
        return cat({map(m, [&](double x) { return x * s; }), map(m, [&](double x) { return s * x; }),
                    map(m, [&](double x) { return x / s; }), map(m, [](double x) { return -x; })});
      });
  add(
      "matmul(m, v)", [=] DEV_ARGS { return flat(matmul(m3(a, b, s), a)); },
      [=] HOST_ARGS { return hmatmul(hm3(a, b, s), a, 3, 3, 1); });
  add(
      "matmul(v, m)", [=] DEV_ARGS { return flat(matmul(a, m3(a, b, s))); },
      [=] HOST_ARGS { return hmatmul(a, hm3(a, b, s), 1, 3, 3); });
  add(
      "matmul(m, n)", [=] DEV_ARGS { return flat(matmul(m3(a, b, s), n3(a, b, s))); },
      [=] HOST_ARGS { return hmatmul(hm3(a, b, s), hn3(a, b, s), 3, 3, 3); });
  add(
      "m[i], m(i, j)",
      [=] DEV_ARGS {
        Mat33 m = m3(a, b, s);
        return cat_values(flat(m[2]), {m(0, 1)});
      },
      [=] HOST_ARGS {
        H m = hm3(a, b, s);
        return {m[6], m[7], m[8], m[1]};
      });
  add(
      "mat33(rows)", DEV { return flat(mat33(a, b, vec3(s, s, s))); },
      HOST {
        return cat({a, b, {s, s, s}});
      });
  add(
      "mat22(values)", DEV { return flat(mat22(a.x, a.y, b.x, s)); },
      HOST {
        return {a[0], a[1], b[0], s};
      });
  add(
      "transpose", [=] DEV_ARGS { return flat(transpose(m3(a, b, s))); },
      [=] HOST_ARGS { return htranspose(hm3(a, b, s), 3); });
  add(
      "trace", [=] DEV_ARGS { return {trace(m3(a, b, s))}; },
      [=] HOST_ARGS {
        H m = hm3(a, b, s);
        return {m[0] + m[4] + m[8]};
      });
  add(
      "diag", DEV { return flat(diag(a)); }, HOST { return {a[0], 0, 0, 0, a[1], 0, 0, 0, a[2]}; });
  add(
      "identity", DEV { return cat_values(flat(identity<3>() * s), flat(identity<2>(tack::DType::F32))); },
      HOST { return {s, 0, 0, 0, s, 0, 0, 0, s, 1, 0, 0, 1}; });
  add(
      "determinant 2, 3, 4",
      DEV {
        return {determinant(dmatrix<2>(a, b, s)), determinant(dmatrix<3>(a, b, s)), determinant(dmatrix<4>(a, b, s))};
      },
      HOST {
        return {hdet(hmatrix(a, b, s, 2), 2), hdet(hmatrix(a, b, s, 3), 3), hdet(hmatrix(a, b, s, 4), 4)};
      });
  add(
      "inverse 2", DEV { return flat(inverse(dmatrix<2>(a, b, s))); },
      HOST { return hinverse(hmatrix(a, b, s, 2), 2); });
  add(
      "inverse 3", DEV { return flat(inverse(dmatrix<3>(a, b, s))); },
      HOST { return hinverse(hmatrix(a, b, s, 3), 3); });
  add(
      "inverse 4", DEV { return flat(inverse(dmatrix<4>(a, b, s))); },
      HOST { return hinverse(hmatrix(a, b, s, 4), 4); });
  add(
      "cast<int>(m)", [=] DEV_ARGS { return flat(cast<std::int32_t>(m3(a, b, s) * 4.0f)); },
      [=] HOST_ARGS { return map(hm3(a, b, s), [](double x) { return std::trunc(float(float(x) * 4)); }); });
  return r;
}

std::vector<Row> quat_rows() {
  std::vector<Row> r;
  auto add = [&](std::string n, auto d, auto h, double tol = 2e-5) { r.push_back({std::move(n), d, h, tol}); };
  auto q = [](const Vec3& a, const Value& s) { return quat(a.x, a.y, a.z, s); };
  auto p = [](const Vec3& b) { return quat(b.x, b.y, b.z, 1); };
  add(
      "quat_mul", [=] DEV_ARGS { return flat(quat_mul(q(a, s), p(b))); },
      HOST {
        return hquat_mul({a[0], a[1], a[2], s}, {b[0], b[1], b[2], 1});
      });
  add(
      "quat_conjugate", [=] DEV_ARGS { return flat(quat_conjugate(q(a, s))); },
      HOST {
        return {-a[0], -a[1], -a[2], s};
      });
  add(
      "dot, length, normalize (quat)",
      [=] DEV_ARGS {
        return cat_values({dot(q(a, s), p(b)), length(q(a, s)), length_sq(p(b))}, flat(normalize(q(a, s))));
      },
      HOST {
        H qa = {a[0], a[1], a[2], s}, pb = {b[0], b[1], b[2], 1};
        return cat({{hdot(qa, pb), std::sqrt(hdot(qa, qa)), hdot(pb, pb)}, hnormalize(qa)});
      });
  add(
      "quat_rotate", [=] DEV_ARGS { return flat(quat_rotate(normalize(q(a, s)), b)); },
      HOST {
        H u = hnormalize({a[0], a[1], a[2], s});
        H r = hquat_mul(hquat_mul(u, {b[0], b[1], b[2], 0}), {-u[0], -u[1], -u[2], u[3]});
        return {r[0], r[1], r[2]};
      });
  add(
      "quat_from_axis_angle", DEV { return flat(quat_from_axis_angle(normalize(a), s)); },
      HOST {
        H u = hnormalize(a);
        return {u[0] * std::sin(s / 2), u[1] * std::sin(s / 2), u[2] * std::sin(s / 2), std::cos(s / 2)};
      });
  add(
      "quat_to_matrix", [=] DEV_ARGS { return flat(quat_to_matrix(normalize(q(a, s)))); },
      HOST {
        H u = hnormalize({a[0], a[1], a[2], s});
        // The rotation's matrix: its columns are the rotated unit vectors.
        H m(9);
        for (int j = 0; j < 3; ++j) {
          H e = {0, 0, 0, 0};
          e[j] = 1;
          H r = hquat_mul(hquat_mul(u, e), {-u[0], -u[1], -u[2], u[3]});
          for (int i = 0; i < 3; ++i) m[i * 3 + j] = r[i];
        }
        return m;
      });
  return r;
}

// Runs every row on kRows inputs on `d` and compares with the host.
void check_rows(const tack::Device& d, const std::string& name, const std::vector<Row>& rows) {
  const std::vector<float> a = inputs(kRows, 3, 1), b = inputs(kRows, 3, 2), s = inputs(kRows, 1, 3);
  int width = 0;
  std::vector<H> want(kRows);
  std::vector<int> first(rows.size());
  for (int i = 0; i < kRows; ++i) {
    H ha(a.begin() + i * 3, a.begin() + i * 3 + 3), hb(b.begin() + i * 3, b.begin() + i * 3 + 3);
    for (size_t r = 0; r < rows.size(); ++r) {
      if (i == 0) first[r] = static_cast<int>(want[0].size());
      H w = rows[r].host(ha, hb, s[i]);
      want[i].insert(want[i].end(), w.begin(), w.end());
    }
  }
  width = static_cast<int>(want[0].size());
  auto k = tack::kernel(name, [rows](Array out, ArrayOf<Vec3> a, ArrayOf<Vec3> b, Array s) {
    parallel_for(s.size(), [&](Index i) {
      const Vec3 x = a[i], y = b[i];
      const Value t = s[i];
      int col = 0;
      for (const Row& r : rows)
        for (const Value& v : r.dev(x, y, t)) out(i, col++) = v;
    });
  });
  // f32 results: every device holds them, so the compile checks (metal too) see these kernels.
  tack::Array out = d.zeros(tack::DType::F32, {kRows, width});
  k(out, d.from_host(a, {kRows, 3}), d.from_host(b, {kRows, 3}), d.from_host(s));
  std::vector<float> got = out.to_host<float>();
  for (size_t r = 0; r < rows.size(); ++r) {
    const int end = r + 1 < rows.size() ? first[r + 1] : width;
    for (int i = 0; i < kRows; ++i)
      for (int c = first[r]; c < end; ++c) {
        const double g = got[static_cast<size_t>(i * width + c)], w = want[i][static_cast<size_t>(c)];
        EXPECT_LE(std::abs(g - w), rows[r].tol * std::max(1.0, std::abs(w)))
            << rows[r].name << ", row " << i << ", entry " << c - first[r] << ": got " << g << ", want " << w;
      }
  }
}

TEST_P(Vectors, EveryVectorFunctionAgainstTheHost) { check_rows(dev(), "vec_functions", vector_rows()); }
TEST_P(Vectors, EveryMatrixFunctionAgainstTheHost) { check_rows(dev(), "mat_functions", matrix_rows()); }
TEST_P(Vectors, EveryQuaternionFunctionAgainstTheHost) { check_rows(dev(), "quat_functions", quat_rows()); }

// Promotion per component: an f32 vector times an f64 scalar computes in f64; a weak literal keeps f32;
// integer vectors stay integers (exact, wrapping as their dtype does).
TEST_P(Vectors, PromotionAndWeakLiteralsPerComponent) {
  if (!has_dtype<double>()) return;
  auto k = tack::kernel("vec_promotion", [](Array out, ArrayOf<Vec3, float> a, ScalarOf<double> s, ArrayOf<Vec3> n) {
    parallel_for(a.shape(0), [&](Index i) {
      const Vec3 v = a[i];
      const Vec3 strong = v * s;  // f64
      const Vec3 weak = v * 0.1;  // f32: the literal adapts
      const Vec3 ints = Vec3(n[i]) * 3 + vec3(1, 2, 3);
      for (int c = 0; c < 3; ++c) {
        out(i, c) = strong[c];
        out(i, c + 3) = weak[c];
        out(i, c + 6) = ints[c];
      }
      out(i, 9) = dot(Vec3(n[i]), Vec3(n[i]));
    });
  });
  const std::vector<float> a = {1.1f, -2.3f, 0.7f, 3.3f, 1e-3f, -5.5f};
  const std::vector<std::int32_t> n = {1, -2, 3, 40000, 5, -6};
  const double s = 1.0 / 3.0;
  tack::Array out = dev().zeros(tack::DType::F64, {2, 10});
  k(out, dev().from_host(a, {2, 3}), s, dev().from_host(n, {2, 3}));
  std::vector<double> got = out.to_host<double>();
  for (int i = 0; i < 2; ++i) {
    std::int64_t sq = 0;
    for (int c = 0; c < 3; ++c) {
      const float x = a[static_cast<size_t>(i * 3 + c)];
      const std::int32_t m = n[static_cast<size_t>(i * 3 + c)];
      EXPECT_EQ(got[static_cast<size_t>(i * 10 + c)], static_cast<double>(x) * s) << "f32 vector * f64 scalar is f64";
      EXPECT_EQ(got[static_cast<size_t>(i * 10 + c + 3)], static_cast<double>(x * 0.1f)) << "a weak literal keeps f32";
      EXPECT_EQ(got[static_cast<size_t>(i * 10 + c + 6)], static_cast<double>(m * 3 + (c + 1)));
      sq += static_cast<std::int64_t>(m) * m;
    }
    EXPECT_EQ(got[static_cast<size_t>(i * 10 + 9)], static_cast<double>(static_cast<std::int32_t>(sq)))
        << "an i32 dot wraps as i32";
  }
}

// Vars of vectors and matrices assigned in loops and branches.
TEST_P(Vectors, VarsInLoopsAndBranches) {
  auto k = tack::kernel("vec_vars", [](ArrayOf<Vec3> out, ArrayOf<Vec3> a, ArrayOf<Mat22> m) {
    parallel_for(out.shape(0), [&](Index i) {
      Vec3Var acc = vec3(0, 0, 0);
      for_range(0, a.shape(0), [&](Index j) { acc += a[j]; });
      if_(
          i % 2 == 0, [&] { acc = -acc; }, [&] { acc *= 2; });
      Mat22Var p = identity<2>();
      Var n = 0;
      while_([&] { return n < 3; },
             [&] {
               p = matmul(p, Mat22(m[i]));
               n += 1;
             });
      acc.x += p(0, 1);
      acc[2] -= 1;
      QuatVar q = quat(0, 0, 0, 1);
      if_(i > 0, [&] { q = quat_mul(q, quat(0, 0, 1, 0)); });
      out[i] = acc + vec3(q.value().z, 0, 0);
    });
  });
  const int n = 4;
  std::vector<float> a = inputs(n, 3, 5), m = inputs(n, 4, 6);
  tack::Array out = dev().zeros(tack::DType::F32, {n, 3});
  k(out, dev().from_host(a, {n, 3}), dev().from_host(m, {n, 2, 2}));
  std::vector<float> got = out.to_host<float>();
  double sum[3] = {0, 0, 0};
  for (int j = 0; j < n; ++j)
    for (int c = 0; c < 3; ++c) sum[c] += a[static_cast<size_t>(j * 3 + c)];
  for (int i = 0; i < n; ++i) {
    const H mi(m.begin() + i * 4, m.begin() + i * 4 + 4);
    const H p = hmatmul(hmatmul(mi, mi, 2, 2, 2), mi, 2, 2, 2);
    for (int c = 0; c < 3; ++c) {
      double want = i % 2 == 0 ? -sum[c] : 2 * sum[c];
      if (c == 0) want += p[1] + (i > 0 ? 1 : 0);
      if (c == 2) want -= 1;
      EXPECT_NEAR(got[static_cast<size_t>(i * 3 + c)], want, 1e-4 * std::max(1.0, std::abs(want))) << i << ", " << c;
    }
  }
}

// Arrays of vec3 ((n, 3) and (h, w, 3)) and mat33 ((n, 3, 3)): load, store, += and atomic_add.
TEST_P(Vectors, ArraysOfVectorsAndMatrices) {
  auto k = tack::kernel(
      "vec_arrays", [](ArrayOf<Vec3> v, ArrayOf<Vec3> grid, ArrayOf<Mat33> m, ArrayOf<Vec3> acc, ArrayOf<Mat33> macc) {
        parallel_for(v.shape(0), [&](Index i) {
          const Vec3 x = v[i];
          v[i] = x * 2;                                // store
          v[i] += vec3(1, 1, 1);                       // load, add, store per component
          grid(i, 1) = grid(i, 0);                     // (h, w, 3): two leading indices
          m[i] += matmul(Mat33(m[i]), identity<3>());  // m + m
          atomic_add(acc, 0, vec3(1, 2, 3));
          atomic_add(macc, 1, identity<3>() * 2);
        });
      });
  const int n = 8;
  std::vector<float> v = inputs(n, 3, 7), grid = inputs(n, 6, 8), m = inputs(n, 9, 9);
  tack::Array dv = dev().from_host(v, {n, 3}), dgrid = dev().from_host(grid, {n, 2, 3}),
              dm = dev().from_host(m, {n, 3, 3});
  tack::Array acc = dev().zeros(tack::DType::F32, {2, 3}), macc = dev().zeros(tack::DType::F32, {2, 3, 3});
  if (!has_atomic<float>()) return;
  k(dv, dgrid, dm, acc, macc);
  std::vector<float> gv = dv.to_host<float>(), gg = dgrid.to_host<float>(), gm = dm.to_host<float>();
  for (size_t e = 0; e < v.size(); ++e) EXPECT_EQ(gv[e], v[e] * 2 + 1) << e;
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(gg[static_cast<size_t>(i * 6 + 3 + c)], grid[static_cast<size_t>(i * 6 + c)]);
      EXPECT_EQ(gg[static_cast<size_t>(i * 6 + c)], grid[static_cast<size_t>(i * 6 + c)]);
    }
  for (size_t e = 0; e < m.size(); ++e) EXPECT_NEAR(gm[e], m[e] * 2, 1e-6) << e;
  EXPECT_EQ(acc.to_host<float>(), (std::vector<float>{8, 16, 24, 0, 0, 0}));
  std::vector<float> want(18, 0);
  for (int d = 0; d < 3; ++d) want[static_cast<size_t>(9 + d * 4)] = 16;
  EXPECT_EQ(macc.to_host<float>(), want);
}

// Named Vars show their names in inspect's IR and only there: the kernel's text (its hash, its cache
// key) and the generated code are those of the unnamed kernel.
TEST(VectorNames, NamedVarsShowInInspectAndNowhereElse) {
  auto make = [](bool named) {
    return tack::kernel("vec_named", [named](ArrayOf<Vec3> out, ArrayOf<Vec3> a) {
      parallel_for(out.shape(0), [&](Index i) {
        Vec3Var acc = vec3(0, 0, 0);
        Mat22Var m = identity<2>();
        QuatVar q = quat(0, 0, 0, 1);
        Var n = 0;
        if (named) {
          acc.name("acc");
          m.name("m");
          q.name("q");
          n.name("n");
        }
        for_range(0, a.shape(0), [&](Index j) {
          acc += a[j];
          m = m * 2;
          q = quat_mul(q, q);
          n += 1;
        });
        out[i] = acc * n + vec3(m(0, 1), q.value().w, 0);
      });
    });
  };
  const tack::ArraySpec spec{tack::DType::F32, 2};
  tack::Inspection named = tack::inspect(make(true), "interp", spec, spec);
  tack::Inspection plain = tack::inspect(make(false), "interp", spec, spec);
  for (const char* name : {"acc.x", "acc.z", "m[0, 1]", "m[1, 1]", "q.w", "n"})
    EXPECT_TRUE(named.typed_ir.find(std::string(": f32  # ") + name + "\n") != std::string::npos ||
                named.typed_ir.find(std::string(": i32  # ") + name + "\n") != std::string::npos)
        << name << " is missing from\n"
        << named.typed_ir;
  EXPECT_NE(named.ir.find("# v0: acc.x\n"), std::string::npos) << named.ir;
  EXPECT_EQ(plain.typed_ir.find("  # "), std::string::npos) << plain.typed_ir;
  EXPECT_EQ(std::regex_replace(named.typed_ir, std::regex("  # [^\n]*"), ""), plain.typed_ir);
  EXPECT_EQ(named.source, plain.source);
  EXPECT_EQ(std::regex_replace(named.ir, std::regex("# v[0-9]+: [^\n]*\n"), ""), plain.ir);
}

}  // namespace
