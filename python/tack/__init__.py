"""Tack: compute kernels written once, in Python or C++, compiled at run time
for the CPU (LLVM), NVIDIA (CUDA), AMD (HIP), Intel (Level Zero), Apple (Metal)
and OpenCL devices, with one numerical contract on all of them::

    import numpy as np, tack

    @tack.kernel
    def saxpy(y: tack.Array, x: tack.Array, a: tack.Scalar):
        for i in tack.parallel(y.size):
            y[i] = a * x[i] + y[i]

    dev = tack.device()                  # TACK_DEVICE, else the default (cpu)
    x = dev.array(np.ones(1000, np.float32))
    y = dev.zeros(1000, np.float32)
    saxpy(y, x, 3.0)                     # a Python float is weak: computed in f32
    print(y.numpy()[:4])

See docs/python.md.
"""
from . import _core
from ._errors import (BackendError, BackendUnavailable, CompileError, Error, IndexError, InvalidArgument,
                      NotDifferentiable, TypeError, UnboundNameError)
from ._dtypes import to_dtype, to_numpy
from ._host import (ArraySpec, array_from_ptr, compile_stats, device, from_dlpack, inspect, precompile,
                    reset_compile_stats, texture3d)
from ._array import Array
from ._device import Capabilities, Device
from ._async import sync_async
from ._info import info

Texture = _core.Texture
NativeMemory = _core.NativeMemory
ExportedMemory = _core.ExportedMemory
Inspection = _core.Inspection
backend_names = _core.backend_names
sync = _core.sync
set_debug = _core.set_debug
debug = _core.debug

from ._frontend.builtins import *  # noqa: F401,F403 - the kernel language: parallel, sqrt, atomic_add, ...
from ._kernel import Kernel, func, kernel
from ._types import Scalar, Texture3D
from ._autodiff import Tape, adjoint, jvp

# Before the interpreter finalizes, Tack's wait threads must stop calling into it.
import atexit as _atexit

_atexit.register(_core._close_gate)

# The CPU's compiler (libtack_llvm and libLLVM) is not loaded here but at the
# first compile: a program whose kernels all come from the disk cache never
# loads it, and a background load would hold the dynamic linker's lock (about
# 15 ms) that a first call's own symbol lookups wait for.

__version__ = "0.1.0"
