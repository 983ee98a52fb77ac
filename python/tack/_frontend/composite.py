# Composite values in a trace, as a pytree: a tuple, a vector / matrix /
# quaternion (vectors.py) or a @tack.struct (structs.py), made of scalar
# leaves. flatten gives the leaves and a structure (a hashable tuple, equal
# for values of the same shape); unflatten rebuilds a value from leaves. A
# composite kept in a kernel Var is a CompositeVar: one scalar _core.Var per
# leaf, assigned leaf by leaf, read back as a composite.
from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .structs import is_struct, is_struct_value, make
from .vectors import Mat, Small, is_scalar

LEAF = ("leaf",)
NOT_A_PART = object()        # Tracer.read_part: the expression is not a part of a CompositeVar


class NotComposite(Exception):
    """A value with a part that is not a number (an array, a string, ...)."""


def is_composite(x: Any) -> bool:
    return isinstance(x, (tuple, Small)) or is_struct_value(x)


def flatten(x: Any) -> tuple:
    """(structure, leaves); raises NotComposite where a part is not a number."""
    leaves: list = []
    return _flatten(x, leaves), leaves


def _flatten(x: Any, leaves: list) -> tuple:
    if isinstance(x, _core.Var):
        x = x.value
    if is_scalar(x):
        leaves.append(x)
        return LEAF
    if isinstance(x, Small):
        leaves.extend(x.c)
        return ("small", type(x))
    if isinstance(x, tuple):
        return ("tuple", tuple(_flatten(e, leaves) for e in x))
    if is_struct_value(x):
        return ("struct", type(x), tuple(_flatten(getattr(x, f.name), leaves) for f in type(x)._tack_fields_))
    raise NotComposite(x)


def leaf_count(structure: tuple) -> int:
    kind = structure[0]
    if kind == "leaf":
        return 1
    if kind == "small":
        return _small_size(structure[1])
    if kind == "tuple":
        return sum(leaf_count(s) for s in structure[1])
    return sum(leaf_count(s) for s in structure[2])


def leaf_names(structure: tuple, prefix: str) -> list:
    """The name of each leaf, in flatten's order, for tack.inspect: `acc.x`,
    `m[1, 2]`, `ray.origin.y`, `hit[0]`."""
    kind = structure[0]
    if kind == "leaf":
        return [prefix]
    if kind == "small":
        cls = structure[1]
        if issubclass(cls, Mat):
            return [f"{prefix}[{i}, {j}]" for i in range(cls.rows) for j in range(cls.cols)]
        return [f"{prefix}.{c}" for c in "xyzw"[:_small_size(cls)]]
    if kind == "tuple":
        return [n for k, s in enumerate(structure[1]) for n in leaf_names(s, f"{prefix}[{k}]")]
    return [n for f, s in zip(structure[1]._tack_fields_, structure[2]) for n in leaf_names(s, f"{prefix}.{f.name}")]


def _small_size(cls: type) -> int:
    return cls.rows * cls.cols if issubclass(cls, Mat) else cls.n


def unflatten(structure: tuple, leaves: list) -> Any:
    it = iter(leaves)
    return _unflatten(structure, it)


def _unflatten(structure: tuple, it: Any) -> Any:
    kind = structure[0]
    if kind == "leaf":
        return next(it)
    if kind == "small":
        cls = structure[1]
        return cls.of([next(it) for _ in range(_small_size(cls))])
    if kind == "tuple":
        return tuple(_unflatten(s, it) for s in structure[1])
    return make(structure[1], [_unflatten(s, it) for s in structure[2]])


def describe_structure(structure: tuple) -> str:
    kind = structure[0]
    if kind == "leaf":
        return "a number"
    if kind == "small":
        return f"a {structure[1].__name__}"
    if kind == "tuple":
        return f"a tuple of {len(structure[1])} ({', '.join(describe_structure(s) for s in structure[1])})"
    return f"a {structure[1].__name__}"


def field_path(structure: tuple, path: list) -> tuple:
    """The (first leaf, structure) of the part a path of field names / component
    indices selects (`r.origin.x` -> ["origin", 0])."""
    offset = 0
    for step in path:
        kind = structure[0]
        if kind == "struct":
            names = [f.name for f in structure[1]._tack_fields_]
            k = names.index(step)
            offset += sum(leaf_count(s) for s in structure[2][:k])
            structure = structure[2][k]
        elif kind == "small":
            offset += step
            structure = LEAF
        else:
            raise KeyError(step)
    return offset, structure


class CompositeVar:
    """A composite kept in kernel Vars, one per leaf."""

    __slots__ = ("structure", "vars")

    def __init__(self, structure: tuple, vars_: list):
        self.structure = structure
        self.vars = vars_

    def read(self) -> Any:
        return unflatten(self.structure, [v.value for v in self.vars])

    def assign(self, leaves: list, start: int = 0) -> None:
        for v, x in zip(self.vars[start:start + len(leaves)], leaves):
            v.assign(x)


def struct_structure(cls: type) -> Optional[tuple]:
    """The structure of a struct class's values, from its field annotations
    (None when a field is a kernel parameter's array or scalar)."""
    parts = []
    for f in cls._tack_fields_:
        if f.kind == "dtype":
            parts.append(LEAF)
        elif f.kind == "small":
            parts.append(("small", f.type))
        elif f.kind == "struct":
            s = struct_structure(f.type)
            if s is None:
                return None
            parts.append(s)
        else:
            return None
    return ("struct", cls, tuple(parts))


__all__ = ["CompositeVar", "LEAF", "NOT_A_PART", "NotComposite", "describe_structure", "field_path", "flatten",
           "is_composite", "is_struct", "leaf_count", "struct_structure", "unflatten"]
