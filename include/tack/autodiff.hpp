// Differentiable kernels (docs/autodiff.md): a kernel's adjoint (reverse mode) and its tangent kernel
// (forward mode), each a tack::Kernel made from the primal's typed IR at each call's specialization, and
// compiled, cached and launched like any kernel.
#pragma once

#include <tack/kernel.hpp>

namespace tack {

// The adjoint of k: called with k's arguments followed by one gradient array per array parameter of k, in
// order, each of its primal's dtype and shape. It reads the gradients of the arrays k writes (clearing them
// where k's stores overwrote the value) and adds into the gradients of the arrays k reads. Run it after k,
// with k's arrays as k left them. Scalars get no gradient; integer arrays' gradients are left as they are.
// Throws NotDifferentiable, at its first call, for a construct it cannot differentiate.
Kernel adjoint(const Kernel& k);

// The tangent (Jacobian-vector product) kernel of k: called with k's arguments followed by one tangent array
// per array parameter of k. It does k's work and, where k stores y, stores the derivative of y along the
// tangents of the arrays k reads into y's tangent array.
Kernel jvp(const Kernel& k);

}  // namespace tack
