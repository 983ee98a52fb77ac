# Derivative kernels (docs/autodiff.md): tack.adjoint and tack.jvp, over the core's (src/autodiff/).
from __future__ import annotations

from typing import Any

from . import _core
from ._errors import InvalidArgument


def _core_kernel(kernel: Any, what: str) -> Any:
    if not isinstance(kernel, _core.Kernel):
        raise InvalidArgument(f"tack.{what} takes a kernel made with @tack.kernel, got {type(kernel).__name__}")
    if hasattr(kernel, "_flat_args"):
        raise InvalidArgument(f"tack.{what}: kernel '{kernel.name}' has a @tack.struct parameter; derivatives of "
                              "kernels with struct parameters are not offered yet: pass the fields as parameters")
    return kernel


def adjoint(kernel: Any) -> Any:
    """The adjoint (reverse mode) of kernel, a kernel called with kernel's arguments and then one gradient array
    per array parameter, each of its array's dtype and shape. Run after kernel, it reads the gradients of the
    arrays kernel wrote (clearing them where kernel overwrote the value) and adds into the gradients of the
    arrays it read. tack.NotDifferentiable, at its first call, names a construct it cannot differentiate."""
    return _core._adjoint(_core_kernel(kernel, "adjoint"))


def jvp(kernel: Any) -> Any:
    """The tangent (forward mode) kernel of kernel: called with kernel's arguments and then one tangent array per
    array parameter, it does kernel's work and stores, where kernel stores y, y's derivative along the tangents
    of the arrays it reads into y's tangent array (a Jacobian-vector product)."""
    return _core._jvp(_core_kernel(kernel, "jvp"))
