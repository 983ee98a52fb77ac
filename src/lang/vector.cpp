// The bodies of <tack/vector.hpp> that are not small templates: cross, the
// cofactor determinant and inverse, quaternions and array element components.
// Each formula is the one of docs/language.md ("Vectors, matrices and
// quaternions"), operand order and association included, which the Python front
// end writes alike so that the same kernel gives the same typed IR.
#include "lang/trace_context.hpp"

#include <tack/error.hpp>
#include <tack/vector.hpp>

#include <string>

namespace tack::lang {

void detail::bad_component_index(const char* type, int index, int size, const std::source_location& loc) {
  const std::string msg = "index " + std::to_string(index) + " is out of range for a " + type + " (" +
                          std::to_string(size) + " entries, indices 0 to " + std::to_string(size - 1) + ")";
  if (TraceContext::active()) TraceContext::current("vector index").fail(to_loc(loc), msg);
  throw InvalidArgument(msg + " at " + loc.file_name() + ":" + std::to_string(loc.line()));
}

Value dot(const Quat& a, const Quat& b) { return dot(a.vec(), b.vec()); }
Value length_sq(const Quat& q) { return length_sq(q.vec()); }
Value length(const Quat& q) { return length(q.vec()); }
Quat normalize(const Quat& q) { return Quat(normalize(q.vec())); }

Vec3 cross(const Vec3& a, const Vec3& b) {
  return Vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

namespace {
// m without row r and column c, the remaining rows and columns in order.
std::vector<Value> minor_of(const std::vector<Value>& m, int n, int r, int c) {
  std::vector<Value> out;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != r && j != c) out.push_back(m[static_cast<std::size_t>(i * n + j)]);
  return out;
}
Value cofactor(const std::vector<Value>& m, int n, int i, int j) {
  Value d = detail::determinant(minor_of(m, n, i, j), n - 1);
  return (i + j) % 2 == 0 ? d : -d;
}
}  // namespace

Value detail::determinant(const std::vector<Value>& m, int n) {
  if (n == 1) return m[0];
  Value sum = m[0] * cofactor(m, n, 0, 0);
  for (int j = 1; j < n; ++j) sum = sum + m[static_cast<std::size_t>(j)] * cofactor(m, n, 0, j);
  return sum;
}

std::vector<Value> detail::inverse(const std::vector<Value>& m, int n) {
  Value d = determinant(m, n);
  std::vector<Value> out;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) out.push_back(cofactor(m, n, j, i) / d);
  return out;
}

Quat quat_mul(const Quat& a, const Quat& b) {
  return Quat(((a.w * b.x + a.x * b.w) + a.y * b.z) - a.z * b.y, ((a.w * b.y - a.x * b.z) + a.y * b.w) + a.z * b.x,
              ((a.w * b.z + a.x * b.y) - a.y * b.x) + a.z * b.w, ((a.w * b.w - a.x * b.x) - a.y * b.y) - a.z * b.z);
}

Quat quat_conjugate(const Quat& q) { return Quat(-q.x, -q.y, -q.z, q.w); }

Vec3 quat_rotate(const Quat& q, const Vec3& v) {
  const Vec3 u(q.x, q.y, q.z);
  const Vec3 t = cross(u, v) * 2;
  return (v + t * q.w) + cross(u, t);
}

Quat quat_from_axis_angle(const Vec3& axis, const Value& angle) {
  const Value h = angle * 0.5;
  const Value s = sin(h);
  return Quat(axis.x * s, axis.y * s, axis.z * s, cos(h));
}

Mat33 quat_to_matrix(const Quat& q) {
  const Value &x = q.x, &y = q.y, &z = q.z, &w = q.w;
  return Mat33(1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),  //
               2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),  //
               2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y));
}

ElementRef detail::element_component(const Array& a, const std::vector<Value>& lead, int k, int cols,
                                     const std::source_location& loc) {
  std::vector<Value> idx = lead;
  if (cols == 0) {
    idx.push_back(Value(k));
  } else {
    idx.push_back(Value(k / cols));
    idx.push_back(Value(k % cols));
  }
  if (idx.size() > 4) {
    auto& ctx = TraceContext::current("array element");
    ctx.fail(to_loc(loc), "argument " + std::to_string(a.index()) + ": an element of a matrix array is indexed with " +
                              std::to_string(lead.size()) + " leading indices, but arrays have at most 4 dimensions (" +
                              "so at most 2 leading indices before a matrix's row and column)");
  }
  const Located first(idx[0], loc);
  switch (idx.size()) {
    case 2: return a(first, idx[1]);
    case 3: return a(first, idx[1], idx[2]);
    default: return a(first, idx[1], idx[2], idx[3]);
  }
}

}  // namespace tack::lang
