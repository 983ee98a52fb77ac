// The slab's step: pack the edge rows, start the exchange, update the inside
// while the halo travels, then the ghost rows and the edge rows.
#include "slab.hpp"

#include "slab_kernels.hpp"

#if defined(OPEN_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // MPIX_Query_cuda_support
#endif

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

namespace mpi_cavity {
namespace {

tack::Kernel stream_collide = slab_stream_collide_kernel();
tack::Kernel pack = halo_pack_kernel();
tack::Kernel unpack = halo_unpack_kernel();
tack::Kernel moments = cavity::kernels::moments_kernel();

// Tags name the direction a row travels: a receive can only match the row meant for it.
constexpr int kUp = 1, kDown = 2;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The address MPI gets. On cpu it is a host pointer; on cuda a device pointer,
// which only a CUDA-aware MPI accepts (docs/mpi.md).
float* mpi_address(const tack::Array& a) {
  const tack::NativeMemory m = a.share();  // waits for queued launches; later launches binding `a` complete before returning
  if (m.kind != "host" && m.kind != "cuda")
    throw std::runtime_error("mpi_cavity: MPI cannot use '" + m.kind + "' memory (host or cuda only)");
  return reinterpret_cast<float*>(m.handle);
}

}  // namespace

bool mpi_takes_device_pointers() {
  if (const char* v = std::getenv("TACK_MPI_CUDA_AWARE"); v && *v) return std::string(v) == "1";
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

Rows split_rows(std::int64_t ny, int rank, int ranks) {
  const std::int64_t base = ny / ranks, extra = ny % ranks;
  return {rank * base + std::min<std::int64_t>(rank, extra), base + (rank < extra ? 1 : 0)};
}

Slab::Slab(tack::Device dev, MPI_Comm comm, std::int64_t n, float lid_u, float tau, bool overlap,
           bool stage_through_host)
    : dev_(dev), comm_(comm), n_(n), lid_u_(lid_u), omega_(1.0f / tau), overlap_(overlap), staged_(stage_through_host) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  rows_ = split_rows(n, rank, ranks);
  if (rows_.rows < 1) throw std::invalid_argument("mpi_cavity: more ranks than rows");
  below_ = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  above_ = rank + 1 < ranks ? rank + 1 : MPI_PROC_NULL;
  using tack::DType;
  const std::int64_t r2 = rows_.rows + 2;
  f_ = dev_.zeros(DType::F32, {9, r2, n});  // g = 0: at rest, density 1
  f_next_ = dev_.zeros(DType::F32, {9, r2, n});
  send_ = dev_.zeros(DType::F32, {2, 9, n});
  recv_ = dev_.zeros(DType::F32, {2, 9, n});
  if (staged_) {
    host_send_.resize(std::size_t(2 * 9 * n));
    host_recv_.assign(std::size_t(2 * 9 * n), 0.0f);
    send_mem_ = host_send_.data();
    recv_mem_ = host_recv_.data();
  } else {
    send_mem_ = mpi_address(send_);
    recv_mem_ = mpi_address(recv_);
  }
  for (tack::Array* a : {&ux_, &uy_, &rho_}) *a = dev_.zeros(DType::F32, {r2, n});
}

Slab::~Slab() = default;

void Slab::exchange_begin() {
  pack(send_, f_);  // binds a shared array: done when it returns, so MPI may read send_
  if (staged_) {
    host_send_ = send_.to_host<float>();  // (waits for the pack)
    send_mem_ = host_send_.data();
  }
  const int count = int(9 * n_);
  float* bottom = send_mem_;
  float* top = send_mem_ + count;
  MPI_Irecv(recv_mem_, count, MPI_FLOAT, below_, kUp, comm_, &requests_[0]);  // below's top row
  MPI_Irecv(recv_mem_ + count, count, MPI_FLOAT, above_, kDown, comm_, &requests_[1]);
  MPI_Isend(bottom, count, MPI_FLOAT, below_, kDown, comm_, &requests_[2]);
  MPI_Isend(top, count, MPI_FLOAT, above_, kUp, comm_, &requests_[3]);
}

void Slab::exchange_end() {
  MPI_Waitall(4, requests_, MPI_STATUSES_IGNORE);
  // MPI has written recv_ (and is done with send_ before the next pack). A
  // missing neighbour leaves its half untouched; no wall cell reads it.
  if (staged_) recv_ = dev_.from_host(host_recv_, {2, 9, n_});
  unpack(f_, recv_);
}

void Slab::step(std::int64_t count) {
  const std::int64_t rows = rows_.rows;
  const std::int64_t inner = rows > 2 ? rows - 2 : 0;
  const std::int64_t edge_count = rows > 1 ? 2 : 1, edge_stride = rows > 1 ? rows - 1 : 1;
  auto interior = [&] { stream_collide(f_next_, f_, omega_, lid_u_, rows_.y0, n_, std::int64_t{2}, std::int64_t{1}, inner); };
  for (std::int64_t s = 0; s < count; ++s) {
    double t0 = now();
    exchange_begin();
    double t1 = now();
    if (overlap_) interior();
    double t2 = now();
    exchange_end();
    double t3 = now();
    if (!overlap_) interior();
    stream_collide(f_next_, f_, omega_, lid_u_, rows_.y0, n_, std::int64_t{1}, edge_stride, edge_count);
    double t4 = now();
    times_.pack += t1 - t0;
    times_.interior += (t2 - t1) + (overlap_ ? 0 : t4 - t3);  // (without overlap: interior and edges together)
    times_.wait += t3 - t2;
    times_.edges += overlap_ ? t4 - t3 : 0;
    std::swap(f_, f_next_);  // swaps the handles, not the data
  }
  steps_ += count;
}

std::vector<float> Slab::populations() const {
  const std::vector<float> all = f_.to_host<float>();
  std::vector<float> out;
  out.reserve(std::size_t(9 * rows_.rows * n_));
  for (int k = 0; k < 9; ++k) {
    auto first = all.begin() + std::ptrdiff_t((k * (rows_.rows + 2) + 1) * n_);
    out.insert(out.end(), first, first + std::ptrdiff_t(rows_.rows * n_));
  }
  return out;
}

void Slab::velocity(std::vector<float>& ux, std::vector<float>& uy) {
  moments(rho_, ux_, uy_, f_);  // on the ghost rows too (stale values); only rows 1..rows are read
  ux = ux_.read_range<float>(n_, rows_.rows * n_);
  uy = uy_.read_range<float>(n_, rows_.rows * n_);
}

}  // namespace mpi_cavity
