// A kernel as the runtime holds it: the function to trace, its traced IR (made
// once, on first use) and that IR's hash, the stable half of every variant key.
#pragma once

#include "ir/ir.hpp"

#include <tack/kernel.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tack::runtime {

struct KernelImpl {
  std::string name;
  std::vector<detail::ParamSpec> specs;
  std::function<void()> body;
  ir::SourceLoc loc;
  // The parameters' names where the front end knows them (Python), for keyword
  // arguments; empty for a C++ kernel, whose lambda's names Tack cannot see.
  std::vector<std::string> param_names;
  bool fp_contract = true;  // effective_fp_contract() of its options, copied into the traced IR
  // A derivative kernel (derived_kernel.hpp): no body of its own; its traced IR is the primal's, with one
  // gradient (or tangent) parameter per array parameter, made anew whenever the primal is traced again.
  std::shared_ptr<KernelImpl> primal;
  ir::Derivative derivative = ir::Derivative::None;
  // This kernel's derivatives made so far, by Derivative (weak: a derivative holds its primal).
  std::mutex derived_mutex;
  std::weak_ptr<KernelImpl> derived[3];

  // Traces on first call (thread-safe); a failed trace is retried next time.
  const ir::Kernel& traced();
  // Makes the next traced() trace the body again (a front end whose kernel read a
  // value that has changed since). Variants of the old IR stay cached under its
  // hash; the old IR stays alive, since a launch on another thread may be reading it.
  void retrace();
  // The milliseconds tracing took, once: later calls return 0 (each trace is reported with one variant).
  double take_trace_ms();
  std::uint64_t hash_lo() const { return hash_lo_; }
  std::uint64_t hash_hi() const { return hash_hi_; }
  // The traced IR's text, which the hash is of: the exact key of the disk cache's front index (front_index.hpp).
  const std::string& traced_text() const { return traced_text_; }
  // A hash of every source location in the traced IR, which the IR hash leaves out:
  // two kernels that share a variant but not their lines differ here.
  std::uint64_t locations_hash() const { return locations_hash_; }
  // The traced IR's analysis::add_only_params (the arrays it only atomic-adds into), found with the hash.
  std::uint32_t add_only_params() const { return add_only_params_; }

 private:
  std::mutex trace_mutex_;
  bool traced_ = false;
  std::unique_ptr<ir::Kernel> kernel_;  // by pointer: a retrace retires it while launches may read it
  std::vector<std::unique_ptr<ir::Kernel>> retired_;
  ir::Kernel make_ir();  // the trace, or the derivative's IR
  const ir::Kernel* primal_ir_ = nullptr;  // the primal IR this derivative's IR was made from
  std::string traced_text_;
  std::uint64_t hash_lo_ = 0, hash_hi_ = 0, locations_hash_ = 0;
  std::uint32_t add_only_params_ = 0;
  double trace_ms_ = 0;
};

}  // namespace tack::runtime
