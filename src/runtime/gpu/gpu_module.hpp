// A loaded GPU module and the one function Tack takes from it (cuda, hip,
// level_zero), unloaded through its owner (the context, device or queue it was
// loaded on) when the last variant holding it is dropped. The owner's
// unload(module, function) knows the API's rules: which context must be
// current, whether queued launches must finish first, whether the driver is
// already gone at process exit.
#pragma once

#include "support/no_copy.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

namespace tack::runtime {

template <class Owner, class ModuleHandle, class FunctionHandle>
class GpuModule : support::NoCopy {
 public:
  // group_limit: the most work-items a group of this function may have, where the driver reports one for the
  // function (CUDA: fewer than 256 when it needs many registers); 0 where the device's limit applies.
  GpuModule(std::shared_ptr<Owner> owner, ModuleHandle module, FunctionHandle function, std::string entry,
            std::size_t group_limit = 0)
      : owner_(std::move(owner)),
        module_(module),
        function_(function),
        entry_(std::move(entry)),
        group_limit_(group_limit) {}
  ~GpuModule() { owner_->unload(module_, function_); }

  FunctionHandle function() const { return function_; }
  const std::string& entry() const { return entry_; }
  std::size_t group_limit() const { return group_limit_; }

 private:
  std::shared_ptr<Owner> owner_;  // outlives the module
  ModuleHandle module_;
  FunctionHandle function_;
  std::string entry_;
  std::size_t group_limit_;
};

}  // namespace tack::runtime
