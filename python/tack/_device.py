"""tack.Device and its Capabilities in Python's conventions: arrays made from
NumPy arrays, buffers and DLPack producers, NumPy dtypes, asyncio. The class
subclasses _core's and registers itself, so tack.device() and Array.device
return tack.Device objects."""
import numpy as np

from . import _core
from ._array import Array
from ._async import device_future
from ._dtypes import is_tack_dtype, refusal, to_dtype, to_numpy
from ._errors import InvalidArgument, TypeError as _TackTypeError
from ._host import shape_list


def _host_copy(obj, dtype):
    """obj as a C-contiguous NumPy array of one of Tack's dtypes."""
    if isinstance(obj, Array):
        obj = obj.numpy()
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        try:
            obj = np.from_dlpack(obj)
        except (RuntimeError, BufferError, TypeError, ValueError) as e:
            raise InvalidArgument(f"Device.array: cannot read the {type(obj).__name__} through DLPack: {e}") from None
    host = np.asarray(obj, dtype=to_numpy(to_dtype(dtype)) if dtype is not None else None)
    if not is_tack_dtype(host.dtype):
        native = host.dtype.newbyteorder("=")
        if not is_tack_dtype(native):
            # Refused, never converted (float16 to f64 would double the memory and hide the choice).
            raise _TackTypeError(f"Device.array: {refusal(host.dtype)}")
        host = host.astype(native)  # the same values in the host's byte order
    if host.ndim == 0:
        raise InvalidArgument("Device.array: a 0-d value is not an array; Tack arrays have 1 to 4 dimensions "
                              "(pass [x] for one element, or pass the number to the kernel as a scalar)")
    return np.ascontiguousarray(host)


class Capabilities:
    """What a backend can do (Device.capabilities); read these rather than probing. Dtypes are NumPy dtypes.

    >>> caps = tack.device("cpu").capabilities
    >>> caps.name, caps.supports_f64, np.dtype(np.float64) in caps.supported_dtypes
    ('cpu', True, True)
    """

    # A dict: each field's docstring is what the API reference shows for it.
    __slots__ = {
        "name": "The backend's name: 'cpu', 'interp', 'cuda', ...",
        "display_name": "A readable name, e.g. 'CPU (8 threads)' or 'OpenCL (<the device>)'.",
        "supported_dtypes": "The dtypes its arrays and kernels take: a frozenset of NumPy dtypes.",
        "supports_f64": "Whether float64 works in kernels.",
        "supports_device_reductions": "Whether Array.sum/min/max of a float32 array reduce on the device (GPUs).",
        "supports_workgroups": "Whether tack.workgroups (shared memory, barriers, group reductions) works.",
        "supported_atomic_dtypes": "The dtypes tack.atomic_* take: a frozenset of NumPy dtypes.",
        "device_memory_spaces": "The device memory its arrays live in, as a tuple of names (e.g. ('cuda',)); "
                                "empty where arrays live in host memory (cpu, interp).",
        "device_options": "The keyword options tack.device accepts for it, as a tuple of names.",
        "supports_exportable_memory": "Whether Device.empty_exportable and Array.export_memory work (CUDA).",
        "supports_wrapped_memory": "Whether tack.array_from_ptr and tack.from_dlpack can wrap foreign memory.",
        "dlpack_refusal_note": "What DLPack exchange this backend refuses, and why; an empty string where none.",
    }

    def __init__(self, core):
        for name in self.__slots__:
            value = getattr(core, name)
            if name in ("supported_dtypes", "supported_atomic_dtypes"):
                value = frozenset(to_numpy(d) for d in value)
            elif isinstance(value, list):
                value = tuple(value)
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError("Capabilities are read-only")

    def __repr__(self):
        return f"Capabilities(name={self.name!r}, supports_workgroups={self.supports_workgroups}, ...)"


class Device(_core.Device):
    """A device: the CPU, the interpreter or a GPU (tack.device('cuda')). Its arrays live in its
    memory; kernels called with them run on it. Equal devices are the same device.

    >>> dev = tack.device("cpu")
    >>> a = dev.array(np.arange(4, dtype=np.float32))
    >>> a
    tack.Array(shape=(4,), dtype=float32, device='cpu')
    >>> a.numpy(), a.sum()
    (array([0., 1., 2., 3.], dtype=float32), 6.0)
    >>> dev.zeros((2, 3), np.int32).shape
    (2, 3)
    """

    __slots__ = ()

    @property
    def capabilities(self):
        """What a backend can do; read these rather than probing. Dtypes are NumPy dtypes."""
        return Capabilities(self._capabilities)

    def array(self, obj, dtype=None, requires_grad=False):
        """A copy of obj (a NumPy array, any buffer or array-like, or a __dlpack__ producer) on this device;
        requires_grad=True: a tack.Tape records the launches that use it (docs/autodiff.md)."""
        host = _host_copy(obj, dtype)
        out = self._from_buffer(host, to_dtype(host.dtype), list(host.shape))
        if requires_grad:
            out.requires_grad = True
        return out

    def zeros(self, shape, dtype=np.float32, requires_grad=False, memory_space=None):
        """A zero-filled array (requires_grad as array's), in memory_space when given: one of
        capabilities.device_memory_spaces, e.g. "cuda_pinned" or "cuda_managed"."""
        if memory_space is None:
            out = self._zeros(to_dtype(dtype), shape_list(shape))
        else:
            out = self._zeros_in(to_dtype(dtype), shape_list(shape), memory_space)
        if requires_grad:
            out.requires_grad = True
        return out

    def empty(self, shape, dtype=np.float32, memory_space=None):
        """An array whose contents are unspecified until written, in memory_space when given (as zeros)."""
        if memory_space is None:
            return self._empty(to_dtype(dtype), shape_list(shape))
        return self._empty_in(to_dtype(dtype), shape_list(shape), memory_space)

    def empty_exportable(self, shape, dtype=np.float32):
        """An array in memory export_memory() hands out without a copy (CUDA)."""
        return self._empty_exportable(to_dtype(dtype), shape_list(shape))

    async def synchronize_async(self):
        """Waits, without blocking the event loop, for the launches queued on this device so far."""
        await device_future(self._when_done)


_core._use_python_class(Device)
