// The Image canvas and the one translation unit that compiles stb_image_write.
#include "image.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

// stb_easy_font is a header of static functions; it builds glyphs out of quads.
#include <stb_easy_font.h>

namespace examples {

Image::Image(int width, int height, Rgb background)
    : w_(width), h_(height), px_(static_cast<std::size_t>(width) * height, background) {}

void Image::set(int x, int y, Rgb c) {
  if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
  px_[static_cast<std::size_t>(y) * w_ + x] = c;
}

void Image::blend(int x, int y, Rgb c, float a) {
  if (x < 0 || y < 0 || x >= w_ || y >= h_ || a <= 0) return;
  a = std::min(a, 1.0f);
  Rgb& p = px_[static_cast<std::size_t>(y) * w_ + x];
  p = {p.r + (c.r - p.r) * a, p.g + (c.g - p.g) * a, p.b + (c.b - p.b) * a};
}

void Image::fill_rect(int x0, int y0, int x1, int y1, Rgb c) {
  for (int y = std::max(y0, 0); y < std::min(y1, h_); ++y)
    for (int x = std::max(x0, 0); x < std::min(x1, w_); ++x) set(x, y, c);
}

void Image::line(float x0, float y0, float x1, float y1, Rgb c, float width, float alpha) {
  // Coverage from the distance of each pixel centre to the segment: cheap
  // anti-aliasing that also gives round caps, so polylines join smoothly.
  const float r = 0.5f * width;
  const float dx = x1 - x0, dy = y1 - y0;
  const float len2 = dx * dx + dy * dy;
  const int xa = static_cast<int>(std::floor(std::min(x0, x1) - r - 1));
  const int xb = static_cast<int>(std::ceil(std::max(x0, x1) + r + 1));
  const int ya = static_cast<int>(std::floor(std::min(y0, y1) - r - 1));
  const int yb = static_cast<int>(std::ceil(std::max(y0, y1) + r + 1));
  for (int y = std::max(ya, 0); y <= std::min(yb, h_ - 1); ++y) {
    for (int x = std::max(xa, 0); x <= std::min(xb, w_ - 1); ++x) {
      const float px = x + 0.5f - x0, py = y + 0.5f - y0;
      const float t = len2 > 0 ? std::clamp((px * dx + py * dy) / len2, 0.0f, 1.0f) : 0.0f;
      const float ex = px - t * dx, ey = py - t * dy;
      const float d = std::sqrt(ex * ex + ey * ey);
      blend(x, y, c, alpha * std::clamp(r + 0.5f - d, 0.0f, 1.0f));
    }
  }
}

void Image::disc(float cx, float cy, float radius, Rgb c, float alpha) { line(cx, cy, cx, cy, c, 2 * radius, alpha); }

void Image::ring(float cx, float cy, float radius, Rgb c, float width) {
  const int x0 = static_cast<int>(cx - radius - width - 1), x1 = static_cast<int>(cx + radius + width + 1);
  const int y0 = static_cast<int>(cy - radius - width - 1), y1 = static_cast<int>(cy + radius + width + 1);
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) {
      const float d = std::hypot(x + 0.5f - cx, y + 0.5f - cy);
      blend(x, y, c, std::clamp(0.5f * width + 0.5f - std::fabs(d - radius), 0.0f, 1.0f));
    }
}

void Image::text(int x, int y, const std::string& s, Rgb c, int scale, int align) {
  if (align != 0) x -= text_width(s, scale) / (align == 1 ? 2 : 1);
  // Each quad is 4 vertices of {x, y, z, rgba}; the glyph segments are axis-aligned
  // rectangles, so filling each quad's bounding box draws them exactly.
  std::vector<char> buf(s.size() * 64 * 24 + 64);  // room for the busiest glyphs' quads
  std::string copy = s;
  const int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, buf.data(), static_cast<int>(buf.size()));
  for (int q = 0; q < quads; ++q) {
    const float* v0 = reinterpret_cast<const float*>(buf.data() + q * 64);
    const float* v2 = reinterpret_cast<const float*>(buf.data() + q * 64 + 32);
    fill_rect(x + static_cast<int>(v0[0] * scale), y + static_cast<int>(v0[1] * scale),
              x + static_cast<int>(v2[0] * scale), y + static_cast<int>(v2[1] * scale), c);
  }
}

int Image::text_width(const std::string& s, int scale) {
  std::string copy = s;
  return stb_easy_font_width(copy.data()) * scale;
}

bool Image::write_png(const std::string& path) const {
  std::vector<unsigned char> bytes(px_.size() * 3);
  auto to8 = [](float v) { return static_cast<unsigned char>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  for (std::size_t i = 0; i < px_.size(); ++i) {
    bytes[3 * i] = to8(px_[i].r);
    bytes[3 * i + 1] = to8(px_[i].g);
    bytes[3 * i + 2] = to8(px_[i].b);
  }
  if (!stbi_write_png(path.c_str(), w_, h_, 3, bytes.data(), w_ * 3)) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

namespace {
// Piecewise-linear colour map through evenly spaced control points.
template <std::size_t N>
Rgb ramp(const std::array<Rgb, N>& pts, float t) {
  t = std::clamp(std::isnan(t) ? 0.0f : t, 0.0f, 1.0f) * static_cast<float>(N - 1);
  const std::size_t i = std::min(static_cast<std::size_t>(t), N - 2);
  const float f = t - static_cast<float>(i);
  const Rgb a = pts[i], b = pts[i + 1];
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}
}  // namespace

Rgb viridis(float t) {
  // Sampled at t = 0, 0.1, ..., 1.
  static const std::array<Rgb, 11> pts = {{{0.267f, 0.005f, 0.329f},
                                           {0.283f, 0.141f, 0.458f},
                                           {0.254f, 0.265f, 0.530f},
                                           {0.207f, 0.372f, 0.553f},
                                           {0.164f, 0.471f, 0.558f},
                                           {0.128f, 0.567f, 0.551f},
                                           {0.134f, 0.658f, 0.518f},
                                           {0.267f, 0.749f, 0.441f},
                                           {0.478f, 0.821f, 0.318f},
                                           {0.741f, 0.873f, 0.150f},
                                           {0.993f, 0.906f, 0.144f}}};
  return ramp(pts, t);
}

Rgb inferno(float t) {
  static const std::array<Rgb, 7> pts = {{{0.001f, 0.000f, 0.014f},
                                          {0.164f, 0.043f, 0.341f},
                                          {0.416f, 0.091f, 0.433f},
                                          {0.665f, 0.182f, 0.373f},
                                          {0.881f, 0.359f, 0.190f},
                                          {0.979f, 0.646f, 0.040f},
                                          {0.988f, 0.998f, 0.645f}}};
  return ramp(pts, t);
}

}  // namespace examples
