// The process's compile statistics and the TACK_LOG=compile lines.
#include "runtime/kernels/compile_report.hpp"

#include "support/env.hpp"

#include <tack/compile.hpp>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string_view>

namespace tack::runtime {
namespace {

std::mutex g_mutex;
CompileStats g_stats;

// TACK_LOG is a comma-separated list of topics; "compile" (or "all") turns these
// lines on. Read at every variant (it costs nothing beside a compile), so a
// program may set it at any time.
bool log_compiles() {
  const std::optional<std::string> v = support::env_text("TACK_LOG");
  if (!v) return false;
  std::string_view s(*v);
  while (!s.empty()) {
    const std::size_t comma = s.find(',');
    const std::string_view topic = s.substr(0, comma);
    if (topic == "compile" || topic == "all") return true;
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return false;
}

const char* disk_text(CompileReport::Disk d) {
  switch (d) {
    case CompileReport::Disk::Hit: return "disk cache hit";
    case CompileReport::Disk::Miss: return "disk cache miss";
    case CompileReport::Disk::Off: break;
  }
  return "no disk cache";
}

}  // namespace

void record_compile(const std::string& kernel, const std::string& backend, const CompileReport& r) {
  {
    std::lock_guard lock(g_mutex);
    ++g_stats.variants;
    if (r.disk == CompileReport::Disk::Hit) ++g_stats.disk_hits;
    if (r.front) ++g_stats.front_hits;
    if (r.disk == CompileReport::Disk::Miss) ++g_stats.disk_misses;
    g_stats.trace_ms += r.trace_ms;
    g_stats.infer_ms += r.infer_ms;
    g_stats.optimize_ms += r.optimize_ms;
    g_stats.codegen_ms += r.codegen_ms;
    g_stats.compile_ms += r.compile_ms;
    g_stats.load_ms += r.load_ms;
  }
  if (!log_compiles()) return;
  std::fprintf(stderr,
               "tack: kernel '%s' on %s: trace %.3f infer %.3f optimize %.3f codegen %.3f compile %.3f load %.3f ms, "
               "%s\n",
               kernel.c_str(), backend.c_str(), r.trace_ms, r.infer_ms, r.optimize_ms, r.codegen_ms, r.compile_ms,
               r.load_ms, r.front ? "front index, disk cache hit" : disk_text(r.disk));
}

CompileStats compile_stats_snapshot() {
  std::lock_guard lock(g_mutex);
  return g_stats;
}

void clear_compile_stats() {
  std::lock_guard lock(g_mutex);
  g_stats = CompileStats{};
}

}  // namespace tack::runtime
