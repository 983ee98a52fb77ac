# @tack.struct: a class of annotated fields (NumPy dtypes, tack.vec3 and the
# other small types, other structs) whose instances a kernel builds, reads,
# passes to and returns from @tack.func, and keeps in Vars, leaf by leaf
# (composite.py). A struct whose fields are arrays and scalars
# (tack.Array, tack.Scalar, a dtype) is also one kernel parameter bundling
# them (tack/_kernel.py flattens it). Outside a kernel an instance is a plain
# Python object.
from __future__ import annotations

import sys
import typing
from typing import Any, Callable, TypeVar

import numpy as np

from .. import _core
from .._dtypes import to_dtype, to_numpy
from .._errors import TypeError as TackTypeError
from .._types import param_spec
from .state import tracing
from .vectors import ALL_TYPES, Small

_Class = TypeVar("_Class", bound=type)

# PEP 681: tells type checkers that @tack.struct gives a class an __init__ taking its fields, as
# @dataclass does. Type checkers know typing_extensions' marker on every Python version; at run time
# typing has it from Python 3.11, and before, it is a no-op (typing_extensions is not a dependency).
if typing.TYPE_CHECKING:
    from typing_extensions import dataclass_transform
elif sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:
    def dataclass_transform(**_: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return lambda f: f


class Field:
    """One field: its name and what it holds: "dtype" (a DType it casts to),
    "small" (a vector/matrix/quat class), "struct" (a struct class), or
    "param" (a tack.Array / tack.Scalar / tack.Texture3D annotation: only for
    a struct passed as a kernel parameter)."""

    __slots__ = ("name", "kind", "type", "annotation")

    def __init__(self, name: str, kind: str, type_: Any, annotation: Any):
        self.name, self.kind, self.type, self.annotation = name, kind, type_, annotation


def is_struct(x: Any) -> bool:
    return isinstance(x, type) and hasattr(x, "_tack_fields_")


def is_struct_value(x: Any) -> bool:
    return is_struct(type(x))


def _field_of(cls: type, name: str, ann: Any) -> Field:
    if isinstance(ann, type) and issubclass(ann, Small) and ann in ALL_TYPES:
        return Field(name, "small", ann, ann)
    if is_struct(ann):
        return Field(name, "struct", ann, ann)
    if param_spec(ann) is not None:
        return Field(name, "param", param_spec(ann), ann)
    try:
        return Field(name, "dtype", to_dtype(ann), ann)
    except Exception:  # noqa: BLE001 - any other annotation is refused below, naming it
        pass
    raise TackTypeError(f"@tack.struct '{cls.__name__}': field '{name}' is annotated {ann!r}; a field holds a "
                        "NumPy dtype (np.float32), a tack vector type (tack.vec3, tack.mat33, tack.quat), another "
                        "@tack.struct, or (in a struct passed as a kernel parameter) tack.Array / tack.Scalar")


@dataclass_transform()
def struct(cls: _Class) -> _Class:
    """@tack.struct: makes a class of annotated fields a Tack struct. The
    class gets an __init__ taking the fields in order (by position or keyword);
    a field annotated with a dtype casts its value to that dtype. A kernel
    builds, reads and passes structs as values; a struct of arrays and scalars
    is also one kernel parameter.

    >>> @tack.struct
    ... class Particle:
    ...     position: tack.vec3
    ...     mass: np.float32
    >>> p = Particle(tack.vec3(0.0, 1.0, 2.0), np.float32(0.5))
    >>> p.position.y, p.mass
    (1.0, np.float32(0.5))
    """
    if not isinstance(cls, type):
        raise TackTypeError(f"@tack.struct decorates a class, got {type(cls).__name__}")
    module = sys.modules.get(cls.__module__)
    try:
        hints = typing.get_type_hints(cls, globalns=vars(module) if module else None)
    except Exception:  # noqa: BLE001 - unresolvable string annotations: read them raw
        hints = dict(getattr(cls, "__annotations__", {}))
    own = [n for n in getattr(cls, "__annotations__", {})]
    if not own:
        raise TackTypeError(f"@tack.struct '{cls.__name__}' has no annotated fields (write `x: np.float32`)")
    cls._tack_fields_ = tuple(_field_of(cls, n, hints[n]) for n in own)
    cls._tack_defaults_ = {n: vars(cls)[n] for n in own if n in vars(cls)}
    cls.__init__ = _init
    cls.__repr__ = _repr
    cls.__eq__ = _eq
    cls.__hash__ = None
    return cls


def _convert(cls: type, f: Field, value: Any) -> Any:
    """A field's value as the field holds it: cast to its dtype, checked to be
    of its vector or struct type."""
    where = f"{cls.__name__}.{f.name}"
    if f.kind == "dtype":
        if isinstance(value, _core.Var):
            value = value.value
        if isinstance(value, (Small,)) or is_struct_value(value) or isinstance(value, tuple):
            raise TackTypeError(f"field '{where}' holds a {f.type.name} number, got {_what(value)}")
        if tracing():
            if f.type == _core.DType.bool:     # a bool field holds the value's truth, as np.bool_(x)
                return _core.truthy(value) if isinstance(value, _core.Value) else bool(value)
            return _core.cast(f.type, value)
        return np.dtype(_numpy(f.type)).type(value)
    if f.kind in ("small", "struct"):
        if type(value) is not f.type:
            raise TackTypeError(f"field '{where}' holds a {f.type.__name__}, got {_what(value)}")
        return value
    return value        # a kernel parameter's field: checked where the kernel is called


def _numpy(d: Any) -> Any:
    return to_numpy(d)


def _what(v: Any) -> str:
    if isinstance(v, Small):
        return f"a {v.type_name()}"
    if is_struct_value(v):
        return f"a {type(v).__name__}"
    if isinstance(v, _core.Value):
        return "a traced number"
    return f"a Python {type(v).__name__}"


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    cls = type(self)
    fields = cls._tack_fields_
    if len(args) > len(fields):
        raise TackTypeError(f"{cls.__name__}() takes {len(fields)} fields, got {len(args)} positional arguments")
    values = dict(zip((f.name for f in fields), args))
    for k, v in kwargs.items():
        if k not in {f.name for f in fields}:
            raise TackTypeError(f"{cls.__name__}() has no field '{k}'")
        if k in values:
            raise TackTypeError(f"{cls.__name__}() got field '{k}' twice")
        values[k] = v
    for f in fields:
        if f.name not in values and f.name in cls._tack_defaults_:
            values[f.name] = cls._tack_defaults_[f.name]      # `dt: np.float32 = 0.01`
    missing = [f.name for f in fields if f.name not in values]
    if missing:
        raise TackTypeError(f"{cls.__name__}() is missing field{'s' if len(missing) > 1 else ''} "
                            f"{', '.join(repr(m) for m in missing)}")
    for f in fields:
        object.__setattr__(self, f.name, _convert(cls, f, values[f.name]))


def make(cls: type, values: list) -> Any:
    """An instance from its field values in order, unconverted (composite.unflatten)."""
    obj = object.__new__(cls)
    for f, v in zip(cls._tack_fields_, values):
        object.__setattr__(obj, f.name, v)
    return obj


def replace(obj: Any, name: str, value: Any) -> Any:
    """A copy of a struct value with one field set (converted as __init__ does)."""
    cls = type(obj)
    for f in cls._tack_fields_:
        if f.name == name:
            break
    else:
        raise TackTypeError(f"{cls.__name__} has no field '{name}'")
    return make(cls, [_convert(cls, f, value) if f.name == name else getattr(obj, f.name)
                      for f in cls._tack_fields_])


def _repr(self: Any) -> str:
    fields = ", ".join(f"{f.name}={getattr(self, f.name, None)!r}" for f in type(self)._tack_fields_)
    return f"{type(self).__name__}({fields})"


def _eq(self: Any, other: Any) -> Any:
    if type(other) is not type(self):
        return NotImplemented
    if tracing():
        raise TackTypeError(f"a {type(self).__name__} cannot be compared as a whole in a kernel; compare its "
                            "fields")
    return all(np.array_equal(_host_value(getattr(self, f.name)), _host_value(getattr(other, f.name)))
               for f in type(self)._tack_fields_)


def _host_value(v: Any) -> Any:
    # A Tack array field is read as a copy: np.asarray would view it through __array_interface__, which shares
    # the array (its later launches complete before returning) for the sake of a comparison.
    return v.numpy() if isinstance(v, _core.Array) else np.asarray(v)
