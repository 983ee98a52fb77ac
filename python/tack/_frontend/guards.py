# What a kernel read from outside itself while it was traced: module globals,
# attributes of the user's modules and closure cells. Their values are baked
# into the IR, so each call checks them (python/src/global_guards.cpp: by
# identity, in C++) and a changed value traces the kernel again, as a Python
# function would see the new value. Library modules (numpy, math, tack) are
# taken as fixed.
from __future__ import annotations

import copy
import types
from typing import Any

import numpy as np

# Modules whose attributes a kernel reads (np.float32, math.pi, tack.sqrt) and
# that a program does not rebind: not guarded, so each call checks less.
_FIXED_MODULES = ("numpy", "math", "cmath", "builtins", "tack", "operator")
_MUTABLE = (list, dict, set, bytearray)


def _fixed_name(name: Any) -> bool:
    return str(name).split(".")[0] in _FIXED_MODULES


def _fixed_module(m: Any) -> bool:
    return isinstance(m, types.ModuleType) and _fixed_name(getattr(m, "__name__", ""))


def _snapshot(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - an object that cannot be copied is compared by identity
        return value


def _is_deep(value: Any) -> bool:
    if isinstance(value, (_MUTABLE, np.ndarray)):
        return True
    if isinstance(value, tuple):
        return any(_is_deep(v) for v in value)
    return False


def _equal(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=True))
    if isinstance(a, float) and a != a:
        return b != b                       # NaN is NaN
    if isinstance(a, (int, float, complex, str, bytes, bool, type(None), np.generic, frozenset)):
        return bool(a == b)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (set, bytearray)):
        return a == b
    return a is b                           # functions, classes, objects: the same one


class Reads:
    """The outside values one trace read, in the form _set_global_guards takes."""

    def __init__(self) -> None:
        self.records: dict = {}

    def note(self, where: Any, name: Any, value: Any) -> None:
        if _fixed_module(value) or (isinstance(where, dict) and _fixed_name(where.get("__name__", ""))):
            return
        key = (id(where), name)
        if key not in self.records:
            deep = _is_deep(value)
            # (where, name, seen, deep, snapshot); the first four are read by C++.
            self.records[key] = (where, name, value, deep, _snapshot(value) if deep else value)

    def as_list(self) -> list:
        return list(self.records.values())


def changed(record: tuple, now: Any, present: bool) -> bool:
    """The Python half of the check: whether the value a record names really
    differs from what the trace saw (the C++ half found another object, or the
    value is a mutable container)."""
    if not present:
        return True
    return not _equal(record[4], now)
