"""The exceptions Tack raises: one class per C++ ``tack::Error`` subclass.

Each derives from :class:`tack.Error` and from the builtin exception the
reference implementation raised, so ``except ValueError`` keeps working in code
written for it. The C++ message reaches Python unchanged.
"""
import builtins


class Error(Exception):
    """Base of every error Tack raises for bad input or a failing device.

    >>> try:
    ...     tack.to_dtype(np.float16)
    ... except TypeError as e:            # tack.TypeError is a builtin TypeError too
    ...     print(type(e).__name__, isinstance(e, tack.Error))
    TypeError True
    """


class InvalidArgument(Error, ValueError):
    """A value is wrong: a size, a shape, an option, an argument count."""


class TypeError(Error, builtins.TypeError):  # noqa: A001 - mirrors tack::TypeError
    """A dtype is wrong or ambiguous, or a construct has no meaning in a kernel."""


class UnboundNameError(InvalidArgument, builtins.UnboundLocalError):
    """A kernel reads a name that is bound on some paths only (Python would
    raise UnboundLocalError on the others); raised while the kernel is traced."""


class IndexError(Error, builtins.IndexError):  # noqa: A001 - mirrors tack::IndexError
    """An array access out of range (debug mode) or a host index out of range."""


class CompileError(Error, RuntimeError):
    """A backend's compiler rejected generated code; the message holds the log."""


class BackendError(Error, RuntimeError):
    """A driver call failed at run time; the message names the call."""


class NotDifferentiable(Error, builtins.TypeError):
    """A kernel construct has no derivative (tack.adjoint, tack.jvp): the message names it and its line."""


class BackendUnavailable(Error, ImportError):
    """A backend cannot be used here: its driver, compiler or device is missing."""


__all__ = ["Error", "InvalidArgument", "UnboundNameError", "TypeError", "IndexError", "CompileError", "BackendError",
           "NotDifferentiable", "BackendUnavailable"]
