"""The host API in Python's conventions, over tack._core: NumPy dtypes and
arrays in, NumPy arrays out. These functions are attached to the native
Device and Array classes, so ``tack.Array`` is the one array type."""
import threading

import numpy as np

from . import _core
from ._dtypes import is_tack_dtype, refusal, to_dtype, to_numpy
from ._errors import InvalidArgument, TypeError as _TackTypeError


def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    try:
        return [int(d) for d in shape]
    except TypeError:
        raise _TackTypeError(f"a shape is an int or a sequence of ints, got {shape!r}") from None


def _host_copy(obj, dtype):
    """obj as a C-contiguous NumPy array of one of Tack's dtypes."""
    if isinstance(obj, _core.Array):
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


def _device_array(self, obj, dtype=None):
    """A copy of obj (a NumPy array, any buffer or array-like, or a __dlpack__ producer) on this device."""
    host = _host_copy(obj, dtype)
    return self._from_buffer(host, to_dtype(host.dtype), list(host.shape))


def _device_zeros(self, shape, dtype=np.float32):
    """A zero-filled array."""
    return self._zeros(to_dtype(dtype), _shape(shape))


def _device_empty(self, shape, dtype=np.float32):
    """An array whose contents are unspecified until written."""
    return self._empty(to_dtype(dtype), _shape(shape))


def _device_empty_exportable(self, shape, dtype=np.float32):
    """An array in memory export_memory() hands out without a copy (CUDA)."""
    return self._empty_exportable(to_dtype(dtype), _shape(shape))


class Capabilities:
    """What a backend can do; read these rather than probing. Dtypes are NumPy dtypes."""

    __slots__ = ("name", "display_name", "supported_dtypes", "supports_f64", "supports_device_reductions",
                 "supports_workgroups", "supported_atomic_dtypes", "device_memory_spaces", "device_options",
                 "supports_exportable_memory", "supports_wrapped_memory", "dlpack_refusal_note")

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


_CORE_CAPABILITIES = _core.Device.capabilities


def _device_capabilities(self):
    return Capabilities(_CORE_CAPABILITIES.__get__(self))


def _array_dtype(self):
    return to_numpy(self._dtype)


def _array_numpy(self):
    """A NumPy copy of the array; waits for the launches queued before it."""
    out = np.empty(self.shape, dtype=to_numpy(self._dtype))
    self._read_into(out, 0, self.size)
    return out


def _array_read_range(self, start, count):
    """Elements [start, start + count) of the flat array, as a NumPy array; waits."""
    start, count = int(start), int(count)
    out = np.empty(max(count, 0), dtype=to_numpy(self._dtype))
    self._read_into(out, start, count)
    return out


def _array_array(self, dtype=None, copy=None):
    out = self.numpy()
    return out if dtype is None else out.astype(dtype, copy=False)


_KDL_CPU = 1
_CORE_DLPACK = _core.Array.__dlpack__


_CORE_DLPACK_DEVICE = _core.Array.__dlpack_device__
# The array whose __dlpack_device__ this thread was last asked for. A consumer
# that can take memory on a device asks where an array lives first (torch,
# CuPy, JAX, tack.from_dlpack); one that only reads host memory (NumPy's
# np.from_dlpack) does not, and would fail on a device array with its own
# "unsupported device" words: it gets the hint to a.numpy() instead.
_asked = threading.local()


def _array_dlpack_device(self):
    _asked.array = id(self)
    return _CORE_DLPACK_DEVICE(self)


def _on_host(a) -> bool:
    return a.device.name in ("cpu", "interp")


def _array_dlpack(self, stream=None, max_version=None, dl_device=None, copy=None):
    """The array for a DLPack consumer: in place, on its own device. A consumer that asks for the host
    (dl_device=(kDLCPU, 0), as np.from_dlpack(a, device="cpu") does) of an array on another device gets a
    host copy, as the protocol has it, unless it said copy=False."""
    asked, _asked.array = getattr(_asked, "array", None) == id(self), None
    if dl_device is not None and tuple(dl_device)[0] == _KDL_CPU and not _on_host(self):
        if copy is False:
            raise BufferError(f"tack: the array lives on the {self.device.name} device, not in host memory, and "
                              "copy=False was asked; read it on the host with a.numpy()")
        return self.numpy().__dlpack__(max_version=max_version)
    if dl_device is None and stream is None and not asked and not _on_host(self):
        raise BufferError(f"tack: this array lives on the {self.device.name} device, not in host memory, and the "
                          "consumer did not ask where it lives (NumPy reads host memory only): copy it to the host "
                          "with a.numpy(), or np.from_dlpack(a, device='cpu')")
    return _CORE_DLPACK(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)


def _array_repr(self):
    return f"tack.Array(shape={self.shape}, dtype={np.dtype(self.dtype).name}, device='{self.device.name}')"


def _array_len(self):
    return self.shape[0]


_core.Device.array = _device_array
_core.Device.zeros = _device_zeros
_core.Device.empty = _device_empty
_core.Device.empty_exportable = _device_empty_exportable
_core.Device.capabilities = property(_device_capabilities, doc=Capabilities.__doc__)
_core.Array.dtype = property(_array_dtype, doc="The element type, as a NumPy dtype.")
_core.Array.numpy = _array_numpy
_core.Array.read_range = _array_read_range
_core.Array.__array__ = _array_array
_core.Array.__repr__ = _array_repr
_core.Array.__dlpack__ = _array_dlpack
_core.Array.__dlpack_device__ = _array_dlpack_device
_core.Array.__len__ = _array_len


def device(name=None, **options):
    """The device `name` ('cpu', 'interp', 'opencl', 'cuda', ...); None means TACK_DEVICE, else the default.
    Unknown names and options raise InvalidArgument before anything is made; a backend that cannot run here
    raises BackendUnavailable (an ImportError) with the reason."""
    return _core.device(name or "", options)


def from_dlpack(obj, device=None):
    """An array over obj's memory without a copy (a __dlpack__ producer or a 'dltensor' capsule): NumPy
    arrays and other host memory on the CPU, device memory on cuda. The producer's memory stays alive
    until the array and the launches that use it are gone."""
    if isinstance(obj, _core.Array):
        return obj
    if hasattr(obj, "__dlpack__"):
        if hasattr(obj, "__dlpack_device__"):
            obj.__dlpack_device__()    # as every consumer that takes device memory asks first
        try:
            capsule = obj.__dlpack__(max_version=(1, 0))  # DLPack 1.0 carries the read-only flag
        except TypeError:  # a producer of DLPack 0.x takes no max_version
            capsule = obj.__dlpack__()
    else:
        capsule = obj
    return _core._from_dlpack_capsule(capsule, device)


def array_from_ptr(device, address, dtype, shape, keep_alive=None):
    """An array over memory Tack did not allocate (a host pointer on cpu and interp, a device pointer on
    cuda). Tack never frees it; keep_alive is held until the array and its launches are done."""
    return _core._array_from_ptr(device, int(address), to_dtype(dtype), _shape(shape), keep_alive)


def texture3d(array, shape):
    """A 3-D f32 texture: a copy of array (width*height*depth elements), taken now and at update()."""
    return _core.texture3d(array, [int(d) for d in shape])


def ArraySpec(dtype, rank=1):  # noqa: N802 - reads as the C++ type it stands for
    """An array argument without data, for tack.inspect."""
    return _core.ArraySpec(to_dtype(dtype), int(rank))


def inspect(kernel, backend, *args):
    """What kernel becomes for these arguments on backend, without running anything: .ir (traced),
    .typed_ir (typed and optimized) and .source (the code the backend compiles)."""
    return _core.inspect(kernel, backend, list(args))


def _precompile_args(args):
    """Arguments for precompile: arrays or ArraySpecs, textures, and scalars given by a value (a Python
    number is weak), by a NumPy dtype or type (strong), or by the type float or int (weak)."""
    out = []
    for a in args:
        if a is float or a is int:
            out.append(a)
        elif a is bool:
            out.append(_core.DType.bool)
        elif isinstance(a, np.dtype) or (isinstance(a, type) and issubclass(a, np.generic)):
            out.append(to_dtype(a))
        else:
            out.append(a)
    return out


def precompile(device, requests, threads=0):
    """Compiles (or loads from the disk cache) a variant for each (kernel, arguments) pair on device,
    launching nothing, `threads` at a time (0: one per core). Later calls with arguments of the same
    kinds, dtypes and ranks find them in memory. Every request is tried; the first failure is raised."""
    pairs = []
    for r in requests:
        if not (isinstance(r, (tuple, list)) and len(r) == 2):
            raise _TackTypeError(f"tack.precompile takes (kernel, arguments) pairs, got {type(r).__name__}")
        pairs.append((r[0], _precompile_args(r[1])))
    _core._precompile(device, pairs, int(threads))


def _kernel_precompile(self, device, *args):
    """Compiles the variant these arguments select on device, without launching (see tack.precompile)."""
    _core._precompile(device, [(self, _precompile_args(args))], 1)


_core.Kernel.precompile = _kernel_precompile
compile_stats = _core.compile_stats
reset_compile_stats = _core.reset_compile_stats
