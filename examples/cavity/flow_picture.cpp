// Draws the cavity flow on the host: |u|/U in viridis, streamlines as contours
// of the stream function psi at the levels of Ghia et al.'s figures (so the
// tiny corner eddies show too), and arrowheads along them for the direction.
#include "flow_picture.hpp"

#include "../common/image.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace cavity {
namespace {

// Bilinear interpolation of a cell-centred field at (x, y) in cell units
// (cell (row, col) has its centre at x = col + 0.5, y = row + 0.5).
float sample(const std::vector<float>& f, std::int64_t n, double x, double y) {
  const double fx = std::clamp(x - 0.5, 0.0, double(n - 1)), fy = std::clamp(y - 0.5, 0.0, double(n - 1));
  const std::int64_t x0 = std::min<std::int64_t>(std::int64_t(fx), n - 2),
                     y0 = std::min<std::int64_t>(std::int64_t(fy), n - 2);
  const double tx = fx - double(x0), ty = fy - double(y0);
  auto at = [&](std::int64_t r, std::int64_t c) { return double(f[r * n + c]); };
  return float((1 - ty) * ((1 - tx) * at(y0, x0) + tx * at(y0, x0 + 1)) +
               ty * ((1 - tx) * at(y0 + 1, x0) + tx * at(y0 + 1, x0 + 1)));
}

// psi / (U L) at the cell corners, {n + 1} x {n + 1}, from u = d psi / dy.
// Integrated from the bottom wall (psi = 0) alone, psi misses 0 at the lid by
// ~1e-4 (the cell-centred sum is not the lattice's exact mass flux), more than
// the corner eddies' psi ~1e-6. So integrate up from the bottom and down from
// the lid and blend the two across the middle, where psi is large: each wall
// then keeps its own exact zero and the eddies beside it. The side walls' corner
// columns use u = 0 outside the cavity, so psi is 0 there too.
std::vector<double> stream_function(const Velocity& vel, double lid_u) {
  const std::int64_t n = vel.n, m = n + 1;
  auto flux = [&](std::int64_t row, std::int64_t i) {  // u dy between corner columns i-1/2 and i+1/2
    auto u = [&](std::int64_t col) { return (col < 0 || col >= n) ? 0.0 : double(vel.u(row, col)); };
    return 0.5 * (u(i - 1) + u(i)) / (lid_u * double(n));
  };
  std::vector<double> up(m * m, 0.0), down(m * m, 0.0), psi(m * m);
  for (std::int64_t j = 1; j <= n; ++j)
    for (std::int64_t i = 0; i <= n; ++i) up[j * m + i] = up[(j - 1) * m + i] + flux(j - 1, i);
  for (std::int64_t j = n - 1; j >= 0; --j)
    for (std::int64_t i = 0; i <= n; ++i) down[j * m + i] = down[(j + 1) * m + i] - flux(j, i);
  for (std::int64_t j = 0; j <= n; ++j) {
    const double y = double(j) / double(n);
    const double t = std::clamp((y - 0.25) / 0.5, 0.0, 1.0), w = t * t * (3 - 2 * t);
    for (std::int64_t i = 0; i <= n; ++i) psi[j * m + i] = (1 - w) * up[j * m + i] + w * down[j * m + i];
  }
  return psi;
}

}  // namespace

bool draw_flow(const std::string& path, const Velocity& vel, double lid_u, const std::string& title) {
  using examples::Rgb;
  const std::int64_t n = vel.n;
  const int s = std::max(1, int((512 + n - 1) / n));  // pixels per cell
  const int side = int(n) * s, margin = 12, top = 34, bottom = 52;
  examples::Image img(side + 2 * margin, side + top + bottom);
  const Rgb ink{0.1f, 0.1f, 0.1f}, white{1, 1, 1};

  // Speed, sampled at each pixel centre.
  std::vector<float> speed(vel.ux.size());
  for (std::size_t i = 0; i < speed.size(); ++i) speed[i] = std::hypot(vel.ux[i], vel.uy[i]) / float(lid_u);
  for (int py = 0; py < side; ++py)
    for (int px = 0; px < side; ++px) {
      const double x = (px + 0.5) / s, y = double(n) - (py + 0.5) / s;  // row 0 is at the bottom
      img.set(margin + px, top + py, examples::viridis(sample(speed, n, x, y)));
    }
  auto to_px = [&](double x, double y) {  // cavity cell units -> image pixels
    return std::pair<float, float>{float(margin + x * s), float(top + (double(n) - y) * s)};
  };

  // Streamlines: marching squares on psi at the cell corners.
  const std::vector<double> psi = stream_function(vel, lid_u);
  const std::int64_t m = n + 1;
  const double levels[] = {-0.1175, -0.115, -0.11, -0.1, -0.09, -0.07,  -0.05, -0.03, -0.01,  1e-8,
                           1e-7,    1e-6,   1e-5,  5e-5, 1e-4,  2.5e-4, 5e-4,  1e-3,  1.5e-3, 3e-3};
  const std::int64_t arrow_every = std::max<std::int64_t>(4, n / 8);  // cells between arrowheads
  for (double level : levels) {
    const bool eddy = level > 0;  // counter-rotating corner eddies
    const Rgb colour = eddy ? Rgb{1.0f, 0.55f, 0.45f} : white;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) {
        // Corners counter-clockwise from bottom-left; an edge is crossed where
        // psi - level changes sign along it.
        const double c[4] = {psi[j * m + i] - level, psi[j * m + i + 1] - level, psi[(j + 1) * m + i + 1] - level,
                             psi[(j + 1) * m + i] - level};
        const double cx[4] = {0, 1, 1, 0}, cy[4] = {0, 0, 1, 1};
        double hx[4], hy[4];
        int hits = 0;
        for (int e = 0; e < 4; ++e) {
          const int a = e, b = (e + 1) % 4;
          if ((c[a] < 0) != (c[b] < 0)) {
            const double t = c[a] / (c[a] - c[b]);
            hx[hits] = double(i) + cx[a] + t * (cx[b] - cx[a]);
            hy[hits] = double(j) + cy[a] + t * (cy[b] - cy[a]);
            ++hits;
          }
        }
        for (int h = 0; h + 1 < hits; h += 2) {  // 2 or 4 crossings: 1 or 2 segments
          auto [x0, y0] = to_px(hx[h], hy[h]);
          auto [x1, y1] = to_px(hx[h + 1], hy[h + 1]);
          img.line(x0, y0, x1, y1, colour, 1.3f, 0.9f);
          // An arrowhead where the line crosses every arrow_every-th column
          // (if it runs mostly sideways) or row (if mostly up or down).
          const bool sideways = std::fabs(hx[h + 1] - hx[h]) >= std::fabs(hy[h + 1] - hy[h]);
          if ((sideways ? i : j) % arrow_every != arrow_every / 2) continue;
          const double mx = 0.5 * (hx[h] + hx[h + 1]), my = 0.5 * (hy[h] + hy[h + 1]);
          const double u = sample(vel.ux, n, mx, my), v = sample(vel.uy, n, mx, my);
          const double len = std::hypot(u, v);
          if (len == 0) continue;
          const double dx = u / len, dy = -v / len;  // image y points down
          auto [tx, ty] = to_px(mx, my);
          const float a = 5.0f;
          img.line(tx, ty, float(tx - a * (dx + 0.6 * dy)), float(ty - a * (dy - 0.6 * dx)), colour, 1.6f);
          img.line(tx, ty, float(tx - a * (dx - 0.6 * dy)), float(ty - a * (dy + 0.6 * dx)), colour, 1.6f);
        }
      }
  }

  // The lid: a bar above the cavity with an arrow to the right.
  img.fill_rect(margin, top - 5, margin + side, top, ink);
  img.text(margin, 6, title, ink, 2);
  img.line(float(margin + side - 70), 13, float(margin + side - 10), 13, ink, 2);
  img.line(float(margin + side - 10), 13, float(margin + side - 18), 8, ink, 2);
  img.line(float(margin + side - 10), 13, float(margin + side - 18), 18, ink, 2);
  img.text(margin + side - 76, 6, "lid", ink, 2, 2);

  // Colour bar for |u| / U.
  const int by = top + side + 10, bw = side - 120;
  for (int x = 0; x < bw; ++x)
    img.fill_rect(margin + x, by, margin + x + 1, by + 12, examples::viridis(float(x) / float(bw - 1)));
  img.text(margin, by + 16, "0", ink, 2);
  img.text(margin + bw, by + 16, "1", ink, 2, 2);
  img.text(margin + bw + 12, by + 1, "|u| / U", ink, 2);
  img.text(margin + bw + 12, by + 20, "lines: psi", ink, 2);
  return img.write_png(path);
}

}  // namespace cavity
