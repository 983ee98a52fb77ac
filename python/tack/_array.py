"""tack.Array, the one array type: a device array in Python's conventions (NumPy
dtypes, NumPy copies out, DLPack, asyncio) over _core's, which holds the C++
tack::Array. The class registers itself with _core, so every array Tack returns
is a tack.Array; tack.Array[np.float32] is also a kernel parameter annotation."""
import threading

import numpy as np

from . import _core
from ._async import device_future
from ._dtypes import to_numpy
from ._types import Array as _ArrayAnnotation, ParamSpec

_KDL_CPU = 1
# The array whose __dlpack_device__ this thread was last asked for. A consumer
# that can take memory on a device asks where an array lives first (torch,
# CuPy, JAX, tack.from_dlpack); one that only reads host memory (NumPy's
# np.from_dlpack) does not, and would fail on a device array with its own
# "unsupported device" words: it gets the hint to a.numpy() instead.
_asked = threading.local()


def _on_host(a) -> bool:
    return a.device.name in ("cpu", "interp")


class Array(_core.Array):
    """An array on a device (made by Device.array, zeros, empty, tack.from_dlpack, ...): 1 to 4
    dimensions of one dtype. Reading it on the host (numpy(), read_range(), sum()) waits for the
    launches queued before; as an annotation, tack.Array and tack.Array[dtype] mark an array parameter."""

    __slots__ = ()
    _tack_param_ = ParamSpec(_core.ArgKind.array, None, "tack.Array")  # the annotation tack.Array (see _types.param_spec)

    def __class_getitem__(cls, dtype):
        """tack.Array[np.float32]: an array parameter that accepts only this dtype."""
        return _ArrayAnnotation[dtype]

    @property
    def dtype(self):
        """The element type, as a NumPy dtype."""
        return to_numpy(self._dtype)

    def numpy(self):
        """A NumPy copy of the array; waits for the launches queued before it."""
        out = np.empty(self.shape, dtype=to_numpy(self._dtype))
        self._read_into(out, 0, self.size)
        return out

    async def numpy_async(self):
        """The array as NumPy once the launches queued before this call have run."""
        await device_future(self._when_done)
        return self.numpy()

    def read_range(self, start, count):
        """Elements [start, start + count) of the flat array, as a NumPy array; waits."""
        start, count = int(start), int(count)
        out = np.empty(max(count, 0), dtype=to_numpy(self._dtype))
        self._read_into(out, start, count)
        return out

    def __array__(self, dtype=None, copy=None):
        out = self.numpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    @property
    def __array_interface__(self):
        """The NumPy array interface (version 3) of an array in host memory (cpu, interp), so that
        np.asarray(a) and other readers of the interface view the memory in place. Like __dlpack__, it
        shares the array first (a.share()): the launches queued before have run, and each later launch
        that uses it completes before returning, since the reader may touch the memory with no Tack call
        in between. The consumer keeps this array, and so its memory, alive (NumPy holds it as the view's
        base). On other devices it is absent (AttributeError), so NumPy copies through __array__."""
        if not _on_host(self):
            raise AttributeError(f"tack: an array on the {self.device.name} device has no __array_interface__ "
                                 "(its memory is not host memory); read it with a.numpy()")
        return self._interface(self.share().handle)

    @property
    def __cuda_array_interface__(self):
        """The CUDA Array Interface (version 3) of an array on the cuda device, for CuPy, Numba, PyTorch and
        other readers of it. It shares the array first, as __dlpack__ does: the launches queued before have
        completed, and each later launch that uses it completes before returning, so the consumer needs no
        synchronization ("stream": None, as the interface says for that case). On other devices it is
        absent (AttributeError)."""
        if self.device.name != "cuda":
            raise AttributeError(f"tack: an array on the {self.device.name} device has no __cuda_array_interface__ "
                                 "(only cuda arrays do)")
        d = self._interface(self.share().handle)
        d["stream"] = None
        return d

    def _interface(self, address):
        # Tack arrays are C-contiguous (strides None) and writable; a zero-size array's address is 0 by the
        # CUDA interface's rule, which NumPy accepts too.
        return {"shape": self.shape, "typestr": np.dtype(self.dtype).str, "data": (address if self.size else 0, False),
                "strides": None, "version": 3}

    def __dlpack_device__(self):
        _asked.array = id(self)
        return self._dlpack_device()

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """The array for a DLPack consumer: in place, on its own device. A consumer that asks for the host
        (dl_device=(kDLCPU, 0), as np.from_dlpack(a, device="cpu") does) of an array on another device gets a
        host copy, as the protocol has it, unless it said copy=False."""
        asked, _asked.array = getattr(_asked, "array", None) == id(self), None
        if dl_device is not None and tuple(dl_device)[0] == _KDL_CPU and not _on_host(self):
            if copy is False:
                raise BufferError(f"tack: the array lives on the {self.device.name} device, not in host memory, "
                                  "and copy=False was asked; read it on the host with a.numpy()")
            return self.numpy().__dlpack__(max_version=max_version)
        if dl_device is None and stream is None and not asked and not _on_host(self):
            raise BufferError(f"tack: this array lives on the {self.device.name} device, not in host memory, and "
                              "the consumer did not ask where it lives (NumPy reads host memory only): copy it to "
                              "the host with a.numpy(), or np.from_dlpack(a, device='cpu')")
        return self._dlpack(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __repr__(self):
        return f"tack.Array(shape={self.shape}, dtype={np.dtype(self.dtype).name}, device='{self.device.name}')"

    def __len__(self):
        return self.shape[0]


_core._use_python_class(Array)
