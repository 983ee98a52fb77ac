"""Tack's ten dtypes as NumPy dtypes, and the conversions both ways."""
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
_TO_CORE = {np.dtype(t): d for t, d in _PAIRS}
_TO_NUMPY = {d: np.dtype(t) for t, d in _PAIRS}
_TO_NUMPY[_core.DType.bool] = np.dtype(np.bool_)

# NumPy scalars passed to kernels are strong scalars of their dtype.
_core._register_numpy_scalars([(t, d) for t, d in _PAIRS])


def to_dtype(x) -> "_core.DType":
    """A NumPy dtype, scalar type or name ('float32', 'f4') as Tack's dtype."""
    if isinstance(x, _core.DType):
        return x
    try:
        dt = np.dtype(x)
    except Exception:  # noqa: BLE001 - anything NumPy cannot read is not a dtype
        raise _TackTypeError(f"{x!r} is not a dtype; use a NumPy dtype such as np.float32") from None
    try:
        return _TO_CORE[dt]
    except KeyError:
        raise _TackTypeError(
            f"dtype {dt} is not one of Tack's ten (int8 to int64, uint8 to uint64, float32, float64)") from None


def is_tack_dtype(dt) -> bool:
    """Whether a NumPy dtype is one of Tack's ten."""
    return np.dtype(dt) in _TO_CORE


def to_numpy(d: "_core.DType") -> np.dtype:
    """Tack's dtype as a NumPy dtype."""
    return _TO_NUMPY[d]


__all__ = ["to_dtype", "to_numpy", "is_tack_dtype"]
