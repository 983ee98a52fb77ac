// Trilinear sampling of a Texture3D at normalized coordinates (0 and 1 are the centres of the edge texels).
#include "interp/texture_sample.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace tack::interp {
namespace {

// The two texels around a coordinate along one axis of n texels, and the weight of the second.
struct Axis {
  std::int64_t i0, i1;
  float frac;
};

// One f32 operation, rounded. Arithmetic goes through ir::eval_op so that the compiler cannot fuse a product
// into a sum (GCC's C++ default is -ffp-contract=fast), whatever -march the library is built for.
float apply(ir::OpCode op, float x, float y) {
  ir::Bits operands[2] = {std::bit_cast<std::uint32_t>(x), std::bit_cast<std::uint32_t>(y)};
  return std::bit_cast<float>(static_cast<std::uint32_t>(ir::eval_op(op, DType::F32, operands)));
}

Axis axis(float u, std::int64_t n) {
  float c = u > 0.0f ? (u < 1.0f ? u : 1.0f) : 0.0f;  // clamp; NaN fails "u > 0" and becomes 0
  float x = apply(ir::OpCode::Mul, c, static_cast<float>(n - 1));
  float x0 = std::floor(x);
  std::int64_t i0 = std::min(static_cast<std::int64_t>(x0), n - 1);  // x is in [0, n - 1] up to rounding
  return {i0, std::min(i0 + 1, n - 1), apply(ir::OpCode::Sub, x, x0)};
}

// (1 - f) * a + f * b.
float lerp(float a, float b, float f) {
  float wa = apply(ir::OpCode::Sub, 1.0f, f);
  return apply(ir::OpCode::Add, apply(ir::OpCode::Mul, wa, a), apply(ir::OpCode::Mul, f, b));
}

}  // namespace

float texture_sample(const TextureArg& t, float u, float v, float w) {
  Axis ax = axis(u, t.width), ay = axis(v, t.height), az = axis(w, t.depth);
  auto texel = [&](std::int64_t x, std::int64_t y, std::int64_t z) { return t.data[(z * t.height + y) * t.width + x]; };
  auto row = [&](std::int64_t y, std::int64_t z) { return lerp(texel(ax.i0, y, z), texel(ax.i1, y, z), ax.frac); };
  auto plane = [&](std::int64_t z) { return lerp(row(ay.i0, z), row(ay.i1, z), ay.frac); };
  return lerp(plane(az.i0), plane(az.i1), az.frac);
}

}  // namespace tack::interp
