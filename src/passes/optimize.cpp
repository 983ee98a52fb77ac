// The optimizer, read as a script: each pass in turn, the verifier after each.
#include "passes/optimize.hpp"

#include "ir/check.hpp"
#include "ir/verify.hpp"
#include "passes/cse.hpp"
#include "passes/dce.hpp"
#include "passes/simplify.hpp"
#include "support/env.hpp"

#include <string>

namespace tack::passes {
namespace {

// Names the pass that broke the IR, so the report points at the culprit.
void check(const ir::Kernel& k, const char* after) {
  std::string why;
  if (ir::verify_ok(k, &why)) return;
  std::string msg = std::string("IR verification failed after ") + after + ": " + why;
  detail::internal_error(__FILE__, __LINE__, msg.c_str());
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

ir::Kernel optimize(const ir::Kernel& k) {
  const bool verify = verifying();
  if (verify) check(k, "type inference (the optimizer's input)");
  ir::Kernel out = simplify(k);
  if (verify) check(out, "simplify");
  out = cse(out);
  if (verify) check(out, "cse");
  // Equal subtrees are one node now, so identities on equal operands (select(c, a, a),
  // min(x, x), and x - x or x ^ x on integers) apply where the front end built two copies.
  out = simplify(out);
  if (verify) check(out, "simplify (second run)");
  // Last, so Lets that simplify made constant and substituted away disappear.
  out = dce(out);
  if (verify) check(out, "dce");
  return out;
}

}  // namespace tack::passes
