// Making derivative kernels: the specs and names a derivative adds to its primal's.
#include "runtime/kernels/derived_kernel.hpp"

#include "ir/check.hpp"

namespace tack::runtime {

std::string derived_name(const std::string& primal, ir::Derivative d) {
  return primal + (d == ir::Derivative::Adjoint ? "_adjoint" : "_jvp");
}

std::shared_ptr<KernelImpl> derived_kernel(const std::shared_ptr<KernelImpl>& primal, ir::Derivative d) {
  TACK_CHECK(primal && d != ir::Derivative::None);
  std::lock_guard lock(primal->derived_mutex);
  std::weak_ptr<KernelImpl>& slot = primal->derived[static_cast<int>(d)];
  if (auto made = slot.lock()) return made;
  auto k = std::make_shared<KernelImpl>();
  k->name = derived_name(primal->name, d);
  k->loc = primal->loc;
  k->fp_contract = primal->fp_contract;
  k->primal = primal;
  k->derivative = d;
  k->specs = primal->specs;
  k->param_names = primal->param_names;
  const char* suffix = d == ir::Derivative::Adjoint ? "_grad" : "_tangent";
  for (std::size_t p = 0; p < primal->specs.size(); ++p)
    if (primal->specs[p].kind == ArgKind::Array) {
      k->specs.push_back(primal->specs[p]);
      if (!primal->param_names.empty()) k->param_names.push_back(primal->param_names[p] + suffix);
    }
  slot = k;
  return k;
}

}  // namespace tack::runtime
