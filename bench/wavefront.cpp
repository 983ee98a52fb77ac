// Needleman-Wunsch as Rodinia's nw computes it (issue 31, point 9): a 4096 x 4096 i32 score matrix in 16 x 16
// blocks, filled one anti-diagonal of blocks at a time (511 diagonals for 256 blocks a side), each block by one
// work-item, cell by cell: score = max(nw + ref, w - 10, n - 10). Many short launches with little parallelism at
// either end: Tack launches one kernel per diagonal (the diagonal a scalar) and synchronizes once per iteration,
// against the C++ a performance engineer writes (`#pragma omp parallel for` per diagonal), and again with the Tack
// kernel compiled for the scalar path (TACK_CPU_SIMD=0). Both must agree exactly.
#include "common.hpp"

namespace {

using namespace tack::lang;

const std::int64_t kN = bench::quick() ? 256 : 4096;  // cells a side, beside the border row and column
constexpr std::int64_t kB = 16;                       // cells a side of a block
const std::int64_t kBlocks = kN / kB;                 // blocks a side
const std::int64_t kDiagonals = 2 * kBlocks - 1;
const std::int64_t kW = kN + 1;  // the row length, border included
constexpr std::int32_t kPenalty = 10;

struct Data {
  bench::Buffer<std::int32_t> ref{std::size_t(kW * kW)}, score{std::size_t(kW * kW)};
  tack::Array tref, tscore;
  Data() {
    std::uint64_t s = 31;
    for (std::int64_t i = 0; i < kW * kW; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      ref[std::size_t(i)] = static_cast<std::int32_t>((s >> 33) % 16) - 4;  // -4..11, BLOSUM62's range
    }
    // The border: a gap of i cells costs i penalties. The inside is written before it is read, every iteration.
    for (std::int64_t i = 0; i < kW; ++i) {
      score[std::size_t(i * kW)] = static_cast<std::int32_t>(-i * kPenalty);
      score[std::size_t(i)] = static_cast<std::int32_t>(-i * kPenalty);
    }
    tref = bench::to_device(ref, {kW * kW});
    tscore = bench::to_device(score, {kW * kW});
  }
};
Data& data() {
  static auto* d = new Data;
  return *d;
}

// The first block row on diagonal `diag`, and how many blocks it has.
std::int64_t first_block(std::int64_t diag) { return std::max<std::int64_t>(0, diag - kBlocks + 1); }
std::int64_t blocks_on(std::int64_t diag) { return std::min(diag, kBlocks - 1) - first_block(diag) + 1; }

__attribute__((noinline)) void nw_cpp(std::int32_t* __restrict score, const std::int32_t* __restrict ref) {
  for (std::int64_t diag = 0; diag < kDiagonals; ++diag) {
    const std::int64_t lo = first_block(diag), count = blocks_on(diag);
#pragma omp parallel for schedule(static)
    for (std::int64_t t = 0; t < count; ++t) {
      const std::int64_t bi = lo + t, bj = diag - bi;
      const std::int64_t j0 = bj * kB;
      for (std::int64_t i = bi * kB + 1; i <= bi * kB + kB; ++i) {
        std::int32_t* row = score + i * kW;
        const std::int32_t* r = ref + i * kW;
        // The row above first, into registers: read between the stores, 4097 i32 behind them (the same address bits
        // below 4 KiB as the previous store's), each load would wait on the store before it (2.2x slower here).
        std::int32_t up[kB + 1];
        for (int k = 0; k <= kB; ++k) up[k] = row[j0 + k - kW];
        std::int32_t left = row[j0];
        for (int k = 1; k <= kB; ++k) {
          left = std::max(std::max(up[k - 1] + r[j0 + k], left - kPenalty), up[k] - kPenalty);
          row[j0 + k] = left;
        }
      }
    }
  }
}

// One diagonal: work-item t fills block (lo + t, diag - lo - t), as the C++ does: the row above into a local array
// first, the cell to the left carried in a Var. (Written cell by cell from `score` alone, the kernel stalls on the
// same 4 KiB aliasing the C++ comment describes: 1.6x slower here, as the C++ was.)
tack::Kernel make_kernel(const char* name) {
  return tack::kernel(name, [](Array score, Array ref, Scalar diag, Scalar lo, Scalar count) {
    parallel_for(count, [&](Index t) {
      LocalArray up = local_array<std::int32_t>(kB + 1);
      Value bi = lo + t, bj = diag - bi;
      Value j0 = bj * kB;
      for_range(bi * kB + 1, bi * kB + kB + 1, [&](Index i) {
        Value row = i * kW + j0;
        for_range(0, kB + 1, [&](Index k) { up[k] = score[row - kW + k]; });
        Var left = score[row];
        for_range(1, kB + 1, [&](Index k) {
          left = max(max(up[k - 1] + ref[row + k], left - kPenalty), up[k] - kPenalty);
          score[row + k] = left;
        });
      });
    });
  });
}

void nw_tack(const tack::Kernel& k, Data& d) {
  for (std::int64_t diag = 0; diag < kDiagonals; ++diag) k(d.tscore, d.tref, diag, first_block(diag), blocks_on(diag));
}

void run_cpp(benchmark::State& state, const char* name) {
  Data& d = data();
  bench::timed_loop(state, name, [&] { nw_cpp(d.score.data(), d.ref.data()); });
}

// simd = false compiles the kernel for the scalar path.
void run_tack(benchmark::State& state, const char* name, bool simd) {
  Data& d = data();
  static const tack::Kernel gangs = make_kernel("wavefront"), scalar = make_kernel("wavefront_scalar");
  const tack::Kernel& k = simd ? gangs : scalar;
  bench::compile_with_simd(simd, [&] { nw_tack(k, d); });
  bench::cpu().synchronize();
  nw_cpp(d.score.data(), d.ref.data());
  bench::check_close(name, d.tscore.to_host<std::int32_t>(), d.score.data(), std::size_t(kW * kW));
  bench::timed_loop(state, name, [&] {
    nw_tack(k, d);
    bench::cpu().synchronize();
  });
}

void BM_wavefront_cpp(benchmark::State& state) { run_cpp(state, "wavefront/cpp"); }
void BM_wavefront_tack(benchmark::State& state) { run_tack(state, "wavefront/tack", true); }
void BM_wavefront_scalar_cpp(benchmark::State& state) { run_cpp(state, "wavefront_scalar/cpp"); }
void BM_wavefront_scalar_tack(benchmark::State& state) { run_tack(state, "wavefront_scalar/tack", false); }

}  // namespace

BENCHMARK(BM_wavefront_cpp)->Name("wavefront/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_wavefront_tack)->Name("wavefront/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_wavefront_scalar_cpp)->Name("wavefront_scalar/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_wavefront_scalar_tack)->Name("wavefront_scalar/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
