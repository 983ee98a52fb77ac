// The compile pipeline as a script (run_pipeline, at the end): each pass in turn, its
// output printed (TACK_DUMP_IR) and verified (verifying()) by the one Steps helper below.
#include "passes/pipeline.hpp"

#include "autodiff/forward_mode.hpp"
#include "autodiff/reverse_mode.hpp"
#include "autodiff/share_subexpressions.hpp"
#include "ir/check.hpp"
#include "ir/printer.hpp"
#include "ir/verify.hpp"
#include "passes/check_barriers.hpp"
#include "passes/check_capabilities.hpp"
#include "passes/cse.hpp"
#include "passes/dce.hpp"
#include "passes/lower_bool_arrays.hpp"
#include "passes/lower_workgroups.hpp"
#include "passes/simplify.hpp"
#include "support/env.hpp"

#include <chrono>
#include <cstdio>
#include <string>

namespace tack::passes {
namespace {

// Watches the steps of one script run. TACK_DUMP_IR is read per run, not once per
// process, so that a test can turn it on between compiles.
class Steps {
 public:
  Steps() : dump_(support::env_flag("TACK_DUMP_IR")), verify_(verifying()) {}

  // After a pass that rewrote the IR: prints it, and verifies it unless `verifiable`
  // is false (the packed kernel, which only code generators read).
  void after(const char* pass, const ir::Kernel& k, bool verifiable = true) const {
    if (dump_) print("--- after " + std::string(pass) + " ---\n" + ir::to_string(k));
    if (!verify_ || !verifiable) return;
    // Names the pass that broke the IR, so the report points at the culprit.
    std::string why;
    if (ir::verify_ok(k, &why)) return;
    std::string msg = "IR verification failed after " + std::string(pass) + ": " + why;
    detail::internal_error(__FILE__, __LINE__, msg.c_str());
  }

  // After a check, which changes nothing: named all the same, so the dump shows where it runs.
  void checked(const char* pass) const {
    if (dump_) print("--- after " + std::string(pass) + " (a check: the IR is unchanged) ---\n");
  }

 private:
  // One write per step, so that steps of kernels compiled on two threads do not interleave.
  static void print(const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  }

  bool dump_, verify_;
};

// The optimizing steps, printed and verified by `steps`.
ir::Kernel optimize_steps(const ir::Kernel& typed, const Steps& steps) {
  ir::Kernel out = simplify(typed);
  steps.after("simplify", out);

  out = cse(out);
  steps.after("cse", out);

  // Equal subtrees are one node now, so identities on equal operands (select(c, a, a),
  // min(x, x), and x - x or x ^ x on integers) apply where the front end built two copies.
  out = simplify(out);
  steps.after("simplify", out);

  // Last, so Lets that simplify made constant and substituted away disappear.
  out = dce(out);
  steps.after("dce", out);
  return out;
}

// The lowering steps the backend asks for, printed and verified by `steps`.
PackedKernel lower_steps(const ir::Kernel& optimized, BackendLowering how, const Steps& steps) {
  PackedKernel out{optimized, {}, 0};

  if (how.work_item_loops && out.kernel.launch == ir::LaunchKind::Workgroup) {
    out.kernel = lower_workgroups(out.kernel);
    steps.after("lower_workgroups", out.kernel);
  }

  if (how.pack_scalars) {
    out = pack_scalars(out.kernel);
    // Not verifiable: the packed kernel's dims read Lets of its own body.
    steps.after("pack_scalars", out.kernel, false);
  }
  return out;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// Verification walks the whole kernel once per pass: always on in debug builds, and
// on request in release builds, where a miscompile needs finding without a rebuild.
bool verifying() {
#ifndef NDEBUG
  return true;
#else
  static const bool on = support::env_flag("TACK_VERIFY");
  return on;
#endif
}

Specialized run_pipeline(const ir::Kernel& traced, const TypingRequest& request, BackendLowering how) {
  const Steps steps;
  Specialized out;

  // ---- Typing: the kernel for this call's argument types, and what no backend can run refused.
  auto start = std::chrono::steady_clock::now();
  ir::Kernel k = infer_types(traced, request.params, request.device);
  for (std::size_t i = 0; i < k.params.size(); ++i)
    if (k.params[i].kind == ir::ParamKind::Texture)
      k.params[i].hardware_texture = i < request.hardware_texture.size() && request.hardware_texture[i];
  steps.after("infer_types", k);

  // Bool arrays are u8 memory to every backend from here on (the checks below see the bytes).
  k = lower_bool_arrays(k);
  steps.after("lower_bool_arrays", k);

  // Every backend refuses a barrier some work-items may skip, before debug mode's checks reshape the IR.
  check_barriers(k);
  steps.checked("check_barriers");

  // A derivative kernel (tack::adjoint, tack::jvp) is made here from the typed primal body, so that it is
  // checked, optimized, cached and compiled like any kernel from here on.
  if (k.derivative != ir::Derivative::None) {
    k = autodiff::share_subexpressions(k);
    steps.after("autodiff::share_subexpressions", k);
  }
  if (k.derivative == ir::Derivative::Adjoint) {
    k = autodiff::adjoint(k);
    steps.after("autodiff::adjoint", k);
  } else if (k.derivative == ir::Derivative::Tangent) {
    k = autodiff::jvp(k);
    steps.after("autodiff::jvp", k);
  }

  if (request.debug) {
    // Before optimization, so that reads whose value is unused are checked too.
    BoundsChecked checked = bounds_checks(k);
    k = std::move(checked.kernel);
    out.checked_sites = std::move(checked.sites);
    out.error_param = checked.error_param;
    steps.after("bounds_checks", k);
  }

  // After the bounds checks, whose error array stays the first hidden parameter; the prints' stores need none.
  PrintsLowered printed = lower_prints(k);
  k = std::move(printed.kernel);
  out.prints = std::move(printed.layout);
  steps.after("lower_prints", k);

  // What this backend cannot run, on the IR it will compile, hidden parameters and all.
  if (request.capabilities) check_capabilities(k, *request.capabilities);
  steps.checked("check_capabilities");
  out.typing_ms = ms_since(start);

  // ---- Optimizing: the kernel the caches key by.
  start = std::chrono::steady_clock::now();
  out.kernel = optimize_steps(k, steps);
  out.optimizing_ms = ms_since(start);

  // ---- Lowering: what this backend's code generator reads.
  out.lowered = lower_steps(out.kernel, how, steps);
  return out;
}

ir::Kernel optimize(const ir::Kernel& typed) { return optimize_steps(typed, Steps()); }

PackedKernel lower_for_backend(const ir::Kernel& optimized, BackendLowering how) {
  return lower_steps(optimized, how, Steps());
}

}  // namespace tack::passes
