"""Tack's array dtypes (bool and the ten numeric ones) as NumPy dtypes, and the
conversions both ways. Any other NumPy dtype is refused, never converted."""
import numpy as np

from . import _core
from ._errors import TypeError as _TackTypeError

_PAIRS = [
    (np.int8, _core.DType.i8), (np.uint8, _core.DType.u8),
    (np.int16, _core.DType.i16), (np.uint16, _core.DType.u16),
    (np.int32, _core.DType.i32), (np.uint32, _core.DType.u32),
    (np.int64, _core.DType.i64), (np.uint64, _core.DType.u64),
    (np.float32, _core.DType.f32), (np.float64, _core.DType.f64),
]
# Bool arrays hold one byte an element, as NumPy's do (docs/python.md, section 3).
_TO_CORE = {np.dtype(t): d for t, d in _PAIRS + [(np.bool_, _core.DType.bool)]}
_TO_NUMPY = {d: dt for dt, d in _TO_CORE.items()}

_NAMES = "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64"

# NumPy scalars passed to kernels are strong scalars of their dtype.
_core._register_numpy_scalars([(t, d) for t, d in _PAIRS])


def to_dtype(x) -> "_core.DType":
    """A NumPy dtype, scalar type or name ('float32', 'f4') as Tack's dtype; tack.TypeError for a dtype
    Tack does not have (float16, complex, strings, ...), saying what to convert to.

    >>> tack.to_numpy(tack.to_dtype("f4"))
    dtype('float32')
    """
    if isinstance(x, _core.DType):
        return x
    try:
        dt = np.dtype(x)
    except Exception:  # noqa: BLE001 - anything NumPy cannot read is not a dtype
        raise _TackTypeError(f"{x!r} is not a dtype; use a NumPy dtype such as np.float32") from None
    try:
        return _TO_CORE[dt]
    except KeyError:
        raise _TackTypeError(refusal(dt)) from None


def refusal(dt) -> str:
    """Why a NumPy dtype that is not Tack's is refused, and what to do instead."""
    dt = np.dtype(dt)
    native = dt.newbyteorder("=")
    if native != dt and native in _TO_CORE:
        return f"dtype {dt.str} is byte-swapped; convert it first, e.g. a.astype(np.{native.name})"
    kind = {"U": "strings", "S": "bytes", "O": "Python objects", "M": "dates", "m": "time spans"}.get(dt.kind)
    if dt.names is not None:
        kind = "a structured dtype"
    elif dt.kind == "V" and dt.name.startswith("void"):
        kind = "raw bytes"
    hint = ""
    if dt.kind == "f" or "float" in dt.name:  # float16, longdouble, ml_dtypes' bfloat16 and float8 types
        hint = ", e.g. a.astype(np.float32)"
    elif dt.kind == "c":
        hint = ", e.g. a.real or np.abs(a)"
    return (f"dtype {dt}{f' ({kind})' if kind else ''} is not one of Tack's dtypes ({_NAMES}); "
            f"convert it first{hint}")


def numpy_refusal(obj):
    """For a NumPy scalar or array of a dtype Tack lacks, why it is refused (refusal()); else None."""
    if isinstance(obj, (np.generic, np.ndarray)) and not is_tack_dtype(obj.dtype):
        return refusal(obj.dtype)
    return None


def is_tack_dtype(dt) -> bool:
    """Whether a NumPy dtype is one of Tack's (bool and the ten numeric dtypes)."""
    return np.dtype(dt) in _TO_CORE


def to_numpy(d: "_core.DType") -> np.dtype:
    """Tack's dtype as a NumPy dtype."""
    return _TO_NUMPY[d]


__all__ = ["to_dtype", "to_numpy", "is_tack_dtype", "refusal", "numpy_refusal"]
