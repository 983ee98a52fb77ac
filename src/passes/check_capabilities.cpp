// check_capabilities: workgroups, shared-array dtypes and atomics against what the device reports.
#include "passes/check_capabilities.hpp"

#include "ir/visitor.hpp"

#include <tack/error.hpp>

#include <string>

namespace tack::passes {

void check_capabilities(const ir::Kernel& typed, const Capabilities& caps) {
  if (typed.launch == ir::LaunchKind::Workgroup && !caps.supports_workgroups)
    throw InvalidArgument("kernel '" + typed.name + "' uses workgroup_for, which the " + caps.name +
                          " backend does not support");
  for (const auto& s : typed.shared)
    if (!caps.supports(s.dtype))
      throw TypeError("kernel '" + typed.name + "': shared arrays of " + std::string(dtype_name(s.dtype)) +
                      " are not supported on " + caps.name);
  for (const auto& l : typed.locals)
    if (!caps.supports(l.dtype))
      throw TypeError("kernel '" + typed.name + "': local arrays of " + std::string(dtype_name(l.dtype)) +
                      " are not supported on " + caps.name);
  std::string problem;
  ir::for_each_stmt(typed.body, [&](const ir::Stmt& s) {
    if (!problem.empty()) return;
    if (auto a = s.as<ir::Atomic>()) {
      DType t = a->array.space == ir::ArrayRef::Space::Param ? typed.params[a->array.index].dtype
                                                             : typed.shared[a->array.index].dtype;
      if (!caps.supports_atomic(t)) {
        std::string where = s->loc.str();
        problem = "kernel '" + typed.name + "'" + (where.empty() ? "" : " at " + where) + ": atomic_" +
                  ir::atomic_name(a->op) + " on " + std::string(dtype_name(t)) + " is not supported on " + caps.name;
      }
    }
  });
  if (!problem.empty()) throw TypeError(problem);
}

}  // namespace tack::passes
