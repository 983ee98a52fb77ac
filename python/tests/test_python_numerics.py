"""A Python kernel's `/`, `//`, `%` and divmod mean what they mean in Python and
NumPy (issue 28), checked against NumPy itself on every executing backend:
true division gives f64 for integers and keeps a float type, floor division
and the remainder round toward minus infinity, on floats bit for bit NumPy's
floor_divide and remainder. Also a.shape[-1] and the rank that unpacking a
shape requires."""
import inspect

import numpy as np
import pytest

import tack
from tack import _core

# Integer rows: signs, zero divisors (NumPy gives 0 for // and %, inf or NaN for /), MIN // -1.
I32_A = [7, -7, 7, -7, 5, -5, 0, -2**31, -2**31, 3, 1]
I32_B = [2, 2, -2, -2, 0, 0, 0, -1, 3, -2**31, 3]

# Float rows: the edges of Python's float // and % (1.0 // 0.1 == 9, -4.0 % 2.0 == +0.0,
# -0.0 // 1.0 == -0.0, by zero), infinities, NaN and snapping cases.
F_A = [1.0, 0.7, -0.7, -4.0, -1.5, 5.0, -0.0, 0.0, 7.5, -7.5, 7.5, -7.5, 1.0, -1.0, 0.0, 1.0, -1.0, 1.0,
       np.inf, np.nan, 1.0, -64.558, 17.48, -20.29, 1e-45]
F_B = [0.1, 0.1, 0.1, 2.0, 2.0, -3.0, 1.0, -1.0, 2.0, 2.0, -2.0, -2.0, 0.0, 0.0, 0.0, -0.0, np.inf, np.inf,
       1.0, 1.0, np.nan, -0.3, 1.1, 0.1, 1.0]


def same_bits(got, want):
    """Equal bit for bit (so -0.0 is not +0.0), any NaN equal to any NaN."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if got.dtype.kind == "f":
        nan = np.isnan(got) & np.isnan(want)
        uint = np.uint32 if got.dtype == np.float32 else np.uint64
        bad = ~nan & (got.view(uint) != want.view(uint))
    else:
        bad = got != want
    assert not bad.any(), "\n".join(f"[{i}] got {got[i]!r}, NumPy {want[i]!r}" for i in np.flatnonzero(bad))


def needs_f64(device):
    if not device.capabilities.supports_f64:
        pytest.skip(f"{device.name} has no f64")


@tack.kernel
def divisions(q: tack.Array, f: tack.Array, r: tack.Array, a: tack.Array, b: tack.Array):
    for i in tack.parallel(a.size):
        q[i] = a[i] / b[i]
        f[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


def run_divisions(device, a, b, quotient_dtype):
    n = a.size
    q = device.zeros(n, quotient_dtype)
    f, r = device.zeros(n, a.dtype), device.zeros(n, a.dtype)
    divisions(q, f, r, device.array(a), device.array(b))
    return q.numpy(), f.numpy(), r.numpy()


def test_integer_arrays(device):
    needs_f64(device)
    a, b = np.array(I32_A, np.int32), np.array(I32_B, np.int32)
    q, f, r = run_divisions(device, a, b, np.float64)
    with np.errstate(all="ignore"):
        assert (a / b).dtype == np.float64
        same_bits(q, a / b)
        same_bits(f, a // b)
        same_bits(r, a % b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_arrays(device, dtype):
    if dtype == np.float64:
        needs_f64(device)
    a, b = np.array(F_A, dtype), np.array(F_B, dtype)
    q, f, r = run_divisions(device, a, b, dtype)
    with np.errstate(all="ignore"):
        same_bits(q, a / b)
        same_bits(f, np.floor_divide(a, b))
        same_bits(r, np.remainder(a, b))
    assert f[0] == 9.0 and str(r[3]) == "0.0" and str(f[6]) == "-0.0"   # 1 // 0.1, -4 % 2, -0.0 // 1


@tack.kernel
def weak_divisors(index_q: tack.Array, u8_q: tack.Array, x_q: tack.Array, u: tack.Array, x: tack.Array):
    for i in tack.parallel(u.size):
        index_q[i] = i / 3       # i64 / weak int: f64
        u8_q[i] = u[i] / 3       # u8 / weak int: f64
        x_q[i] = x[i] / 3        # f32 / weak int: stays f32


def test_weak_int_divisors(device):
    needs_f64(device)
    u = np.array([0, 1, 2, 255], np.uint8)
    x = np.array([1.0, 2.0, -1.0, 0.1], np.float32)
    outs = [device.zeros(4, np.float64) for _ in range(3)]
    weak_divisors(*outs, device.array(u), device.array(x))
    same_bits(outs[0].numpy(), np.arange(4, dtype=np.int64) / 3)
    same_bits(outs[1].numpy(), u / 3)
    assert (x / 3).dtype == np.float32
    same_bits(outs[2].numpy(), (x / 3).astype(np.float64))     # an f32 quotient, widened by the store


def test_typed_ir_of_true_division():
    i32, f32 = tack.ArraySpec(np.int32), tack.ArraySpec(np.float32)
    f64 = tack.ArraySpec(np.float64)
    ir = tack.inspect(divisions, "interp", f64, i32, i32, i32, i32).typed_ir
    assert "div.f64(cast.f64(" in ir and "truediv" not in ir, ir
    ir = tack.inspect(divisions, "interp", f32, f32, f32, f32, f32).typed_ir
    assert "div.f32(" in ir and "f64" not in ir, ir


def test_integer_true_division_is_refused_without_f64():
    i32 = tack.ArraySpec(np.int32)
    with pytest.raises(tack.TypeError) as e:
        tack.inspect(divisions, "metal", tack.ArraySpec(np.float32), i32, i32, i32, i32)
    msg = str(e.value)
    line = inspect.getsourcelines(divisions.python_function)[1] + 3   # q[i] = a[i] / b[i]
    assert f"{__file__}:{line}" in msg, msg
    assert "true division (/) of integers (int32) gives float64" in msg and "metal backend has no float64" in msg, msg
    assert "tack.cast(x, np.float32)" in msg and "floor division (//)" in msg and "cast<" not in msg, msg


def core_kernel(name, nparams, body):
    """A kernel traced by calling the _core tracing API directly (what the front end calls)."""
    line = inspect.currentframe().f_back.f_lineno
    return _core.Kernel(name, [(_core.ArgKind.array, None)] * nparams, body, __file__, line)


def test_value_divmod_is_floordiv_and_floormod(device):
    def body(params):
        q, r, a, b = params
        _core.set_location(__file__, inspect.currentframe().f_lineno)
        (i,) = _core.begin_parallel([a.size])
        x, y = a.load([i]), b.load([i])
        quotient, remainder = divmod(x, y)
        q.store([i], quotient)
        r.store([i], remainder)
        rq, rr = divmod(7, y)              # __rdivmod__: a Python int on the left
        q.store([i + a.size], rq)
        r.store([i + a.size], rr)
        _core.end_parallel()
        _core.set_location(None, 0)

    k = core_kernel("divmod_pairs", 4, body)
    for dtype in (np.int32, np.float32):
        rows_a, rows_b = (F_A[:12], F_B[:12]) if dtype == np.float32 else (I32_A, I32_B)
        a, b = np.array(rows_a, dtype), np.array(rows_b, dtype)
        q, r = device.zeros(2 * a.size, dtype), device.zeros(2 * a.size, dtype)
        k(q, r, device.array(a), device.array(b))
        with np.errstate(all="ignore"):
            want_q = np.concatenate([np.floor_divide(a, b), np.floor_divide(dtype(7), b)])
            want_r = np.concatenate([np.remainder(a, b), np.remainder(dtype(7), b)])
        same_bits(q.numpy(), want_q.astype(dtype))
        same_bits(r.numpy(), want_r.astype(dtype))


def test_core_true_div_floordiv_floormod_functions(cpu):
    def body(params):
        out, a = params
        (i,) = _core.begin_parallel([a.size])
        x = a.load([i])
        out.store([i * 3], _core.true_div(x, 2))
        out.store([i * 3 + 1], _core.floordiv(x, 2))
        out.store([i * 3 + 2], _core.floormod(x, 2))
        _core.end_parallel()

    k = core_kernel("core_divisions", 2, body)
    a = np.array([7, -7], np.int64)
    out = cpu.zeros(6, np.float64)
    k(out, cpu.array(a))
    np.testing.assert_array_equal(out.numpy(), [3.5, 3, 1, -3.5, -4, 1])


@tack.kernel
def last_extent(out: tack.Array, a: tack.Array):
    for i in tack.parallel(1):
        out[0] = a.shape[-1]
        out[1] = a.shape[-2]


def test_shape_counts_from_the_end(device):
    out = device.zeros(2, np.int64)
    last_extent(out, device.zeros((3, 5), np.float32))
    assert out.numpy().tolist() == [5, 3]
    last_extent(out, device.zeros((2, 4, 7), np.float32))
    assert out.numpy().tolist() == [7, 4]
    with pytest.raises(tack.IndexError, match=r"shape\[-2\] of argument 'a' \(the 2nd\), which has rank 1 here"):
        last_extent(out, device.zeros(6, np.float32))


def test_unpacking_a_shape_requires_its_rank(cpu):
    unpack_line = inspect.currentframe().f_lineno + 5   # h, w = a.shape

    def body(params):
        out, a = params
        _core.set_location(__file__, unpack_line)
        h, w = a.shape.unpack(2)
        _core.set_location(None, 0)
        (i,) = _core.begin_parallel([1])
        out.store([i], h * 10 + w)
        _core.end_parallel()

    k = core_kernel("unpacks", 2, body)
    out = cpu.zeros(1, np.int64)
    k(out, cpu.zeros((3, 4), np.float32))
    assert out.numpy()[0] == 34
    with pytest.raises(tack.InvalidArgument) as e:
        k(out, cpu.zeros((2, 3, 4), np.float32))
    msg = str(e.value)
    assert f"{__file__}:{unpack_line}" in msg, msg
    assert "the 2nd argument has rank 3 here, but this line needs rank 2: it unpacks the shape into 2 names" in msg, msg


def test_require_rank_is_part_of_the_kernel():
    def body(params):
        out, a = params
        a.require_rank(3)
        (i,) = _core.begin_parallel([out.size])
        out.store([i], 0)
        _core.end_parallel()

    k = core_kernel("ranked", 2, body)
    assert "%1: Array<rank 3>" in tack.inspect(k, "interp", tack.ArraySpec(np.float32),
                                               tack.ArraySpec(np.float32, 3)).ir
