// The compile pipeline as a script: each pass in turn, its output printed
// (TACK_DUMP_IR) and verified (verifying()) by the one Step helper below.
#include "passes/pipeline.hpp"

#include "ir/check.hpp"
#include "ir/printer.hpp"
#include "ir/verify.hpp"
#include "passes/check_barriers.hpp"
#include "passes/cse.hpp"
#include "passes/dce.hpp"
#include "passes/lower_bool_arrays.hpp"
#include "passes/lower_workgroups.hpp"
#include "passes/simplify.hpp"
#include "support/env.hpp"

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

Typed type_kernel(const ir::Kernel& traced, const TypingRequest& request) {
  const Steps steps;
  Typed out;
  out.kernel = infer_types(traced, request.params, request.device);
  for (std::size_t i = 0; i < out.kernel.params.size(); ++i)
    if (out.kernel.params[i].kind == ir::ParamKind::Texture)
      out.kernel.params[i].hardware_texture = i < request.hardware_texture.size() && request.hardware_texture[i];
  steps.after("infer_types", out.kernel);

  // Bool arrays are u8 memory to every backend from here on (the checks below see the bytes).
  out.kernel = lower_bool_arrays(out.kernel);
  steps.after("lower_bool_arrays", out.kernel);

  // Every backend refuses a barrier some work-items may skip, before debug mode's checks reshape the IR.
  check_barriers(out.kernel);
  steps.checked("check_barriers");

  if (request.debug) {
    // Before optimization, so that reads whose value is unused are checked too.
    BoundsChecked checked = bounds_checks(out.kernel);
    out.kernel = std::move(checked.kernel);
    out.checked_sites = std::move(checked.sites);
    out.error_param = checked.error_param;
    steps.after("bounds_checks", out.kernel);
  }

  // After the bounds checks, whose error array stays the first hidden parameter; the prints' stores need none.
  PrintsLowered lowered = lower_prints(out.kernel);
  out.kernel = std::move(lowered.kernel);
  out.prints = std::move(lowered.layout);
  steps.after("lower_prints", out.kernel);

  // On the IR the backend will compile, hidden parameters and all.
  if (request.check_capabilities) request.check_capabilities(out.kernel);
  steps.checked("check_capabilities");
  return out;
}

ir::Kernel optimize(const ir::Kernel& typed) {
  const Steps steps;
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

PackedKernel lower_for_backend(const ir::Kernel& optimized, BackendLowering how) {
  const Steps steps;
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

}  // namespace tack::passes
