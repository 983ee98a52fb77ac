# The kernel language's functions and loop markers as the `tack` namespace
# offers them: tack.parallel, tack.sqrt, tack.cast(x, np.float32), tack.select,
# tack.atomic_add, ... Each function adds to the kernel being traced (through
# tack._core); outside a kernel the core refuses them. The tracer recognizes
# these objects by identity (KERNEL_FUNCTIONS, LOOP_MARKERS).
from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np

from .. import _core
from .._dtypes import to_dtype
from .._errors import InvalidArgument, TypeError as TackTypeError
from . import vecfuncs
from .elements import ElementArray
from .structs import struct
from .vecfuncs import (componentwise, cross, determinant, diag, dot, identity, inverse, length, length_sq, matmul,
                       normalize, outer, quat_conjugate, quat_from_axis_angle, quat_mul, quat_rotate, quat_to_matrix,
                       trace, transpose)
from .vectors import Small, mat22, mat33, mat44, quat, vec2, vec3, vec4


def dtype_of(d: Any) -> Any:
    """A dtype as the core takes it: a DType as is, anything else (np.float32,
    'int64', ...) through tack.to_dtype."""
    return d if isinstance(d, _core.DType) else to_dtype(d)


# ---- loop markers: only meaningful as the iterable of a kernel's `for` ----------

def _marker_outside(what: str) -> Exception:
    return InvalidArgument(f"{what} only works as the iterable of a for loop inside a @tack.kernel "
                           f"(for i in {what}(...):)")


def parallel(*extents: Any):
    """The kernel's parallel loop: `for i in tack.parallel(n):` runs the body once
    for each i in [0, n); `for i, j in tack.parallel(n, m):` (up to 4 extents)
    numbers the iterations row-major. Each index is an i64 Value."""
    raise _marker_outside("tack.parallel")


def workgroups(num_groups: Any):
    """`for g in tack.workgroups(n):` runs n groups of 256 work-items; g is the
    Group (g.local_id, g.group_id, g.size, g.num_groups, g.global_id,
    g.shared(dtype, count), g.barrier(), g.reduce_add/min/max(v))."""
    raise _marker_outside("tack.workgroups")


def static_range(*args: int) -> range:
    """`for k in tack.static_range(...)` unrolls at trace time: k is a Python int
    and the body is traced once per value (like a C++ for over plain ints).
    Outside a kernel it is just range()."""
    return range(*args)


LOOP_MARKERS = frozenset({parallel, workgroups, static_range})

# ---- expressions -----------------------------------------------------------------


def cast(x: Any, dtype: Any) -> Any:
    """x converted to dtype (a NumPy dtype or type: np.float32, 'int64', ...) by
    the rules of docs/semantics.md: floats to ints truncate and saturate.
    A vector, matrix or quaternion is cast per component."""
    if isinstance(x, Small):
        return x.cast(dtype)
    return _core.cast(dtype_of(dtype), x)


def select(cond: Any, a: Any, b: Any) -> Any:
    """a where cond (a bool Value) is true, else b; both are evaluated. On
    vectors per component (cond a bool or a vector of bools)."""
    return _select(cond, a, b)


_select = componentwise("select", _core.select)


def logical_and(a: Any, b: Any) -> Any:
    """a and b on bool Values; both sides are evaluated (no short circuit)."""
    return _core.logical_and(a, b)


def logical_or(a: Any, b: Any) -> Any:
    """a or b on bool Values; both sides are evaluated (no short circuit)."""
    return _core.logical_or(a, b)


def logical_not(a: Any) -> Any:
    """not a, on a bool Value (Python's `not` on a traced value is refused: it has no truth value)."""
    return _core.logical_not(a)


_MATH = {
    # name: (its parameters, what it computes)
    "abs": ("x", "the absolute value of x; integers too (abs of the most negative integer is itself)"),
    "min": ("a b", "the smaller of a and b; for floats a NaN operand yields the other"),
    "max": ("a b", "the larger of a and b; for floats a NaN operand yields the other"),
    "clamp": ("x lo hi", "min(max(x, lo), hi)"),
    "floor": ("x", "x rounded toward minus infinity, floats"), "ceil": ("x", "x rounded toward infinity, floats"),
    "round": ("x", "x rounded half to even, floats"), "trunc": ("x", "x rounded toward zero, floats"),
    "sqrt": ("x", "the square root of x, floats, correctly rounded"), "rsqrt": ("x", "1 / sqrt(x), floats"),
    "exp": ("x", "e ** x, floats"), "exp2": ("x", "2 ** x, floats"), "log": ("x", "the natural log of x, floats"),
    "log2": ("x", "the log base 2 of x, floats"), "log10": ("x", "the log base 10 of x, floats"),
    "sin": ("x", "the sine of x (radians), floats"), "cos": ("x", "the cosine of x (radians), floats"),
    "tan": ("x", "the tangent of x (radians), floats"), "asin": ("x", "the arcsine of x, in radians, floats"),
    "acos": ("x", "the arccosine of x, in radians, floats"), "atan": ("x", "the arctangent of x, in radians, floats"),
    "atan2": ("y x", "the angle of the point (x, y) in radians, in [-pi, pi], floats"),
    "sinh": ("x", "the hyperbolic sine of x, floats"), "cosh": ("x", "the hyperbolic cosine of x, floats"),
    "tanh": ("x", "the hyperbolic tangent of x, floats"),
    "pow": ("x y", "x ** y, floats"), "copysign": ("x s", "the magnitude of x with the sign of s, floats"),
    "fma": ("a b c", "a * b + c with one rounding, floats"),
    "isnan": ("x", "whether x is NaN (a bool), floats"), "isinf": ("x", "whether x is infinite (a bool), floats"),
    "true_div": ("a b", "a / b as Python 3 and NumPy divide: integers give float64, floats keep their type"),
    "floordiv": ("a b", "a / b rounded toward minus infinity; integers by 0 give 0"),
    "floormod": ("a b", "a - floordiv(a, b) * b: the sign of b; integers by 0 give 0"),
}


def _math_function(name: str) -> Callable[..., Any]:
    params, doc = _MATH[name]
    core = componentwise(name, getattr(_core, name))     # per component on vectors and matrices
    names = params.split()
    arity = len(names)

    def fn(*args: Any) -> Any:
        if len(args) != arity:
            raise TackTypeError(f"tack.{name} takes {arity} argument{'s' if arity > 1 else ''}, got {len(args)}")
        return core(*args)

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "tack"
    fn.__doc__ = f"tack.{name}: {doc}. Kernel language: adds to the kernel being traced."
    # help() and the API reference show the parameters the description names, not (*args).
    fn.__signature__ = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY) for n in names])
    return fn


# Bound by name, not through globals(), so that readers and type checkers (mypy) find each one. In _MATH's
# order: unpacking fails at import if the two lists differ in length, and the names are checked below.
(abs, min, max, clamp, floor, ceil, round, trunc, sqrt, rsqrt, exp, exp2, log, log2, log10, sin, cos, tan,  # noqa: A001
 asin, acos, atan, atan2, sinh, cosh, tanh, pow, copysign, fma, isnan, isinf, true_div, floordiv,  # noqa: A001
 floormod) = (_math_function(n) for n in _MATH)


# ---- atomics -----------------------------------------------------------------------

def _flat_index(fn: str, index: Any) -> Any:
    if isinstance(index, (tuple, list)):
        raise TackTypeError(f"tack.{fn} takes a flat index: for a 2-D array write "
                            f"tack.{fn}(a, r * a.shape[1] + c, v)")
    return index


def _atomic_function(op: str) -> Callable[..., Any]:
    name = "atomic_" + op

    def fn(array: Any, index: Any, value: Any) -> Any:
        if isinstance(array, ElementArray):
            if op != "add":
                raise TackTypeError(f"tack.{name} on an array of {array.cls.__name__}: only tack.atomic_add "
                                    "works per component")
            return array.atomic_add(index, value)
        return _core.atomic(op, array, _flat_index(name, index), value)

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "tack"
    fn.__doc__ = (f"Atomically sets array[index] to {_ATOMIC_RESULTS[op]}, old being its value before, and returns "
                  "old in the array's dtype. index is flat; array is an array parameter, a group's shared array or "
                  "a local array.")
    return fn


_ATOMIC_RESULTS = {"add": "old + value", "sub": "old - value", "min": "min(old, value)", "max": "max(old, value)",
                   "and": "old & value", "or": "old | value", "xor": "old ^ value", "exchange": "value"}
_ATOMIC_OPS = tuple(_ATOMIC_RESULTS)
# By name, as the math functions above.
(atomic_add, atomic_sub, atomic_min, atomic_max, atomic_and, atomic_or, atomic_xor,
 atomic_exchange) = (_atomic_function(op) for op in _ATOMIC_OPS)


def atomic_cas(array: Any, index: Any, expected: Any, value: Any) -> Any:
    """Atomically stores value into array[index] if it equals expected bit for
    bit; returns the old value either way (compare it with expected to know)."""
    return _core.atomic("cas", array, _flat_index("atomic_cas", index), value, expected)


atomic_cas.__module__ = "tack"


# ---- random numbers ------------------------------------------------------------------

def philox4x32(c0: Any, c1: Any, c2: Any, c3: Any, k0: Any, k1: Any) -> tuple:
    """tack.philox4x32(c0, c1, c2, c3, k0, k1): the Philox4x32-10 block function of
    Random123 (Salmon et al., SC'11) for counter (c0..c3) and key (k0, k1), each
    converted to uint32 first; returns the four uint32 words as a tuple."""
    return _core.philox4x32(c0, c1, c2, c3, k0, k1)


philox4x32.__module__ = "tack"
# rng = tack.Random(seed, stream) in a kernel: the C++ class tack::lang::Random
# (docs/python.md, "Random numbers"). Its methods are dispatched by expressions.py.
Random = _core.Random

# ---- per-work-item arrays ------------------------------------------------------------

def local_array(dtype: Any, count: Any) -> Any:
    """tack.local_array(np.float32, 16): an array of `count` elements that each
    work-item has to itself, all zero where it is declared. Index it with any
    integer (a[i], a[i] = v, a[i] += v); len(a) is count. `count` is a Python int
    known while tracing; the local arrays of a work-item hold at most 16 KiB in
    all (docs/python.md, "Per-work-item arrays")."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
        what = "a traced Value" if isinstance(count, _core.Value) else f"a Python {type(count).__name__}"
        raise TackTypeError(f"tack.local_array needs its element count as a Python int known while tracing, got "
                            f"{what}: a local array's size is fixed when the kernel is compiled")
    return _core.local_array(dtype_of(dtype), int(count))


local_array.__module__ = "tack"

# ---- print -------------------------------------------------------------------------

def _format(fn: str, fmt: Any) -> str:
    if not isinstance(fmt, str):
        raise TackTypeError(f"tack.{fn} takes the format as a Python str first, got {type(fmt).__name__}")
    return fmt


def print(fmt: str, *args: Any, cond: Any = None) -> None:  # noqa: A001 - tack.print, as tack::lang::print
    """Writes a line to stderr from each work-item: each {} of fmt is replaced by
    the next argument ({{ and }} are braces). With cond (a bool Value), only the
    work-items where it is true print. A launch's lines appear when it has
    finished, sorted by work-item index (docs/language.md, "Printing")."""
    _core.print_(_format("print", fmt), list(args), cond)


def print_if(cond: Any, fmt: str, *args: Any) -> None:
    """tack.print with its condition first: print_if(c, fmt, x) is print(fmt, x, cond=c)."""
    _core.print_(_format("print_if", fmt), list(args), cond)


print.__module__ = print_if.__module__ = "tack"

# ---- vectors, matrices, quaternions (vectors.py, vecfuncs.py) and structs ----------

for _n in vecfuncs.__all__:
    getattr(vecfuncs, _n).__module__ = "tack"

# A literal list, so that type checkers see what `from ._frontend.builtins import *` gives the tack package.
__all__ = [
    "parallel", "workgroups", "static_range", "cast", "select", "logical_and", "logical_or", "logical_not",
    "atomic_cas", "print", "print_if", "philox4x32", "Random", "local_array",
    # _MATH
    "abs", "min", "max", "clamp", "floor", "ceil", "round", "trunc", "sqrt", "rsqrt", "exp", "exp2", "log", "log2",
    "log10", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "pow", "copysign", "fma",
    "isnan", "isinf", "true_div", "floordiv", "floormod",
    "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor", "atomic_exchange",
    "vec2", "vec3", "vec4", "mat22", "mat33", "mat44", "quat",
    # vecfuncs.__all__
    "dot", "cross", "length", "length_sq", "normalize", "outer", "transpose", "trace", "diag", "identity",
    "determinant", "inverse", "matmul", "quat_mul", "quat_conjugate", "quat_rotate", "quat_from_axis_angle",
    "quat_to_matrix",
    "struct",
]
# The lists above and the functions they name agree (a function bound under another name, a table entry or a
# vector function missing from __all__ would otherwise go unnoticed).
if any(globals()[n].__name__ != n for n in list(_MATH) + ["atomic_" + op for op in _ATOMIC_OPS]) or not (
        set(_MATH) | set(vecfuncs.__all__) <= set(__all__)):
    raise ImportError("tack._frontend.builtins: __all__ and the function tables disagree")

# Everything above that a kernel may call; the tracer allows calls of exactly these.
KERNEL_FUNCTIONS = frozenset(globals()[n] for n in __all__ if n not in ("parallel", "workgroups", "static_range",
                                                                        "struct"))
