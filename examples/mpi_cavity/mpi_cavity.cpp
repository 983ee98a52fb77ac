// The lid-driven cavity on several MPI ranks: the rows split in slabs, one
// Tack kernel per step on each slab, halos exchanged by MPI from Tack arrays.
//
//   mpirun -np R tack_mpi_cavity [--device NAME] [--re 100|400|1000] [--n CELLS]
//          [--steps S] [--tol T] [--max-steps S] [--no-overlap] [--dump FILE]
//          [--compare-serial] [--host-staging] [--no-check]
//
// Rank 0 gathers the result: --dump writes g = f - w as raw f32 [9][n][n] (for
// comparing runs on different rank counts byte for byte), --compare-serial also
// runs examples/cavity's single-process Lattice and requires the same bits.
// Halos go from the arrays' own memory to MPI: host memory on cpu, device
// memory on cuda when MPI is CUDA-aware; otherwise (or with --host-staging)
// through host copies. Without --steps it runs to a steady state and, at Re = 100, checks the
// centreline against Ghia et al. as the demo does. Exit codes as tack_cavity:
// 0 done, 1 failed, 2 bad arguments, 77 the device's backend is unavailable.
#include "slab.hpp"

#include "cavity/ghia.hpp"
#include "cavity/lbm.hpp"
#include "cavity/profile.hpp"

#include <tack/tack.hpp>

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string device;  // empty: TACK_DEVICE, else the default (set it per rank: docs/mpi.md)
  int re = 100;
  std::int64_t n = 128, steps = 0, max_steps = 2'000'000, check_every = 1000;
  double tol = 1e-5;
  bool overlap = true, compare_serial = false, check = true, host_staging = false;
  std::string dump;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool v = i + 1 < argc;
    if (a == "--device" && v) o.device = argv[++i];
    else if (a == "--re" && v) o.re = std::atoi(argv[++i]);
    else if (a == "--n" && v) o.n = std::atoll(argv[++i]);
    else if (a == "--steps" && v) o.steps = std::atoll(argv[++i]);
    else if (a == "--tol" && v) o.tol = std::atof(argv[++i]);
    else if (a == "--max-steps" && v) o.max_steps = std::atoll(argv[++i]);
    else if (a == "--dump" && v) o.dump = argv[++i];
    else if (a == "--no-overlap") o.overlap = false;
    else if (a == "--compare-serial") o.compare_serial = true;
    else if (a == "--host-staging") o.host_staging = true;
    else if (a == "--no-check") o.check = false;
    else return false;
  }
  return o.re > 0 && o.n >= 4 && o.steps >= 0 && o.max_steps > 0 && o.tol > 0;
}

// Rank 0 gets every rank's block of `mine` in rank order (the others get nothing).
std::vector<float> gather(const std::vector<float>& mine, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  int count = int(mine.size());
  std::vector<int> counts(ranks), offsets(ranks);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (int r = 0; r < ranks; ++r) offsets[r] = total, total += counts[r];
  std::vector<float> all(rank == 0 ? total : 0);
  MPI_Gatherv(mine.data(), count, MPI_FLOAT, all.data(), counts.data(), offsets.data(), MPI_FLOAT, 0, comm);
  return all;
}

// ||u - u_prev|| / ||u|| over the whole grid; the same on every rank.
double residual(mpi_cavity::Slab& slab, std::vector<float>& ux_prev, std::vector<float>& uy_prev, MPI_Comm comm) {
  std::vector<float> ux, uy;
  slab.velocity(ux, uy);
  double sums[2] = {0, 0};  // change^2, magnitude^2
  for (std::size_t i = 0; i < ux.size(); ++i) {
    const double du = double(ux[i]) - (ux_prev.empty() ? 0.0 : ux_prev[i]);
    const double dv = double(uy[i]) - (uy_prev.empty() ? 0.0 : uy_prev[i]);
    sums[0] += du * du + dv * dv;
    sums[1] += double(ux[i]) * ux[i] + double(uy[i]) * uy[i];
  }
  const bool first = ux_prev.empty();
  ux_prev = std::move(ux);
  uy_prev = std::move(uy);
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
  return first || sums[1] == 0 ? 1.0 : std::sqrt(sums[0] / sums[1]);
}

int run(const Options& o, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  if (o.n < ranks) {
    if (rank == 0) std::fprintf(stderr, "--n %lld is less than the %d ranks\n", (long long)o.n, ranks);
    return 2;
  }
  tack::Device dev;
  try {
    dev = tack::device(o.device);
  } catch (const tack::BackendUnavailable& e) {
    if (rank == 0) std::fprintf(stderr, "skipped: %s\n", e.what());
    return 77;
  }
  // As tack_cavity: lid speed 0.1, nu = U n / Re, tau = 3 nu + 1/2.
  const float lid_u = 0.1f;
  const float tau = float(3.0 * (lid_u * double(o.n) / o.re) + 0.5);
  const bool host_memory = dev.name() == "cpu" || dev.name() == "interp";
  const bool direct = host_memory || (dev.name() == "cuda" && mpi_cavity::mpi_takes_device_pointers());
  const bool staged = o.host_staging || !direct;
  mpi_cavity::Slab slab(dev, comm, o.n, lid_u, tau, o.overlap, staged);
  if (rank == 0)
    std::printf("mpi_cavity: %d ranks on %s, Re = %d, %lld x %lld cells, tau = %.4f, %s, halos %s\n", ranks,
                dev.name().c_str(), o.re, (long long)o.n, (long long)o.n, tau,
                o.overlap ? "interior overlaps the exchange" : "no overlap",
                staged ? "staged through host copies" : (host_memory ? "from the arrays' memory" : "from device memory (CUDA-aware MPI)"));

  // The first step compiles (every rank at once, into one disk cache: the barrier
  // lines them up); time the rest.
  MPI_Barrier(comm);
  slab.step(1);
  const mpi_cavity::StepTimes compile_step = slab.times();
  MPI_Barrier(comm);
  const auto t0 = std::chrono::steady_clock::now();
  const bool fixed = o.steps > 0;
  const std::int64_t limit = fixed ? o.steps : o.max_steps;
  std::vector<float> ux_prev, uy_prev;
  bool converged = false;
  double res = 1.0;
  if (!fixed) residual(slab, ux_prev, uy_prev, comm);  // remembers the velocity after step 1
  while (slab.steps_done() < limit) {
    slab.step(std::min(o.check_every - slab.steps_done() % o.check_every, limit - slab.steps_done()));
    if (fixed) continue;
    res = residual(slab, ux_prev, uy_prev, comm);
    if (!std::isfinite(res)) break;
    if (res < o.tol) {
      converged = true;
      break;
    }
  }
  MPI_Barrier(comm);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // The halo's share of a step: the mean over ranks, and the worst rank's. The
  // wait also holds any time a rank waits for a slower neighbour.
  const mpi_cavity::StepTimes& t = slab.times();
  const double step_s = t.total() - compile_step.total();
  const double mine[2] = {(t.pack - compile_step.pack) / step_s, (t.wait - compile_step.wait) / step_s};
  double mean[2], worst[2];
  MPI_Allreduce(mine, mean, 2, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, comm);
  const std::int64_t timed = slab.steps_done() - 1;
  if (rank == 0) {
    std::printf("%lld steps%s in %.3f s: %.1f MLUPS", (long long)slab.steps_done(),
                fixed ? "" : (converged ? " (steady)" : " (NOT converged)"), seconds,
                timed > 0 ? double(o.n * o.n) * double(timed) / seconds / 1e6 : 0.0);
    std::printf("; halo share of a step: pack+post %.1f%%, wait+unpack %.1f%% (mean over ranks; worst %.1f%%, %.1f%%)\n",
                100 * mean[0] / ranks, 100 * mean[1] / ranks, 100 * worst[0], 100 * worst[1]);
  }

  // Gather to rank 0 and check.
  const std::vector<float> g = gather(slab.populations(), comm);
  std::vector<float> ux, uy;
  slab.velocity(ux, uy);
  ux = gather(ux, comm);
  uy = gather(uy, comm);
  if (rank != 0) return 0;
  std::vector<float> whole(g.size());  // rank blocks [k][row][x] -> [k][y][x]
  for (int r = 0, at = 0; r < ranks; ++r) {
    const mpi_cavity::Rows rr = mpi_cavity::split_rows(o.n, r, ranks);
    for (int k = 0; k < 9; ++k, at += int(rr.rows * o.n))
      std::memcpy(&whole[std::size_t((k * o.n + rr.y0) * o.n)], &g[std::size_t(at)], sizeof(float) * rr.rows * o.n);
  }
  int status = 0;
  if (!o.dump.empty()) {
    std::FILE* f = std::fopen(o.dump.c_str(), "wb");
    if (!f || std::fwrite(whole.data(), sizeof(float), whole.size(), f) != whole.size()) status = 1;
    if (f) std::fclose(f);
    std::printf("%s %s\n", status ? "could not write" : "wrote", o.dump.c_str());
  }
  if (o.compare_serial) {
    cavity::Lattice serial(dev, o.n, lid_u, tau);
    serial.step(slab.steps_done());
    const std::vector<float> ref = serial.populations().to_host<float>();
    const bool same = std::memcmp(ref.data(), whole.data(), sizeof(float) * whole.size()) == 0;
    std::printf("the same bits as examples/cavity's single-process Lattice: %s\n", same ? "yes" : "NO");
    if (!same) status = 1;
  }
  const cavity::Velocity vel{o.n, ux, uy};
  if (const std::array<double, 17>* ghia = cavity::ghia_u(o.re)) {
    const cavity::Comparison c = cavity::compare_with_ghia(cavity::centreline(vel, lid_u), *ghia);
    std::printf("largest deviation from Ghia et al. (1982): %.4f (at y = %.4f)\n", c.max_deviation, c.worst_y);
    if (o.check && o.re == 100 && !fixed) {
      const bool ok = converged && c.max_deviation <= 0.01;
      std::printf("%s\n", ok ? "within 0.01 of Ghia et al.: OK" : "FAILED: not converged, or more than 0.01 from Ghia");
      if (!ok) status = 1;
    }
  }
  if (!fixed && !converged) status = 1;
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);  // MPI from the main thread only; Tack's pool never calls it
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Options o;
  int status = 2;
  if (!parse(argc, argv, o)) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: mpirun -np R %s [--device NAME] [--re 100|400|1000] [--n CELLS] [--steps S] [--tol T]\n"
                   "       [--max-steps S] [--no-overlap] [--dump FILE] [--compare-serial] [--host-staging] [--no-check]\n",
                   argv[0]);
  } else {
    try {
      status = run(o, MPI_COMM_WORLD);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
      MPI_Abort(MPI_COMM_WORLD, 1);  // the other ranks may be waiting for this one
    }
  }
  MPI_Finalize();
  return status;
}
