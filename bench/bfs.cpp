// One level of Rodinia's bfs (issue 31, points 1 and 9): each node of the frontier clears its mask and walks its
// edges, giving every unvisited neighbour its cost plus one and marking it for the next level. Divergent (a
// tenth of the nodes are in the frontier, degrees differ) and all gathers and scatters: the kernel a gang plan
// can lose on. Timed against the C++ loop (OpenMP) and against the same Tack kernel on the scalar path
// (TACK_CPU_SIMD=0), in the same run.
#include "common.hpp"

namespace {

using namespace tack::lang;

const std::int64_t kNodes = bench::quick() ? (1 << 12) : (1 << 20);
constexpr int kMaxDegree = 12;

struct Graph {
  bench::Buffer<std::int32_t> start{std::size_t(kNodes)}, degree{std::size_t(kNodes)};
  std::vector<std::int32_t> edges;
  bench::Buffer<std::int32_t> frontier{std::size_t(kNodes)}, visited{std::size_t(kNodes)}, cost{std::size_t(kNodes)};
  bench::Buffer<std::int32_t> mask{std::size_t(kNodes)}, updating{std::size_t(kNodes)};
  tack::Array tstart, tdegree, tedges, tvisited, tcost, tmask, tupdating;
  Graph() {
    std::uint64_t s = 99;
    auto next = [&] {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      return s >> 33;
    };
    for (std::int64_t v = 0; v < kNodes; ++v) {
      start[std::size_t(v)] = static_cast<std::int32_t>(edges.size());
      const int d = 1 + static_cast<int>(next() % kMaxDegree);
      degree[std::size_t(v)] = d;
      for (int e = 0; e < d; ++e) edges.push_back(static_cast<std::int32_t>(next() % std::uint64_t(kNodes)));
      frontier[std::size_t(v)] = next() % 10 == 0;
      visited[std::size_t(v)] = frontier[std::size_t(v)] || next() % 3 == 0;
      cost[std::size_t(v)] = frontier[std::size_t(v)] ? 5 : -1;
    }
    tstart = bench::to_device(start, {kNodes});
    tdegree = bench::to_device(degree, {kNodes});
    tedges = bench::cpu().from_host(edges);
    tvisited = bench::to_device(visited, {kNodes});
    tcost = bench::cpu().zeros(tack::DType::I32, {kNodes});
    tmask = bench::cpu().zeros(tack::DType::I32, {kNodes});
    tupdating = bench::cpu().zeros(tack::DType::I32, {kNodes});
  }
  // Every run starts from the same level.
  void reset_host() {
    std::copy(frontier.data(), frontier.data() + kNodes, mask.data());
    std::fill(updating.data(), updating.data() + kNodes, 0);
    for (std::int64_t v = 0; v < kNodes; ++v) cost[std::size_t(v)] = frontier[std::size_t(v)] ? 5 : -1;
  }
  void reset_device() {
    reset_host();
    tmask = bench::to_device(mask, {kNodes});
    tupdating = bench::to_device(updating, {kNodes});
    tcost = bench::to_device(cost, {kNodes});
  }
};
Graph& graph() {
  static auto* g = new Graph;
  return *g;
}

__attribute__((noinline)) void bfs_cpp(std::int32_t* __restrict mask, std::int32_t* __restrict updating,
                                       std::int32_t* __restrict cost, const std::int32_t* __restrict visited,
                                       const std::int32_t* __restrict start, const std::int32_t* __restrict degree,
                                       const std::int32_t* __restrict edges, std::int64_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < n; ++v) {
    if (!mask[v]) continue;
    mask[v] = 0;
    for (std::int32_t e = start[v]; e < start[v] + degree[v]; ++e) {
      const std::int32_t id = edges[e];
      if (!visited[id]) {
        cost[id] = cost[v] + 1;
        updating[id] = 1;
      }
    }
  }
}

tack::Kernel make_kernel(const char* name) {
  return tack::kernel(
      name, [](Array mask, Array updating, Array cost, Array visited, Array start, Array degree, Array edges) {
        parallel_for(mask.size(), [&](Index v) {
          if_(mask[v] != 0, [&] {
            mask[v] = 0;
            for_range(start[v], start[v] + degree[v], [&](Index e) {
              Value id = edges[e];
              if_(visited[id] == 0, [&] {
                cost[id] = cost[v] + 1;
                updating[id] = 1;
              });
            });
          });
        });
      });
}

void run_cpp(benchmark::State& state, const char* name) {
  Graph& g = graph();
  g.reset_host();
  bench::timed_loop(state, name, [&] {
    state.PauseTiming();
    g.reset_host();
    state.ResumeTiming();
    bfs_cpp(g.mask.data(), g.updating.data(), g.cost.data(), g.visited.data(), g.start.data(), g.degree.data(),
            g.edges.data(), kNodes);
  });
}

void run_tack(benchmark::State& state, const char* name, bool simd) {
  Graph& g = graph();
  static const tack::Kernel gangs = make_kernel("bfs_level"), scalar = make_kernel("bfs_level_scalar");
  const tack::Kernel& k = simd ? gangs : scalar;
  g.reset_device();
  bench::compile_with_simd(simd, [&] { k(g.tmask, g.tupdating, g.tcost, g.tvisited, g.tstart, g.tdegree, g.tedges); });
  g.reset_device();
  k(g.tmask, g.tupdating, g.tcost, g.tvisited, g.tstart, g.tdegree, g.tedges);
  bfs_cpp(g.mask.data(), g.updating.data(), g.cost.data(), g.visited.data(), g.start.data(), g.degree.data(),
          g.edges.data(), kNodes);
  // Neighbours of two frontier nodes get the same cost whoever writes last: every array matches.
  bench::check_close(name, g.tcost.to_host<std::int32_t>(), g.cost.data(), std::size_t(kNodes));
  bench::check_close(name, g.tupdating.to_host<std::int32_t>(), g.updating.data(), std::size_t(kNodes));
  bench::timed_loop(state, name, [&] {
    state.PauseTiming();
    g.reset_device();
    state.ResumeTiming();
    k(g.tmask, g.tupdating, g.tcost, g.tvisited, g.tstart, g.tdegree, g.tedges);
    bench::cpu().synchronize();
  });
}

void BM_bfs_cpp(benchmark::State& state) { run_cpp(state, "bfs/cpp"); }
void BM_bfs_tack(benchmark::State& state) { run_tack(state, "bfs/tack", true); }
void BM_bfs_scalar_cpp(benchmark::State& state) { run_cpp(state, "bfs_scalar/cpp"); }
void BM_bfs_scalar_tack(benchmark::State& state) { run_tack(state, "bfs_scalar/tack", false); }

}  // namespace

BENCHMARK(BM_bfs_cpp)->Name("bfs/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_bfs_tack)->Name("bfs/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_bfs_scalar_cpp)->Name("bfs_scalar/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_bfs_scalar_tack)->Name("bfs_scalar/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
