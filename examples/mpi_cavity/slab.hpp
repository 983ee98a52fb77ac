// One MPI rank's part of the lid-driven cavity: a slab of whole rows with a
// ghost row on each side, stepped by Tack kernels, with the halo exchanged by
// MPI straight from Tack arrays (Array::share()).
#pragma once

#include <tack/tack.hpp>

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace mpi_cavity {

// Rows [y0, y0 + rows) of ny, as even as whole rows allow.
struct Rows {
  std::int64_t y0, rows;
};
Rows split_rows(std::int64_t ny, int rank, int ranks);

// Seconds spent in each part of the steps so far.
struct StepTimes {
  double pack = 0;      // the pack kernel and posting MPI_Isend/Irecv
  double interior = 0;  // the rows that need no halo (overlapping the exchange)
  double wait = 0;      // MPI_Waitall and the unpack kernel: the exchange not hidden
  double edges = 0;     // the two rows next to the ghost rows
  double total() const { return pack + interior + wait + edges; }
};

// Whether this MPI takes CUDA device pointers (Open MPI built with CUDA says so
// through MPIX_Query_cuda_support; TACK_MPI_CUDA_AWARE=1 or 0 overrides it, for
// the MPIs that do not say).
bool mpi_takes_device_pointers();

class Slab {
 public:
  // The slab of this rank of comm in an n x n cavity (lid speed lid_u, BGK tau),
  // at rest. With overlap false the interior waits for the exchange (to measure
  // what overlapping saves; the result is the same). With stage_through_host
  // the halos go through host copies: for device memory and an MPI that is not
  // CUDA-aware (the default there, see mpi_takes_device_pointers).
  Slab(tack::Device dev, MPI_Comm comm, std::int64_t n, float lid_u, float tau, bool overlap, bool stage_through_host);
  ~Slab();
  Slab(const Slab&) = delete;
  Slab& operator=(const Slab&) = delete;

  void step(std::int64_t count);
  std::int64_t steps_done() const { return steps_; }
  const StepTimes& times() const { return times_; }
  const Rows& rows() const { return rows_; }

  // This rank's rows of g = f - w, [k][row][x]; and of the velocity, [row][x].
  std::vector<float> populations() const;
  void velocity(std::vector<float>& ux, std::vector<float>& uy);

 private:
  void exchange_begin();
  void exchange_end();

  tack::Device dev_;
  MPI_Comm comm_;
  int below_, above_;  // neighbour ranks, MPI_PROC_NULL at the walls
  std::int64_t n_;
  Rows rows_;
  float lid_u_, omega_;
  bool overlap_, staged_;
  std::vector<float> host_send_, host_recv_;  // the staged halos
  tack::Array f_, f_next_;        // f32 {9, rows + 2, n}: ghost rows 0 and rows + 1
  tack::Array send_, recv_;       // f32 {2, 9, n}: [0] the bottom row, [1] the top row
  float *send_mem_, *recv_mem_;  // their memory, from share(), or the staged copies: what MPI uses
  tack::Array ux_, uy_, rho_;     // f32 {rows + 2, n}: moments of f_
  MPI_Request requests_[4];
  StepTimes times_;
  std::int64_t steps_ = 0;
};

}  // namespace mpi_cavity
