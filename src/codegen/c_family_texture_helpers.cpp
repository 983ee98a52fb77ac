// The C-family emitter's texture helpers: trilinear sampling in software, as
// the interpreter computes it, and the hardware path's texel-centre mapping
// for dialects with texture units. Each is a raw-string C template.
#include "codegen/c_family.hpp"

#include "codegen/c_template.hpp"

namespace tack::codegen {

namespace {

// As the interpreter: clamp, scale to texel space, lerp with one rounding per operation (products never
// fuse: each is unfused_mul). A NaN coordinate fails u > 0 and becomes 0.
constexpr std::string_view kTextureSample = R"(${Q} float tack_lerp(float a, float b, float f) {
  const float wa = ${mul_a};
  const float wb = ${mul_b};
  return wa + wb;
}
${Q} float tack_texel_x(float u, ${I64} n) {
  const float c = u > 0.0f ? (u < 1.0f ? u : 1.0f) : 0.0f;
  return ${scaled};
}
${Q} float tack_texture_sample(${P} t, ${I64} w, ${I64} h, ${I64} d, float u, float v, float s) {
${axes}  #define TACK_TEXEL(x, y, z) t[((z) * h + (y)) * w + (x)]
  const float p0 = tack_lerp(tack_lerp(TACK_TEXEL(x0, y0, z0), TACK_TEXEL(x1, y0, z0), fx),
                             tack_lerp(TACK_TEXEL(x0, y1, z0), TACK_TEXEL(x1, y1, z0), fx), fy);
  const float p1 = tack_lerp(tack_lerp(TACK_TEXEL(x0, y0, z1), TACK_TEXEL(x1, y0, z1), fx),
                             tack_lerp(TACK_TEXEL(x0, y1, z1), TACK_TEXEL(x1, y1, z1), fx), fy);
  #undef TACK_TEXEL
  return tack_lerp(p0, p1, fz);
}
)";

// One axis of the software sample: the two texels around coordinate `c` of extent `n`, and the weight.
constexpr std::string_view kTextureAxis = R"(  const float ${x}x = tack_texel_x(${c}, ${n});
  const float ${x}f0 = ${floor}(${x}x);
  const ${I64} ${x}0 = (${I64})${x}f0 < ${n} - 1 ? (${I64})${x}f0 : ${n} - 1;
  const ${I64} ${x}1 = ${x}0 + 1 < ${n} - 1 ? ${x}0 + 1 : ${n} - 1;
  const float f${x} = ${x}x - ${x}f0;
)";

// The software path's coordinates put texel i of n at u = i / (n - 1); the hardware's centres are at
// (i + 0.5) / n (reference: Textures). Clamped first as in software, so NaN reads texel 0 and no
// coordinate leaves [0, 1]; the filtering itself is the texture unit's (9-bit fixed-point weights).
// u runs along the width (the fastest-varying index of the array), v the height, s the depth.
constexpr std::string_view kHardwareTextureSample = R"(${Q} float tack_texel_centre(float u, ${I64} n) {
  const float c = u > 0.0f ? (u < 1.0f ? u : 1.0f) : 0.0f;
  return (c * (float)(n - 1) + 0.5f) / (float)n;
}
${Q} float tack_texture_sample_hw(${object} t, ${I64} w, ${I64} h, ${I64} d, float u, float v, float s) {
  return ${fetch};
}
)";

}  // namespace

std::string CFamilyCodeGen::texture_sample_helper() {
  return helper("tack_texture_sample", [&] {
    const std::string I64 = type_name(DType::I64);
    const std::string floor = math("floor", DType::F32);
    auto axis = [&](const char* x, const char* n, const char* c) {
      return fill_template(kTextureAxis, {{"x", x}, {"n", n}, {"c", c}, {"I64", I64}, {"floor", floor}});
    };
    return fill_template(kTextureSample, {{"Q", helper_qualifier()},
                                          {"I64", I64},
                                          {"P", global_pointer(DType::F32, true)},
                                          {"mul_a", unfused_mul(DType::F32, "(1.0f - f)", "a")},
                                          {"mul_b", unfused_mul(DType::F32, "f", "b")},
                                          {"scaled", unfused_mul(DType::F32, "c", "(float)(n - 1)")},
                                          {"axes", axis("x", "w", "u") + axis("y", "h", "v") + axis("z", "d", "s")}});
  });
}

std::string CFamilyCodeGen::hardware_texture_sample_helper() {
  return helper("tack_texture_sample_hw", [&] {
    return fill_template(kHardwareTextureSample,
                         {{"Q", helper_qualifier()},
                          {"I64", type_name(DType::I64)},
                          {"object", texture_object_type()},
                          {"fetch", texture_fetch("t", "tack_texel_centre(u, w)", "tack_texel_centre(v, h)",
                                                  "tack_texel_centre(s, d)")}});
  });
}

}  // namespace tack::codegen
