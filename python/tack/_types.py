# The annotations of kernel parameters: tack.Array, tack.Array[np.float32],
# tack.Scalar, tack.Scalar[np.int64] and tack.Texture3D. They only mark what a
# parameter is; @tack.kernel reads them (tack/_kernel.py) and builds the C++
# kernel's parameter list from them. Nothing here exists at run time.
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, Optional, TypeVar

from . import _core
from ._dtypes import to_dtype
from ._errors import TypeError as TackTypeError


class ParamSpec:
    """What one kernel parameter is: its kind (a _core.ArgKind, the C++ kernel's
    own enum) and, for `Array[dtype]` / `Scalar[dtype]`, the one dtype it accepts."""

    __slots__ = ("kind", "dtype", "marker", "element")

    def __init__(self, kind: "_core.ArgKind", dtype: Any, marker: str, element: Any = None):
        self.kind = kind
        self.dtype = dtype  # a _core.DType or None
        self.marker = marker
        self.element = element  # Array[tack.vec3]: the vector / matrix class of its elements

    def __repr__(self) -> str:
        return self.marker

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ParamSpec) and (self.kind, self.dtype, self.element) == (
            other.kind, other.dtype, other.element)

    def __hash__(self) -> int:
        return hash((self.kind, self.dtype, self.element))


class _Marker(type):
    # The classes below are used as annotations, not instantiated; their
    # metaclass gives them a readable repr and the [dtype] subscript.
    def __repr__(cls) -> str:
        return "tack." + cls.__name__

    def __getitem__(cls, dtype: Any) -> ParamSpec:
        if not cls._fixable:
            raise TackTypeError(f"tack.{cls.__name__} takes no dtype: a 3-D texture always holds f32")
        if cls._kind == _core.ArgKind.array and getattr(dtype, "_tack_small_", False):
            # tack.Array[tack.vec3]: trailing dimensions (3,) hold one element (_frontend/elements.py)
            return ParamSpec(cls._kind, None, f"tack.Array[tack.{dtype.__name__}]", dtype)
        if isinstance(dtype, tuple):
            raise TackTypeError(f"tack.{cls.__name__}[...] takes one dtype (the rank is taken from the call), "
                                f"got {len(dtype)} items")
        d = to_dtype(dtype)
        return ParamSpec(cls._kind, d, f"tack.{cls.__name__}[{d.name}]")


# For type checkers (mypy), a parameter annotated tack.Scalar or tack.Texture3D is what the kernel body
# works with, a traced value: any operation on it type-checks (an Any base), and tack.Scalar[np.int32]
# is a generic's subscript. At run time these are plain marker classes, subscripted by _Marker.
if TYPE_CHECKING:
    from typing import Any as _Traced
else:
    _Traced = object
_DType = TypeVar("_DType")


class Array(metaclass=_Marker):
    """Annotation of an array parameter: `tack.Array` takes its dtype and rank
    from each call; `tack.Array[np.float32]` accepts only f32 arrays."""
    _kind = _core.ArgKind.array
    _fixable = True

    def __new__(cls, *args, **kwargs):
        raise TackTypeError("tack.Array is a kernel parameter annotation; make arrays with dev.array(...) "
                            "or dev.zeros(...)")


class Scalar(Generic[_DType], _Traced, metaclass=_Marker):
    """Annotation of a scalar parameter: `tack.Scalar` takes its dtype from each
    call (a Python int or float is weak, a NumPy scalar strong);
    `tack.Scalar[np.int32]` converts Python numbers to i32 and refuses other dtypes."""
    _kind = _core.ArgKind.scalar
    _fixable = True

    def __new__(cls, *args, **kwargs):
        raise TackTypeError("tack.Scalar is a kernel parameter annotation; pass a Python or NumPy number")


class Texture3D(_Traced, metaclass=_Marker):
    """Annotation of a 3-D texture parameter (f32, sampled with t.sample(u, v, w))."""
    _kind = _core.ArgKind.texture
    _fixable = False

    def __new__(cls, *args, **kwargs):
        raise TackTypeError("tack.Texture3D is a kernel parameter annotation; make textures with tack.texture3d(...)")


def param_spec(annotation: Any) -> Optional[ParamSpec]:
    """The ParamSpec an annotation stands for, or None when it is not one of ours.

    Besides the markers above, any object with a `_tack_param_` attribute
    holding a ParamSpec is accepted, so another class may double as an
    annotation: the host array class tack.Array does (_array.py)."""
    if isinstance(annotation, ParamSpec):
        return annotation
    if annotation is _core.Texture:
        return ParamSpec(_core.ArgKind.texture, None, "tack.Texture3D")
    if isinstance(annotation, _Marker):
        return ParamSpec(annotation._kind, None, repr(annotation))
    spec = getattr(annotation, "_tack_param_", None)
    return spec if isinstance(spec, ParamSpec) else None
