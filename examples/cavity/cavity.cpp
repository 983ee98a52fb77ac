// Lid-driven cavity: a D2Q9 lattice-Boltzmann simulation run to a steady state
// on a Tack device, checked against Ghia, Ghia & Shin (1982).
//
//   tack_cavity [--device NAME] [--re 100|400|1000] [--n CELLS] [--tol T]
//               [--steps S] [--max-steps S] [--out DIR] [--no-check]
//
// Writes DIR/cavity_re<Re>.png (speed and streamlines), cavity_profile_re<Re>.png
// and .csv (u/U on the vertical centreline beside Ghia's values). Exit codes:
// 0 done, 1 not converged or more than 0.01 from Ghia at Re = 100, 2 bad
// arguments, 77 the device's backend is unavailable here.
#include "flow_picture.hpp"
#include "ghia.hpp"
#include "lbm.hpp"
#include "profile.hpp"

#include <tack/tack.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {

struct Options {
  std::string device;  // empty: tack::device() (TACK_DEVICE, else the default)
  int re = 100;
  std::int64_t n = 128;
  double tol = 1e-5;       // relative change of u per check_every steps
  std::int64_t steps = 0;  // > 0: run exactly this many steps, no convergence test
  std::int64_t max_steps = 2'000'000;
  std::int64_t check_every = 1000;
  std::string out = ".";
  bool check = true;  // compare with Ghia at Re = 100
};

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--device NAME] [--re 100|400|1000] [--n CELLS] [--tol T] [--steps S]\n"
               "          [--max-steps S] [--out DIR] [--no-check]\n",
               argv0);
  return 2;
}

// A progress bar on stderr. Convergence is roughly exponential, so progress is
// how far log(residual) has come from its first value towards log(tol).
class Progress {
 public:
  explicit Progress(double tol) : tol_(tol), tty_(isatty(STDERR_FILENO) != 0) {}
  void update(std::int64_t step, double residual, double seconds, bool fixed_steps, double fraction_of_steps) {
    if (first_ <= 0) first_ = residual;
    double f = fixed_steps ? fraction_of_steps : std::log(first_ / residual) / std::log(first_ / tol_);
    f = std::clamp(std::isfinite(f) ? f : 0.0, 0.0, 1.0);
    const int width = 30, done = int(f * width);
    // Without a terminal (ctest, a log file) print a line now and then, not a stream of \r.
    if (!tty_ && ++calls_ % 10 != 1) return;
    std::fprintf(stderr, "%s[%s%s] %3d%%  step %lld  residual %.2e (target %.0e)  %.1f s%s", tty_ ? "\r" : "",
                 std::string(done, '#').c_str(), std::string(width - done, '.').c_str(), int(f * 100), (long long)step,
                 residual, tol_, seconds, tty_ ? "  " : "\n");
    std::fflush(stderr);
  }
  void finish() {
    if (tty_) std::fprintf(stderr, "\n");
  }

 private:
  double tol_, first_ = 0;
  bool tty_;
  long calls_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--device" && has_value)
      o.device = argv[++i];
    else if (a == "--re" && has_value)
      o.re = std::atoi(argv[++i]);
    else if (a == "--n" && has_value)
      o.n = std::atoll(argv[++i]);
    else if (a == "--tol" && has_value)
      o.tol = std::atof(argv[++i]);
    else if (a == "--steps" && has_value)
      o.steps = std::atoll(argv[++i]);
    else if (a == "--max-steps" && has_value)
      o.max_steps = std::atoll(argv[++i]);
    else if (a == "--out" && has_value)
      o.out = argv[++i];
    else if (a == "--no-check")
      o.check = false;
    else
      return usage(argv[0]);
  }
  if (o.re <= 0 || o.n < 4 || o.tol <= 0 || o.steps < 0 || o.max_steps <= 0) return usage(argv[0]);

  // Lattice units: the lid moves at 0.1 (Mach 0.17, compressibility errors
  // ~Ma^2 stay well below the 1% we compare at) and the cavity is n cells wide
  // (half-way bounce-back puts the walls half a cell outside the outer cell
  // centres), so nu = U n / Re and tau = 3 nu + 1/2.
  const float lid_u = 0.1f;
  const double nu = lid_u * double(o.n) / o.re;
  const float tau = float(3.0 * nu + 0.5);
  if (tau < 0.51f)
    std::fprintf(stderr, "warning: tau = %.4f is close to 1/2; BGK may be unstable: use a larger --n\n", tau);

  try {
    tack::Device dev;
    try {
      dev = tack::device(o.device);
    } catch (const tack::BackendUnavailable& e) {
      std::fprintf(stderr, "skipped: %s\n", e.what());
      return 77;
    }
    std::printf("device: %s (%s)\n", dev.name().c_str(), dev.capabilities().display_name.c_str());
    if (dev.name() == "interp" && o.n * o.n * (o.steps > 0 ? o.steps : 30000) > 5'000'000)
      std::fprintf(stderr,
                   "note: the interpreter runs ~10^4 cell updates a second; this will take long "
                   "(try --n 16 --steps 300)\n");
    std::printf("cavity: Re = %d, %lld x %lld cells, lid velocity %.2f, tau = %.4f\n", o.re, (long long)o.n,
                (long long)o.n, lid_u, tau);

    cavity::Lattice lat(dev, o.n, lid_u, tau);
    const bool fixed = o.steps > 0;
    const std::int64_t limit = fixed ? o.steps : o.max_steps;
    const std::int64_t every = std::min(o.check_every, limit);
    Progress progress(o.tol);
    lat.residual();  // remembers the fluid at rest
    double residual = 1.0;
    bool converged = false;
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    while (lat.steps_done() < limit) {
      lat.step(std::min(every, limit - lat.steps_done()));
      residual = lat.residual();  // waits for the steps: the timing below is honest
      if (!std::isfinite(residual)) {
        progress.finish();
        std::fprintf(stderr, "the simulation blew up at step %lld\n", (long long)lat.steps_done());
        return 1;
      }
      progress.update(lat.steps_done(), residual, elapsed(), fixed, double(lat.steps_done()) / double(limit));
      if (!fixed && residual < o.tol) {
        converged = true;
        break;
      }
    }
    progress.finish();
    const double seconds = elapsed();
    const double mlups = double(o.n * o.n) * double(lat.steps_done()) / seconds / 1e6;
    if (fixed)
      std::printf("ran %lld steps in %.2f s (%.0f MLUPS); residual %.2e per %lld steps\n", (long long)lat.steps_done(),
                  seconds, mlups, residual, (long long)every);
    else
      std::printf("%s after %lld steps in %.2f s (%.0f MLUPS): residual %.2e per %lld steps (target %.0e)\n",
                  converged ? "steady" : "NOT converged", (long long)lat.steps_done(), seconds, mlups, residual,
                  (long long)every, o.tol);

    // Output.
    std::filesystem::create_directories(o.out);
    const std::string stem = o.out + "/cavity";
    const std::string re = std::to_string(o.re);
    const cavity::Velocity vel = lat.velocity();
    const cavity::Profile profile = cavity::centreline(vel, lid_u);
    const std::array<double, 17>* ghia = cavity::ghia_u(o.re);
    char title[96];
    std::snprintf(title, sizeof title, "Re = %d, %lld x %lld cells", o.re, (long long)o.n, (long long)o.n);
    bool ok = cavity::draw_flow(stem + "_re" + re + ".png", vel, lid_u, title);
    ok = cavity::write_csv(stem + "_profile_re" + re + ".csv", profile, ghia) && ok;
    std::snprintf(title, sizeof title, "Centreline u/U, Re = %d, %lld x %lld cells", o.re, (long long)o.n,
                  (long long)o.n);
    ok = cavity::plot_profile(stem + "_profile_re" + re + ".png", profile, ghia, title) && ok;
    std::printf("wrote %s_re%s.png, %s_profile_re%s.png and .csv\n", stem.c_str(), re.c_str(), stem.c_str(),
                re.c_str());
    if (!ok) return 1;

    if (ghia) {
      const cavity::Comparison c = cavity::compare_with_ghia(profile, *ghia);
      std::printf("largest deviation from Ghia et al. (1982): %.4f (at y = %.4f)\n", c.max_deviation, c.worst_y);
      if (o.check && o.re == 100 && !fixed) {
        if (!converged) {
          std::fprintf(stderr, "FAILED: not converged within %lld steps\n", (long long)o.max_steps);
          return 1;
        }
        if (c.max_deviation > 0.01) {
          std::fprintf(stderr, "FAILED: the deviation from Ghia et al. exceeds 0.01\n");
          return 1;
        }
        std::printf("within 0.01 of Ghia et al.: OK\n");
      }
    }
    if (!fixed && !converged) return 1;
    return 0;
  } catch (const tack::Error& e) {
    std::fprintf(stderr, "tack: %s\n", e.what());
    return 1;
  }
}
