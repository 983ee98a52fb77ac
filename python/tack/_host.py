"""The host API's functions in Python's conventions, over tack._core: devices,
arrays over foreign memory, textures, tack.inspect and tack.precompile. The
classes are tack.Device (_device.py) and tack.Array (_array.py)."""
import numpy as np

from . import _core
from ._dtypes import to_dtype
from ._errors import TypeError as _TackTypeError


def shape_list(shape):
    """A shape (an int or a sequence of ints) as a list of ints."""
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    try:
        return [int(d) for d in shape]
    except TypeError:
        raise _TackTypeError(f"a shape is an int or a sequence of ints, got {shape!r}") from None


def device(name=None, **options):
    """The device `name` ('cpu', 'interp', 'opencl', 'cuda', ...); None means TACK_DEVICE, else the default.
    Unknown names and options raise InvalidArgument before anything is made; a backend that cannot run here
    raises BackendUnavailable (an ImportError) with the reason.

    >>> tack.device("cpu").name
    'cpu'
    >>> try:
    ...     tack.device("cpu", num_thread=2)
    ... except tack.InvalidArgument as e:
    ...     print(e)  # doctest: +ELLIPSIS
    device 'cpu' has no option 'num_thread' (did you mean 'num_threads'?)...
    """
    return _core.device(name or "", options)


def from_dlpack(obj, device=None):
    """An array over obj's memory without a copy (a __dlpack__ producer or a 'dltensor' capsule): NumPy
    arrays and other host memory on the CPU, device memory on cuda. The producer's memory stays alive
    until the array and the launches that use it are gone.

    >>> host = np.zeros(4, np.float32)
    >>> a = tack.from_dlpack(host)     # a tack.Array on the cpu device, over host's memory
    >>> a.fill(2.5)                    # Tack writes, NumPy sees it
    >>> host
    array([2.5, 2.5, 2.5, 2.5], dtype=float32)
    """
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
    return _core._array_from_ptr(device, int(address), to_dtype(dtype), shape_list(shape), keep_alive)


def texture3d(array, shape):
    """A 3-D f32 texture: a copy of array (width*height*depth elements), taken now and at update()."""
    return _core.texture3d(array, [int(d) for d in shape])


def ArraySpec(dtype, rank=1):  # noqa: N802 - reads as the C++ type it stands for
    """An array argument without data, for tack.inspect."""
    return _core.ArraySpec(to_dtype(dtype), int(rank))


def inspect(kernel, backend, *args):
    """What kernel becomes for these arguments on backend, without running anything: a tack.Inspection
    with .ir (traced), .typed_ir (typed and optimized) and .source (the code the backend compiles).
    Arrays may be given as tack.ArraySpec(dtype, rank), with no data.

    >>> @tack.kernel
    ... def double(y: tack.Array, x: tack.Array):
    ...     for i in tack.parallel(y.size):
    ...         y[i] = 2 * x[i]
    >>> info = tack.inspect(double, "cpu", tack.ArraySpec(np.float32), tack.ArraySpec(np.float32))
    >>> print(info.ir)
    kernel double(%0: Array, %1: Array)
    parallel_for [size(%0)] {
      let t0 = load %1[index0]
      store %0[index0] = mul(weak.i32(2), t0)
    }
    <BLANKLINE>
    """
    if hasattr(kernel, "_flat_args"):      # a @tack.struct parameter: its fields (_bundles.py)
        args = kernel._flat_args(args)
    kernel = getattr(kernel, "_core_kernel", kernel)  # a struct kernel's derivative (_autodiff.py)
    return _core.inspect(kernel, backend, list(args))


def precompile_args(args):
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
        args = r[0]._flat_args(r[1]) if hasattr(r[0], "_flat_args") else r[1]
        pairs.append((r[0], precompile_args(args)))
    _core._precompile(device, pairs, int(threads))


compile_stats = _core.compile_stats
reset_compile_stats = _core.reset_compile_stats
