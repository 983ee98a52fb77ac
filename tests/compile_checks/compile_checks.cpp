// Compile checks: every kernel of the conformance suite, through each GPU
// backend's real compiler, without a GPU (DESIGN §7).
//
//   tack_compile_checks --dialect=cuda|hip|level_zero|metal [--verbose] [--dump=DIR]
//   tack_compile_checks --inspect-golden   (inspect_golden.cpp: every backend's code for the same kernels)
//
// Runs the conformance suite on the interpreter, collecting every specialized
// kernel through the specialize observer, adds the device reductions' kernels
// (Array::sum/min/max on a GPU, which the interpreter never launches); then
// generates each one's source for the dialect and compiles it:
//   cuda        NVRTC with exactly the backend's options to PTX, then ptxas -arch=sm_90
//   hip         hipRTC with the backend's options, for gfx90a
//   level_zero  libocloc with the backend's options, to SPIR-V and a native binary for pvc
//   metal       clang++ -fsyntax-only as C++ under tests/compile_checks/metal/metal_stdlib
// A kernel the backend refuses at the call (a dtype, atomic or feature it lacks)
// is counted as refused, not compiled. On a target whose description has
// TexturesInHardware, a kernel with textures is also compiled with them in
// hardware (the interpreter's kernels sample in software). Exits 0 when every accepted kernel
// compiles, 1 on any failure, 77 (ctest's skip) when the compiler is absent,
// printing why.
#include "compile_checks/dialects.hpp"
#include "compile_checks/inspect_golden.hpp"

#include "ir/printer.hpp"
#include "passes/check_capabilities.hpp"
#include "passes/pipeline.hpp"
#include "runtime/reductions/array_reduction_kernel.hpp"
#include "runtime/kernels/resolve_variant.hpp"
#include "runtime/devices/source_targets.hpp"

#include <tack/error.hpp>
#include <tack/kernel.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

using tack::compile_checks::Dialect;
using tack::compile_checks::Unit;

// The kernels the backend accepts, generated; the refused ones counted with a reason.
struct Collected {
  std::vector<Unit> units;
  std::vector<std::string> refused;
};

Collected generate_all(const std::vector<tack::ir::Kernel>& kernels, const tack::runtime::BackendDescription& target) {
  Collected out;
  const tack::Capabilities caps = target.capabilities();
  for (const tack::ir::Kernel& k : kernels) {
    try {
      for (const tack::ir::Param& p : k.params)
        if (!caps.supports(p.dtype))
          throw tack::TypeError(std::string(tack::dtype_name(p.dtype)) + " is not supported on " + target.name);
      tack::passes::check_capabilities(k, caps);
      // The end of the compile path, by the target's recipe: its lowering, then its emitter.
      const tack::abi::PackedKernel lowered = tack::passes::lower_for_backend(k, target.recipe.lowering);
      out.units.push_back({k.name, tack::ir::to_string(k), target.recipe.emit(lowered).text, k.fp_contract});
      // The interpreter samples in software, so a target with texture hardware also gets each texture kernel
      // with every texture in hardware, as its device compiles it for a texture within its limits.
      tack::ir::Kernel hw = k;
      bool textures = false;
      for (tack::ir::Param& p : hw.params)
        if (p.kind == tack::ir::ParamKind::Texture) textures = p.hardware_texture = true;
      if (textures && target.features.has(tack::runtime::Feature::TexturesInHardware)) {
        const tack::abi::PackedKernel hw_lowered = tack::passes::lower_for_backend(hw, target.recipe.lowering);
        out.units.push_back({k.name + " (textures in hardware)", tack::ir::to_string(hw),
                             target.recipe.emit(hw_lowered).text, k.fp_contract});
      }
    } catch (const tack::TypeError& e) {
      out.refused.push_back(k.name + ": " + e.what());
    } catch (const tack::InvalidArgument& e) {
      out.refused.push_back(k.name + ": " + e.what());
    }
  }
  return out;
}

// Conformance suites written after the inspect golden (issues 29 and 30): their kernels are compile-checked
// but not pinned by the golden, which stays byte-identical, so proving that the new language changed no
// existing kernel's code (its update is a decision of its own).
const std::set<std::string> kSuitesNotInGolden = {"Backends/RandomNumbers", "Backends/Structs",
                                                  "Backends/Vectors",       "Backends/NBody",
                                                  "Backends/LocalArrays",   "Backends/PathTracer",
                                                  "Backends/Autodiff"};

// The corpus: the conformance suite's kernels, each distinct typed kernel once. False if the suite failed.
bool collect_corpus(std::vector<tack::ir::Kernel>* kernels, bool for_golden = false) {
  std::mutex mutex;
  std::set<std::string> seen;
  tack::runtime::set_specialize_observer([&](const tack::ir::Kernel& k) {
    std::lock_guard lock(mutex);
    const testing::TestInfo* test = testing::UnitTest::GetInstance()->current_test_info();
    if (for_golden && test && kSuitesNotInGolden.count(test->test_suite_name())) return;
    if (seen.insert(tack::ir::to_string(k)).second) kernels->push_back(k);
  });
  GTEST_FLAG_SET(filter, "*/interp");
  GTEST_FLAG_SET(brief, true);
  const bool passed = RUN_ALL_TESTS() == 0;
  tack::runtime::set_specialize_observer(nullptr);
  return passed;
}

// The device reductions' kernels (runtime/reductions/array_reduction_kernel), typed as Array::sum/min/max launches them.
void add_reduction_kernels(std::vector<tack::ir::Kernel>* kernels) {
  tack::runtime::set_specialize_observer([&](const tack::ir::Kernel& k) { kernels->push_back(k); });
  for (tack::runtime::ReduceOp op :
       {tack::runtime::ReduceOp::Sum, tack::runtime::ReduceOp::Min, tack::runtime::ReduceOp::Max})
    tack::inspect(tack::runtime::array_reduction_kernel(op), "interp", tack::ArraySpec{tack::DType::F32, 1},
                  tack::ArraySpec{tack::DType::F32, 1}, tack::ScalarSpec{tack::DType::I64});
  tack::runtime::set_specialize_observer(nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  std::string dialect_name;
  bool verbose = false;
  std::string dump;  // a folder to write each generated source to, for reading
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--dialect=", 0) == 0) dialect_name = a.substr(10);
    if (a == "--verbose") verbose = true;
    if (a.rfind("--dump=", 0) == 0) dump = a.substr(7);
    if (a == "--inspect-golden") {
      std::vector<tack::ir::Kernel> kernels;
      if (!collect_corpus(&kernels, true)) {
        std::cout << "inspect golden: the conformance suite failed on interp; nothing was compared\n";
        return 1;
      }
      return tack::compile_checks::run_inspect_golden(std::move(kernels));
    }
  }
  const Dialect* dialect = tack::compile_checks::find_dialect(dialect_name);
  const tack::runtime::BackendDescription* target = tack::runtime::find_source_target(dialect_name);
  if (!dialect || !target) {
    std::cerr << "usage: tack_compile_checks --dialect=cuda|hip|level_zero|metal [--verbose] [--dump=DIR] | "
                 "--inspect-golden\n";
    return 2;
  }
  std::string why;
  if (!dialect->available(&why)) {
    std::cout << dialect_name << ": compile checks skipped: " << why << "\n";
    return 77;
  }

  // The check must be able to fail: a source with a type error has to be refused.
  const Unit broken{"broken", "", "static int tack_broken() { return undeclared_name; }\n"};
  std::string broken_log;
  if (dialect->compile_batch({&broken}, &broken_log)) {
    std::cout << dialect_name << ": the compiler accepted a broken source; this check would prove nothing\n";
    return 1;
  }
  // ... and the rejection names the error (the compiler's log) and, from Tack's compile steps, the source
  // (CompileError's "--- source ---"), as docs/reliability.md says.
  if (broken_log.find("undeclared_name") == std::string::npos ||
      (dialect_name != "metal" && broken_log.find("--- source ---") == std::string::npos)) {
    std::cout << dialect_name << ": a rejected source did not report the log and the source:\n" << broken_log << "\n";
    return 1;
  }

  std::vector<tack::ir::Kernel> kernels;
  if (!collect_corpus(&kernels)) {
    std::cout << dialect_name << ": the conformance suite failed on interp; no compile check was made\n";
    return 1;
  }
  const std::size_t conformance_kernels = kernels.size();
  add_reduction_kernels(&kernels);

  Collected c = generate_all(kernels, *target);
  if (verbose)
    for (const std::string& r : c.refused) std::cout << "refused: " << r << "\n";
  if (!dump.empty()) {
    std::filesystem::create_directories(dump);
    for (std::size_t i = 0; i < c.units.size(); ++i)
      std::ofstream(dump + "/" + std::to_string(i) + "_" + c.units[i].kernel + "." + dialect_name) << c.units[i].source;
  }
  std::vector<std::string> failures = dialect->compile(c.units);
  for (const std::string& f : failures) std::cout << "FAILED: " << f << "\n";
  std::cout << dialect_name << ": " << conformance_kernels << " conformance kernels and "
            << kernels.size() - conformance_kernels << " device reduction kernels; " << c.units.size() - failures.size()
            << " compiled (" << dialect->description << "), " << c.refused.size()
            << " refused as the backend refuses them at the call, " << failures.size() << " failed\n";
  std::cout << c.units.size() - failures.size() << " passed, " << failures.size() << " failed\n";
  return failures.empty() && !c.units.empty() ? 0 : 1;
}
