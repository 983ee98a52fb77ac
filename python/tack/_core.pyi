# The native module `tack._core` (python/src/*.cpp, nanobind): the C++ core's
# host API and tracing API, as the Python front end and public API use them.
# Users import `tack`, never `tack._core`. This stub is the contract between the
# bindings and the pure-Python layer.
from typing import Any, Callable, Optional, Sequence

class DType:  # enum: tack::DType
    bool: DType
    i8: DType
    u8: DType
    i16: DType
    u16: DType
    i32: DType
    u32: DType
    i64: DType
    u64: DType
    f32: DType
    f64: DType
    name: str  # "f32", ...

# ---- errors -------------------------------------------------------------------
# C++ exceptions are translated to the classes of tack._errors (Error,
# InvalidArgument, TypeError, IndexError, CompileError, BackendError,
# BackendUnavailable), with the C++ message unchanged.

# ---- host API -------------------------------------------------------------------
class Capabilities:
    name: str
    display_name: str
    supported_dtypes: list[DType]
    supports_f64: bool
    supports_device_reductions: bool
    supports_workgroups: bool
    supported_atomic_dtypes: list[DType]
    device_memory_spaces: list[str]
    device_options: list[str]
    supports_exportable_memory: bool
    supports_wrapped_memory: bool
    dlpack_refusal_note: str

# tack.Device and tack.Array subclass Device and Array below (tack/_device.py, tack/_array.py,
# with the Python methods in their class bodies) and register themselves; every device and
# array _core returns is an instance of the registered class.
def _use_python_class(cls: type) -> None: ...

class Device:
    name: str
    _capabilities: Capabilities
    def from_buffer(self, data: Any, dtype: DType, shape: Sequence[int]) -> Array: ...
        # data: a C-contiguous buffer-protocol object of that dtype (a NumPy array); copied
    def zeros(self, dtype: DType, shape: Sequence[int]) -> Array: ...
    def empty(self, dtype: DType, shape: Sequence[int]) -> Array: ...
    def empty_exportable(self, dtype: DType, shape: Sequence[int]) -> Array: ...
    def synchronize(self) -> None: ...          # releases the GIL
    def when_done(self, callback: Callable[[Optional[BaseException]], None]) -> None: ...
        # marks the queue now; callback(None or the launch's error) runs once reached,
        # in a tack-wait thread holding the GIL (or inline when nothing is queued)
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

def device(name: str, options: dict[str, bool | int | float | str]) -> Device: ...
def backend_names() -> list[str]: ...
def sync() -> None: ...                        # releases the GIL
def when_all_done(callback: Callable[[Optional[BaseException]], None]) -> None: ...

class NativeMemory:
    kind: str
    handle: int
    bytes: int
    device_id: int

class ExportedMemory:
    fd: int
    allocation_bytes: int
    bytes: int
    device_ordinal: int

class Array:
    dtype: DType
    shape: tuple[int, ...]
    size: int
    device: Device
    def read_into(self, out: Any, start: int, count: int) -> None: ...
        # out: a writable C-contiguous NumPy array of the array's dtype, >= count elements; waits
    def when_done(self, callback: Callable[[Optional[BaseException]], None]) -> None: ...
    def fill(self, value: bool | int | float) -> None: ...   # Python int/float converted as cast() does
    def sum(self) -> int | float: ...   # ints: Python int (wraps in 64 bits, signed or unsigned), floats: float (f64 accumulation)
    def min(self) -> int | float: ...
    def max(self) -> int | float: ...
    def share(self) -> NativeMemory: ...
    def shared(self) -> bool: ...
    def export_memory(self) -> ExportedMemory: ...
    def _dlpack(self, stream: Any = None, max_version: Any = None, dl_device: Any = None, copy: Any = None) -> Any: ...
        # a "dltensor" PyCapsule of to_dlpack() (tack.Array.__dlpack__ decides when to hand it out)
    def _dlpack_device(self) -> tuple[int, int]: ...

def array_from_ptr(device: Device, address: int, dtype: DType, shape: Sequence[int], keep_alive: Any = None) -> Array: ...
def from_dlpack_capsule(capsule: Any, device: Optional[Device], keep_alive: Any) -> Array: ...
    # consumes a "dltensor" capsule (renamed "used_dltensor" on success)

class Texture:
    shape: tuple[int, int, int]
    device: Device
    def update(self) -> None: ...

def texture3d(array: Array, shape: Sequence[int]) -> Texture: ...

def set_debug(on: bool) -> None: ...
def debug() -> bool: ...

# ---- kernels ----------------------------------------------------------------------
class ArraySpec:
    def __init__(self, dtype: DType, rank: int) -> None: ...

class ArgKind:  # enum
    array: ArgKind
    scalar: ArgKind
    texture: ArgKind

class Kernel:
    def __init__(self, name: str, params: Sequence[tuple[ArgKind, Optional[DType]]],
                 body: Callable[[list], None], file: str, line: int,
                 param_names: Sequence[str] = ()) -> None: ...
        # body(params) is called at the first call or inspect, while the kernel is traced,
        # and again when a global it read has changed (_set_global_guards); params holds
        # one ArrayParam / ScalarParam / TextureParam per parameter. param_names allow
        # keyword arguments at the call and name arguments in messages.
    name: str
    def ir(self) -> str: ...
    def __call__(self, *args, **kwargs) -> None: ...
    def __call__(self, *args: Any) -> None: ...
        # Array, Texture, Python bool/int/float (int and float are weak scalars: i64 / f64
        # holding the value, adapting where used), NumPy scalars (strong). A fixed-dtype
        # Scalar parameter converts a Python number to its dtype. Releases the GIL while
        # the launch runs.

class Inspection:
    ir: str
    typed_ir: str
    source: str

def inspect(kernel: Kernel, backend: str, args: Sequence[Any]) -> Inspection: ...
    # args as for Kernel.__call__, plus ArraySpec for arrays

# ---- the tracing API (valid only while a kernel is traced) ----------------------------
def set_location(file: Optional[str], line: int) -> None: ...
    # every traced call on this thread takes this file and line until changed; None clears

class Value:
    # Operators: + - * / // % & | ^ << >> ** divmod() (and reflected), unary - + ~, comparisons
    # (== != < <= > >= return Values). As in Python and NumPy: / is true_div, // floordiv,
    # % floormod, divmod(a, b) the tuple (floordiv, floormod). Operands may be Values or Python bool/int/float
    # (weak literals: int -> i32 literal if it fits, else i64, else u64; float -> f64 literal)
    # or NumPy scalars (strong: a cast of the literal).  __bool__ raises tack.TypeError.
    def cast(self, dtype: DType) -> Value: ...

def literal(v: bool | int | float) -> Value: ...
def truthy(v) -> Value: ...           # Python's truth of a traced value: v itself if bool, else v != 0
def _set_global_guards(kernel: Kernel, records: list, changed: Callable) -> None: ...
    # records: (namespace dict or cell, name, object seen, deep, snapshot) per global read while
    # tracing; each call compares them (by identity, then changed(record, now, present)).
def logical_and(a, b) -> Value: ...   # C++ &&, both sides evaluated
def logical_or(a, b) -> Value: ...
def logical_not(a) -> Value: ...
def cast(dtype: DType, v) -> Value: ...
def select(c, a, b) -> Value: ...
# Math, each taking Values or literals: abs min max clamp floor ceil round trunc sqrt rsqrt exp
# exp2 log log2 log10 sin cos tan asin acos atan atan2 sinh cosh tanh pow fma copysign isnan
# isinf floordiv floormod true_div.
#   true_div(a, b): Python's a / b; floats divide in their type, integers and bool in f64.
#   floordiv(a, b), floormod(a, b): Python's a // b and a % b (floats exactly as NumPy computes them).

class ScalarParam(Value):
    param: int

class Shape:
    def __getitem__(self, dim: int) -> Value: ...   # i64 extent; dim < 0 counts from the end
    def unpack(self, n: int) -> tuple[Value, ...]: ...
        # `h, w = a.shape`: requires rank n (as ArrayParam.require_rank, refused at the call
        # otherwise) and returns shape[0] .. shape[n - 1]

class ArrayParam:
    size: Value
    shape: Shape
    def require_rank(self, n: int) -> None: ...
        # the traced code relies on rank n: a call with another rank is refused at this line
    def load(self, index: Sequence[Value | int]) -> Value: ...      # 1 index: flat a[i]; 2-4: a(i, j, ...)
    def store(self, index: Sequence[Value | int], value: Value | int | float) -> None: ...

class SharedArray:
    size: Value
    def load(self, index: Sequence[Value | int]) -> Value: ...
    def store(self, index: Sequence[Value | int], value: Value | int | float) -> None: ...

class LocalArray:  # tack.local_array: one work-item's own array
    size: Value
    count: int
    def load(self, index: Sequence[Value | int]) -> Value: ...
    def store(self, index: Sequence[Value | int], value: Value | int | float) -> None: ...

def local_array(dtype: DType, count: int) -> LocalArray: ...

class TextureParam:
    def sample(self, u, v, w) -> Value: ...

class Var:
    def __init__(self, init: Value | int | float | bool, name: str | None = None) -> None: ...
        # declares it here; `name` (e.g. "acc.x") shows in tack.inspect's IR
    value: Value                      # reading it: a snapshot of its current value (C++ operator Value)
    def assign(self, v: Value | int | float | bool) -> None: ...

def require_element_shape(array: ArrayParam, rows: int, cols: int) -> None: ...
    # each element of `array` is a vecN (rows N, cols 0) or a matRC (rows R, cols C): a call whose
    # array's trailing dimensions are not (N,) or (R, C) is refused with InvalidArgument
def if_(cond: Value, then_body: Callable[[], None], else_body: Optional[Callable[[], None]]) -> None: ...
def for_range(lo, hi, body: Callable[[Value], None]) -> None: ...
def while_(cond: Callable[[], Value], body: Callable[[], None]) -> None: ...
def break_() -> None: ...
def continue_() -> None: ...
def begin_parallel(dims: Sequence[Value | int]) -> list[Value]: ...   # one index per dim
def end_parallel() -> None: ...

class Group:
    local_id: Value
    group_id: Value
    size: Value
    num_groups: Value
    global_id: Value
    def shared(self, dtype: DType, count: int) -> SharedArray: ...
    def barrier(self) -> None: ...
    def reduce_add(self, v) -> Value: ...
    def reduce_min(self, v) -> Value: ...
    def reduce_max(self, v) -> Value: ...

def workgroup_for(num_groups, body: Callable[[Group], None]) -> None: ...

# random.cpp: Philox4x32-10 and the Random stream (<tack/random.hpp>)
def philox4x32(c0, c1, c2, c3, k0, k1) -> tuple[Value, Value, Value, Value]: ...
class Random:
    def __init__(self, seed, stream) -> None: ...   # block 0 is computed here; the position lives in Vars
    def next_u32(self) -> Value: ...
    def uniform(self, dtype: DType = ...) -> Value: ...   # f32 or f64
    def normal(self, dtype: DType = ...) -> Value: ...
    def integers(self, lo, hi) -> Value: ...         # i64 in [lo, hi)

def print_(format: str, args: list, cond=None) -> None: ...
def atomic(op: str, array: ArrayParam | SharedArray | LocalArray, index, value, expected=None) -> Value: ...
    # op: add sub min max and or xor exchange cas (cas needs expected); returns the old value
