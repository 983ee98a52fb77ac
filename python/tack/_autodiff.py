# Derivative kernels (docs/autodiff.md): tack.adjoint and tack.jvp, over the core's (src/autodiff/).
from __future__ import annotations

from typing import Any

from . import _core
from ._errors import InvalidArgument


def _core_kernel(kernel: Any, what: str) -> Any:
    if not isinstance(kernel, _core.Kernel):
        raise InvalidArgument(f"tack.{what} takes a kernel made with @tack.kernel, got {type(kernel).__name__}")
    return kernel


class BundledDerivative:
    """The derivative of a kernel with a @tack.struct parameter: called with the primal's arguments (structs
    included) and then one gradient (tangent) array per array field and array parameter, in the core's order."""

    def __init__(self, core: Any, primal: Any) -> None:
        self._core_kernel = core
        self._primal = primal
        self.name = core.name

    def _flat_args(self, args: tuple, kwargs: Any = None) -> list:
        if kwargs:
            raise InvalidArgument(f"kernel '{self.name}' takes its arguments by position")
        n = len(self._primal._python_names)
        return list(self._primal._flat_args(tuple(args[:n]))) + list(args[n:])

    def __call__(self, *args: Any) -> None:
        return self._core_kernel(*self._flat_args(args))

    def __repr__(self) -> str:
        return f"<tack derivative kernel '{self.name}'>"


def _derived(kernel: Any, made: Any) -> Any:
    return BundledDerivative(made, kernel) if hasattr(kernel, "_flat_args") else made


def adjoint(kernel: Any) -> Any:
    """The adjoint (reverse mode) of kernel, a kernel called with kernel's arguments and then one gradient array
    per array parameter, each of its array's dtype and shape. Run after kernel, it reads the gradients of the
    arrays kernel wrote (clearing them where kernel overwrote the value) and adds into the gradients of the
    arrays it read. tack.NotDifferentiable, at its first call, names a construct it cannot differentiate.

    >>> @tack.kernel
    ... def square(y: tack.Array, x: tack.Array):
    ...     for i in tack.parallel(y.size):
    ...         y[i] = x[i] * x[i]
    >>> dev = tack.device("cpu")
    >>> x, y = dev.array(np.array([1.0, 2.0, 3.0], np.float32)), dev.zeros(3)
    >>> y_grad, x_grad = dev.array(np.ones(3, np.float32)), dev.zeros(3)
    >>> tack.adjoint(square)(y, x, y_grad, x_grad)    # x_grad += 2 x * y_grad
    >>> x_grad.numpy()
    array([2., 4., 6.], dtype=float32)
    """
    return _derived(kernel, _core._adjoint(_core_kernel(kernel, "adjoint")))


def jvp(kernel: Any) -> Any:
    """The tangent (forward mode) kernel of kernel: called with kernel's arguments and then one tangent array per
    array parameter, it does kernel's work and stores, where kernel stores y, y's derivative along the tangents
    of the arrays it reads into y's tangent array (a Jacobian-vector product)."""
    return _derived(kernel, _core._jvp(_core_kernel(kernel, "jvp")))


class Tape:
    """Records kernel launches for a backward pass (docs/autodiff.md, "The Tape")::

        with tack.Tape() as tape:
            step(u1, u0)
            loss_kernel(loss, u1)
        tape.backward(loss)          # loss.grad = 1, then the adjoints, the last launch first
        u0.grad.numpy()

    Inside the with block, every launch on this thread that uses an array requiring a gradient
    (dev.array(..., requires_grad=True)) is kept with its arguments; the float arrays such a launch
    writes require a gradient from then on. An array a recorded launch read that a later launch
    overwrites is copied first, so each adjoint reads what its launch read."""

    def __init__(self) -> None:
        self._core = _core._Tape()

    def __enter__(self) -> "Tape":
        self._core._start()
        return self

    def __exit__(self, *exc: Any) -> bool:
        self._core._stop()
        return False

    def backward(self, loss: Any = None, grads: Any = None) -> None:
        """Seeds loss.grad with ones (or each array's grad with its seed, grads={array: seed}), then runs the
        recorded launches' adjoints in reverse order, adding into the arrays' grad."""
        if (loss is None) == (grads is None):
            raise InvalidArgument("tape.backward takes a loss array or grads={array: seed_array}, not both")
        if loss is not None:
            self._core.backward(loss)
        else:
            self._core._backward_seeds(list(dict(grads).items()))

    def zero(self) -> None:
        """Sets the gradient of every array the recorded launches used to zero."""
        self._core.zero()

    def reset(self) -> None:
        """Forgets the recorded launches."""
        self._core.reset()

    def __len__(self) -> int:
        return len(self._core)
