// The refusal of a workgroup kernel whose compiled program runs fewer than 256
// work-items per group (a device's limits, or too many registers): a
// BackendError of its own type, so the device reductions can leave such a
// device's reductions to the host instead of failing.
#pragma once

#include <tack/error.hpp>

namespace tack::runtime {

class GroupSizeError : public BackendError {
 public:
  using BackendError::BackendError;
};

}  // namespace tack::runtime
