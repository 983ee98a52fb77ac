// The four compile checks: how each dialect's sources are compiled, batched so
// that a few hundred kernels cost a few compiler runs.
#pragma once

#include <string>
#include <vector>

namespace tack::compile_checks {

struct Unit {
  std::string kernel;       // the kernel's name
  std::string typed_ir;     // shown when it fails
  std::string source;       // generated for the dialect
  bool fp_contract = true;  // the kernel's: picks CUDA's and HIP's compile options, as the backends do
};

struct Dialect {
  std::string name;
  std::string description;  // what "compiled" means, for the summary line
  bool (*available)(std::string* why);
  // Compiles the units, all of one fp_contract, as one translation unit; false with the compiler's log on failure.
  bool (*compile_batch)(const std::vector<const Unit*>& units, std::string* log);
  std::size_t batch_size;

  // Compiles every unit in batches of one fp_contract; a failed batch is retried one unit at a
  // time. Returns one message per unit that failed: its kernel, log and IR.
  std::vector<std::string> compile(const std::vector<Unit>& units) const;
};

const Dialect* find_dialect(const std::string& name);

// Renames every "tack_" identifier of a source to "tack<n>_", so that sources
// of many kernels (their entries and helpers) can share one translation unit.
std::string renamed(const std::string& source, std::size_t n);

}  // namespace tack::compile_checks
