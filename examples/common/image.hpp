// A small RGB canvas for the examples' pictures: anti-aliased lines and discs,
// text from stb_easy_font, a colour map, and PNG output through stb_image_write.
// Drawing happens on the host; the kernels only produce the numbers.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace examples {

struct Rgb {
  float r = 0, g = 0, b = 0;  // 0..1
};

class Image {
 public:
  Image(int width, int height, Rgb background = {1, 1, 1});

  int width() const { return w_; }
  int height() const { return h_; }
  Rgb get(int x, int y) const { return px_[static_cast<std::size_t>(y) * w_ + x]; }
  void set(int x, int y, Rgb c);
  // Mixes c over the pixel with coverage a (0..1); outside the image: nothing.
  void blend(int x, int y, Rgb c, float a);
  void fill_rect(int x0, int y0, int x1, int y1, Rgb c);  // inclusive-exclusive
  // A line of the given width (pixels) with anti-aliased edges; pixel centres
  // are at integer + 0.5.
  void line(float x0, float y0, float x1, float y1, Rgb c, float width = 1.0f, float alpha = 1.0f);
  void disc(float cx, float cy, float radius, Rgb c, float alpha = 1.0f);
  void ring(float cx, float cy, float radius, Rgb c, float width = 1.0f);
  // Text with its top-left corner at (x, y); scale multiplies stb_easy_font's
  // ~6x7 pixel glyphs. align: 0 left, 1 centre, 2 right.
  void text(int x, int y, const std::string& s, Rgb c, int scale = 2, int align = 0);
  static int text_width(const std::string& s, int scale = 2);
  // Writes an 8-bit RGB PNG; returns false (and says why on stderr) on failure.
  bool write_png(const std::string& path) const;

 private:
  int w_, h_;
  std::vector<Rgb> px_;
};

// The viridis colour map (dark blue -> green -> yellow), t clamped to [0, 1].
Rgb viridis(float t);
// An "inferno"-like map (black -> red -> yellow -> white) for volumes and fractals.
Rgb inferno(float t);

}  // namespace examples
