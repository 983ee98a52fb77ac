// What making one variant cost, phase by phase, and how the disk cache served
// it: filled by resolve_variant (trace, infer, optimize) and the backend
// (codegen, compile, load, disk), then added to tack::compile_stats() and,
// with TACK_LOG=compile, printed as one line on stderr.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace tack {
struct CompileStats;  // <tack/compile.hpp>, kept out: the Metal runtime's Objective-C++ reads this header
}  // namespace tack

namespace tack::runtime {

struct CompileReport {
  enum class Disk : std::uint8_t { Off, Hit, Miss };
  double trace_ms = 0, infer_ms = 0, optimize_ms = 0, codegen_ms = 0, compile_ms = 0, load_ms = 0;
  Disk disk = Disk::Off;
  bool front = false;  // a hit of the front index (front_index.hpp): found before typing, which did not run
};

// Adds the report to the process's totals and logs it where TACK_LOG names "compile".
void record_compile(const std::string& kernel, const std::string& backend, const CompileReport& report);
// The process's statistics so far (tack::compile_stats), and their reset (tack::reset_compile_stats).
CompileStats compile_stats_snapshot();
void clear_compile_stats();

// Milliseconds since `start`, for the phases above.
inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace tack::runtime
