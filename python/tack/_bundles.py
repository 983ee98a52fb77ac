"""Kernel parameters that stand for several core parameters: a @tack.struct
bundling arrays and scalars (`def step(s: State)`, called as
`step(State(pos=a, vel=b, dt=0.01))`), and arrays of vectors or matrices
(`x: tack.Array[tack.vec3]`). The C++ kernel sees the flat list (one array or
scalar per field, named `s.pos`, `s.vel`, `s.dt`); `layout` says how the
tracer rebuilds the Python parameters from it (_frontend/tracer.py) and
`flatten_args` turns a call's arguments into that list."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import _core
from ._errors import InvalidArgument, TypeError as TackTypeError
from ._frontend.structs import is_struct
from ._frontend.vectors import Small
from ._types import ParamSpec, param_spec

_MISSING = object()


def expand(name: str, ann: Any, fail: Callable) -> tuple:
    """(core parameters [(kind, dtype)], their names, the layout entry) of one
    Python parameter; None when the annotation is not a parameter type."""
    if is_struct(ann):
        params, names, entries = [], [], []
        for f in ann._tack_fields_:
            where = f"{name}.{f.name}"
            if f.kind == "param":
                p, n, e = _of_spec(where, f.type)
            elif f.kind == "dtype":
                p, n, e = [(_core.ArgKind.scalar, f.type)], [where], ("plain",)
            elif f.kind == "small":
                count = _size(f.type)
                p = [(_core.ArgKind.scalar, None)] * count
                n = [f"{where}[{k}]" for k in range(count)]
                e = ("small", f.type, count)
            else:
                p, n, e = expand(where, f.type, fail)
            params += p
            names += n
            entries.append(e)
        return params, names, ("struct", ann, tuple(entries))
    spec = param_spec(ann)
    if spec is None:
        return None
    return _of_spec(name, spec)


def _size(cls: type) -> int:
    return cls.rows * cls.cols if hasattr(cls, "rows") else cls.n


def _of_spec(name: str, spec: ParamSpec) -> tuple:
    element = getattr(spec, "element", None)
    return [(spec.kind, spec.dtype)], [name], (("element", element) if element is not None else ("plain",))


def needs_layout(layout: list) -> bool:
    return any(e[0] != "plain" for e in layout)


def bundles(layout: list) -> bool:
    return any(e[0] in ("struct", "small") for e in layout)


def flatten_args(kernel: str, names: list, layout: list, args: tuple, kwargs: dict) -> list:
    """The core's flat argument list for a call of a kernel with struct parameters."""
    if len(args) > len(names):
        raise TackTypeError(f"kernel '{kernel}' takes {len(names)} arguments, got {len(args)}")
    values = list(args) + [_MISSING] * (len(names) - len(args))
    for k, v in kwargs.items():
        if k not in names:
            raise TackTypeError(f"kernel '{kernel}' has no parameter '{k}'")
        i = names.index(k)
        if values[i] is not _MISSING:
            raise TackTypeError(f"kernel '{kernel}': parameter '{k}' is given twice")
        values[i] = v
    flat: list = []
    for name, entry, value in zip(names, layout, values):
        if value is _MISSING:
            raise TackTypeError(f"kernel '{kernel}': missing argument for parameter '{name}'")
        _flatten(kernel, name, name, entry, value, flat)
    return flat


def _flatten(kernel: str, param: str, where: str, entry: tuple, value: Any, flat: list) -> None:
    kind = entry[0]
    if kind in ("plain", "element"):
        flat.append(value)
        return
    if kind == "small":
        cls, count = entry[1], entry[2]
        comps = value.c if isinstance(value, Small) else tuple(np.asarray(value).reshape(-1))
        if isinstance(value, Small) and type(value) is not cls or len(comps) != count:
            raise TackTypeError(f"kernel '{kernel}': parameter '{param}', field '{where}' is a {cls.__name__}, "
                                f"got {value!r}")
        flat.extend(comps)
        return
    cls = entry[1]
    if type(value) is not cls:
        raise TackTypeError(f"kernel '{kernel}': parameter '{param}' is a {cls.__name__} (a @tack.struct), got "
                            f"{type(value).__name__}")
    for f, sub in zip(cls._tack_fields_, entry[2]):
        v = getattr(value, f.name, _MISSING)
        fwhere = f"{where}.{f.name}"
        if v is _MISSING or v is None:
            raise InvalidArgument(f"kernel '{kernel}': parameter '{param}' ({cls.__name__}): field '{f.name}' is "
                                  "missing")
        if f.kind == "param" and not _kind_matches(f.type, v):
            raise TackTypeError(f"kernel '{kernel}': parameter '{param}' ({cls.__name__}): field '{f.name}' "
                                f"({fwhere}) is {f.type!r}, got {type(v).__name__}")
        if f.kind == "dtype" and not isinstance(v, (bool, int, float, np.generic)):
            raise TackTypeError(f"kernel '{kernel}': parameter '{param}' ({cls.__name__}): field '{f.name}' "
                                f"({fwhere}) is a {f.type.name} scalar, got {type(v).__name__}")
        _flatten(kernel, param, fwhere, sub, v, flat)


def _kind_matches(spec: ParamSpec, v: Any) -> bool:
    if spec.kind == _core.ArgKind.array:
        return isinstance(v, (_core.Array, _core.ArraySpec))
    if spec.kind == _core.ArgKind.scalar:
        return isinstance(v, (bool, int, float, np.generic)) or v in (float, int, bool) or isinstance(
            v, (np.dtype, type))
    return True
