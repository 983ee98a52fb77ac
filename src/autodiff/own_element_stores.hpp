// A cleanup of the adjoint's gradient traffic on a work-item's own element (reverse_mode.cpp's last step).
#pragma once

#include "ir/ir.hpp"

#include <vector>

namespace tack::autodiff {

// `own` marks, by parameter, the arrays every access of which in `body` is the work-item's own element (the
// gradients of arrays the primal touches only at y[i]). Within each block, a load of such an array after a store
// to it reads the stored value instead, and a store that a later store in the block overwrites with no read
// between is dropped: the adjoint's read, clear, read, add on one element become one read and one write.
// New Lets (for stored values) are added to `k`.
ir::Stmt forward_own_element_stores(ir::Kernel& k, const ir::Stmt& body, const std::vector<bool>& own);

}  // namespace tack::autodiff
