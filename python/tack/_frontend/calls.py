# Which calls a kernel may make, and what each becomes: tack's kernel-language
# functions, methods of traced objects (g.barrier(), t.sample(...), v.cast(...)),
# the builtins abs/min/max/float/int, NumPy scalar types and math functions on
# Python numbers (trace-time constants), and @tack.func functions, which are
# inlined: their body is traced in a new scope bound to the arguments, as a
# C++ helper taking Values is inlined by running it.
from __future__ import annotations

import ast
import builtins
import inspect
import math
from typing import Any

import numpy as np

from .. import _core
from . import builtins as kernel_functions
from .builtins import KERNEL_FUNCTIONS, LOOP_MARKERS, dtype_of
from .expressions import CoreMethod, describe, has_value
from .frame import Frame, Return
from .func import Func
from .returns import recursion_error
from .structs import is_struct
from .vectors import Small
_BUILTINS = (builtins.abs, builtins.min, builtins.max, builtins.float, builtins.int, builtins.bool, builtins.round,
             builtins.divmod)
# NumPy's functions of one element that a kernel runs as tack's (np.sqrt(x) is tack.sqrt(x)).
_NUMPY_TWINS = {"sqrt": "sqrt", "exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "log10": "log10",
                "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
                "arctan2": "atan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "floor": "floor",
                "ceil": "ceil", "trunc": "trunc", "rint": "round", "absolute": "abs", "fabs": "abs",
                "minimum": "min", "maximum": "max", "fmin": "min", "fmax": "max", "power": "pow",
                "copysign": "copysign", "isnan": "isnan", "isinf": "isinf", "floor_divide": "floordiv",
                "remainder": "floormod", "where": "select", "clip": "clamp"}
# math's functions on a traced value: the same, under their tack names.
_MATH_TWINS = {"sqrt": "sqrt", "exp": "exp", "log": "log", "log2": "log2", "log10": "log10", "sin": "sin",
               "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan", "atan2": "atan2",
               "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "fabs": "abs", "copysign": "copysign",
               "isnan": "isnan", "isinf": "isinf", "pow": "pow"}


def _member(x: Any, group: frozenset) -> bool:
    try:
        return x in group
    except TypeError:  # unhashable
        return False


def _is_numpy_scalar_type(fn: Any) -> bool:
    return isinstance(fn, type) and issubclass(fn, np.generic)


def _is_numpy_function(fn: Any) -> bool:
    return isinstance(fn, np.ufunc) or getattr(fn, "__module__", "") in ("numpy", "numpy.core.numeric")


def _twin_of(fn: Any) -> Any:
    """The tack function a NumPy ufunc or math function stands for in a kernel."""
    name = getattr(fn, "__name__", None)
    if not isinstance(name, str):
        return None
    if getattr(math, name, None) is fn:
        return _MATH_TWINS.get(name)
    if getattr(np, name, None) is fn:
        return _NUMPY_TWINS.get(name)
    return None


def _is_constant_helper(fn: Any) -> bool:
    return fn is np.dtype or (callable(fn) and getattr(math, getattr(fn, "__name__", ""), None) is fn)


class CallMixin:
    """The call half of the Tracer (tracer.py)."""

    def expr_Call(self, node: ast.Call) -> Any:
        fn = self.eval(node.func)
        shown = ast.unparse(node.func)
        if _member(fn, LOOP_MARKERS) or fn is builtins.range:
            raise self.error(node, f"{shown}(...) only works as the iterable of a for loop")
        args = [self.eval(a) for a in node.args]
        kwargs = {k.arg: self.eval(k.value) for k in node.keywords}
        self.at(node)
        if isinstance(fn, Func):
            return self.inline(fn, args, kwargs, node)
        if isinstance(fn, CoreMethod) or _member(fn, KERNEL_FUNCTIONS):
            return fn(*args, **kwargs)
        if is_struct(fn):
            return fn(*args, **kwargs)      # a struct value: its fields cast as annotated
        if fn is builtins.len and len(args) == 1 and not kwargs and isinstance(args[0], _core.LocalArray):
            return args[0].count    # a Python int: a local array's size is known while tracing
        if fn is builtins.print:
            raise self.error(node, "Python's print() cannot be called in a kernel; a kernel prints with "
                                   "tack.print(\"x = {}\", x)", "type")
        if any(fn is b for b in _BUILTINS):
            return self.python_builtin(fn, args, kwargs, node)
        if _is_numpy_scalar_type(fn):
            if has_value(args) or has_value(kwargs):
                if len(args) != 1 or kwargs:
                    raise self.error(node, f"{shown}(x) on a traced Value takes one argument (it casts)", "type")
                return _core.cast(dtype_of(fn), args[0])
            return fn(*args, **kwargs)
        twin = _twin_of(fn)
        if twin is not None and (has_value(args) or has_value(kwargs)):
            if kwargs:
                raise self.error(node, f"{shown}() on traced values takes no keyword arguments", "type")
            return getattr(kernel_functions, twin)(*args)    # np.sqrt(x) is tack.sqrt(x)
        if _is_constant_helper(fn) or _is_numpy_function(fn):
            if has_value(args) or has_value(kwargs):
                raise self.error(node, f"{shown}() runs at trace time on Python numbers and cannot take a "
                                       "traced value; a kernel computes with tack's functions (tack.sqrt, "
                                       "tack.exp, ...: docs/python.md)", "type")
            return fn(*args, **kwargs)
        # tack.Kernel by its base class: tack/_kernel.py imports the tracer, so not from there.
        if isinstance(fn, _core.Kernel):
            raise self.error(node, f"a kernel cannot call another kernel ('{shown}'); make the shared code a "
                                   "@tack.func", "type")
        if inspect.isfunction(fn):
            raise self.error(node, f"'{shown}' is a plain Python function; decorate it with @tack.func to call "
                                   "it from a kernel (it is then inlined)", "type")
        raise self.error(node, f"'{shown}' ({describe(fn)}) cannot be called in a kernel: a kernel calls tack "
                               "functions (tack.sqrt, tack.cast, tack.atomic_add, ...), @tack.func functions, "
                               "abs/min/max/float/int, methods of a workgroup or texture, and NumPy scalar "
                               "types or math functions on Python numbers", "type")

    def python_builtin(self, fn: Any, args: list, kwargs: dict, node: ast.Call) -> Any:
        if not has_value(args) and not has_value(kwargs):
            return fn(*args, **kwargs)      # plain Python at trace time
        name = fn.__name__
        if kwargs:
            raise self.error(node, f"{name}() on traced Values takes no keyword arguments", "type")
        if any(isinstance(a, Small) for a in args) and fn in (builtins.abs, builtins.min, builtins.max):
            if fn is builtins.abs:
                return kernel_functions.abs(*args)         # per component
            result = args[0]
            for a in args[1:]:
                result = getattr(kernel_functions, name)(result, a)
            return result
        if fn is builtins.abs:
            return _core.abs(*args)
        if fn in (builtins.min, builtins.max):
            if len(args) < 2:
                raise self.error(node, f"{name}() on traced Values takes two or more arguments, not an "
                                       "iterable", "type")
            result = args[0]
            for a in args[1:]:
                result = getattr(_core, name)(result, a)
            return result
        if fn is builtins.divmod:
            if len(args) != 2:
                raise self.error(node, "divmod() takes two arguments", "type")
            return _core.floordiv(args[0], args[1]), _core.floormod(args[0], args[1])
        if fn is builtins.round and len(args) == 2 and args[1] is not None:
            raise self.error(node, "round(x, ndigits) is not supported in a kernel; round(x) rounds to an int "
                                   "(half to even) and tack.round(x) to a float", "type")
        if len(args) not in (1, 2) or (len(args) == 2 and fn is not builtins.round):
            raise self.error(node, f"{name}() takes one argument", "type")
        x = args[0]
        if fn is builtins.bool:
            return _core.truthy(x)              # bool(v) is v != 0, as Python's
        if fn is builtins.round:
            # Python's round(x) is an int, ties to even; x / 1 makes an integer
            # x a float64 first (true division) and leaves a float unchanged.
            return _core.cast(_core.DType.i64, _core.round(x / 1))
        # float() is f64, as Python's float is a double; int() is i64, truncating
        # and saturating (a kernel's int holds 64 bits, Python's any number).
        return _core.cast(_core.DType.f64 if fn is builtins.float else _core.DType.i64, x)

    def inline(self, func: Any, args: list, kwargs: dict, node: ast.Call) -> Any:
        if func in self.inline_stack:
            raise self.error(node, recursion_error(self.inline_stack, func))
        try:
            bound = func.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(node, f"@tack.func '{func.__name__}': {e}", "type") from None
        bound.apply_defaults()
        frame = Frame(self, func.source, "func", func.__name__, dict(bound.arguments))
        caller, caller_loc = self.frame, self.loc
        self.frame = frame
        self.depth += 1
        self.inline_stack.append(func)
        result = None
        try:
            self.exec_block(func.source.node.body)
            if frame.ret is not None:      # it returned from inside traced control flow (returns.py)
                result = self.finish_returns(frame, func.source.node)
        except Return as r:
            result = r.value
        finally:
            self.frame = caller
            self.depth -= 1
            self.inline_stack.pop()
        self.set_loc(*caller_loc)
        return result
