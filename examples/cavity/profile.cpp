// Centreline profile, comparison with Ghia et al. (1982), CSV and plot.
#include "profile.hpp"

#include "../common/image.hpp"
#include "ghia.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cavity {

Profile centreline(const Velocity& vel, double lid_u) {
  const std::int64_t n = vel.n;
  Profile p;
  p.y.push_back(0.0);  // the bottom wall: no slip
  p.u.push_back(0.0);
  for (std::int64_t row = 0; row < n; ++row) {
    // Cell centres sit half a cell from the walls; with an even n the line
    // x = 0.5 runs between two columns, so take their mean.
    const double u = (n % 2 == 0) ? 0.5 * (double(vel.u(row, n / 2 - 1)) + vel.u(row, n / 2)) : vel.u(row, n / 2);
    p.y.push_back((double(row) + 0.5) / double(n));
    p.u.push_back(u / lid_u);
  }
  p.y.push_back(1.0);  // the lid
  p.u.push_back(1.0);
  return p;
}

double Profile::at(double yy) const {
  auto it = std::upper_bound(y.begin(), y.end(), yy);
  if (it == y.begin()) return u.front();
  if (it == y.end()) return u.back();
  const std::size_t i = static_cast<std::size_t>(it - y.begin());
  const double t = (yy - y[i - 1]) / (y[i] - y[i - 1]);
  return u[i - 1] + t * (u[i] - u[i - 1]);
}

Comparison compare_with_ghia(const Profile& p, const std::array<double, 17>& ghia) {
  Comparison c;
  for (std::size_t i = 0; i < kGhiaY.size(); ++i) {
    c.tack_u[i] = p.at(kGhiaY[i]);
    const double d = std::fabs(c.tack_u[i] - ghia[i]);
    if (d > c.max_deviation) c.max_deviation = d, c.worst_y = kGhiaY[i];
  }
  return c;
}

bool write_csv(const std::string& path, const Profile& p, const std::array<double, 17>* ghia) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  // Ghia's 17 points, the simulation interpolated there, and the difference.
  std::fprintf(f, "y,u_tack,u_ghia,difference\n");
  for (std::size_t i = 0; i < kGhiaY.size(); ++i) {
    const double u = p.at(kGhiaY[i]);
    if (ghia)
      std::fprintf(f, "%.4f,%.5f,%.5f,%+.5f\n", kGhiaY[i], u, (*ghia)[i], u - (*ghia)[i]);
    else
      std::fprintf(f, "%.4f,%.5f,,\n", kGhiaY[i], u);
  }
  return std::fclose(f) == 0;
}

bool plot_profile(const std::string& path, const Profile& p, const std::array<double, 17>* ghia,
                  const std::string& title) {
  using examples::Rgb;
  const int W = 560, H = 560, left = 70, right = 30, top = 46, bottom = 62;
  const double umin = -0.5, umax = 1.0;  // horizontal axis: u/U; vertical: y
  examples::Image img(W, H);
  const int pw = W - left - right, ph = H - top - bottom;
  auto px = [&](double u) { return float(left + (u - umin) / (umax - umin) * pw); };
  auto py = [&](double y) { return float(top + (1.0 - y) * ph); };
  const Rgb grid{0.88f, 0.88f, 0.88f}, ink{0.1f, 0.1f, 0.1f}, blue{0.13f, 0.35f, 0.75f}, red{0.85f, 0.15f, 0.1f};

  char label[32];
  for (int i = 0; i <= 6; ++i) {  // u ticks every 0.25
    const double u = umin + 0.25 * i;
    img.line(px(u), py(0), px(u), py(1), u == 0 ? Rgb{0.7f, 0.7f, 0.7f} : grid);
    img.line(px(u), py(0), px(u), py(0) + 5, ink);
    std::snprintf(label, sizeof label, "%.2f", u);
    img.text(int(px(u)), int(py(0)) + 9, label, ink, 2, 1);
  }
  for (int i = 0; i <= 5; ++i) {  // y ticks every 0.2
    const double y = 0.2 * i;
    img.line(px(umin), py(y), px(umax), py(y), grid);
    img.line(px(umin) - 5, py(y), px(umin), py(y), ink);
    std::snprintf(label, sizeof label, "%.1f", y);
    img.text(int(px(umin)) - 9, int(py(y)) - 6, label, ink, 2, 2);
  }
  img.line(px(umin), py(0), px(umax), py(0), ink);  // the frame
  img.line(px(umin), py(1), px(umax), py(1), ink);
  img.line(px(umin), py(0), px(umin), py(1), ink);
  img.line(px(umax), py(0), px(umax), py(1), ink);

  for (std::size_t i = 1; i < p.y.size(); ++i)
    img.line(px(p.u[i - 1]), py(p.y[i - 1]), px(p.u[i]), py(p.y[i]), blue, 2.0f);
  if (ghia)
    for (std::size_t i = 0; i < kGhiaY.size(); ++i) img.ring(px((*ghia)[i]), py(kGhiaY[i]), 4.5f, red, 1.6f);

  // Legend in the empty upper-left corner of the plot.
  const int lx = int(px(umin)) + 16, ly = int(py(1)) + 16;
  img.line(float(lx), float(ly + 6), float(lx + 26), float(ly + 6), blue, 2.0f);
  img.text(lx + 34, ly, "Tack LBM (D2Q9, f32)", ink);
  if (ghia) {
    img.ring(float(lx + 13), float(ly + 30), 4.5f, red, 1.6f);
    img.text(lx + 34, ly + 24, "Ghia, Ghia & Shin 1982", ink);
  }
  img.text(W / 2, 14, title, ink, 2, 1);
  img.text(left + pw / 2, H - 24, "u / U  on  x = 0.5", ink, 2, 1);
  img.text(14, top + ph / 2 - 6, "y", ink);
  return img.write_png(path);
}

}  // namespace cavity
