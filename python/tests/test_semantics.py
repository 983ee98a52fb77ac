"""The numerical contract and typing rules as Python kernels meet them: weak
Python scalars, fixed-dtype scalars, integer division, N-D launches, debug
mode's IndexError naming the Python line, and core type errors carrying it."""
import numpy as np
import pytest

import tack


@tack.kernel
def add_scalar(out: tack.Array, a: tack.Array, s: tack.Scalar):
    for i in tack.parallel(a.size):
        out[i] = a[i] + s


def test_weak_python_int_stays_in_the_arrays_dtype(device):
    a = device.array(np.array([255, 7], np.uint8))
    out = device.zeros(2, np.int64)
    add_scalar(out, a, 1)                 # weak: u8 arithmetic, 255 + 1 wraps to 0
    np.testing.assert_array_equal(out.numpy(), [0, 8])
    add_scalar(out, a, np.int64(1))       # strong i64: no wrap
    np.testing.assert_array_equal(out.numpy(), [256, 8])


def test_weak_python_float_computes_in_f32(device):
    if not device.capabilities.supports_f64:
        pytest.skip(f"{device.name} has no f64")
    a = device.array(np.array([0.7], np.float32))
    out = device.zeros(1, np.float64)
    add_scalar(out, a, 0.1)
    assert out.numpy()[0] == np.float64(np.float32(0.7) + np.float32(0.1))
    add_scalar(out, a, np.float64(0.1))
    assert out.numpy()[0] == np.float64(np.float32(0.7)) + 0.1


def test_weak_and_strong_calls_have_their_own_typed_ir():
    spec = tack.ArraySpec(np.float32)
    weak = tack.inspect(add_scalar, "interp", spec, spec, 2.0).typed_ir
    strong = tack.inspect(add_scalar, "interp", spec, spec, np.float64(2.0)).typed_ir
    assert "Scalar<f64>" in weak and "add.f32" in weak
    assert "add.f64" in strong


@tack.kernel
def fixed_scalar(out: tack.Array[np.int64], s: tack.Scalar[np.int32]):
    for i in tack.parallel(out.size):
        out[i] = s + 0


def test_fixed_scalar_converts_python_numbers(cpu):
    out = cpu.zeros(1, np.int64)
    fixed_scalar(out, 7)
    assert out.numpy()[0] == 7
    fixed_scalar(out, np.int32(-3))
    assert out.numpy()[0] == -3
    with pytest.raises(tack.TypeError, match=r"argument 's' \(the 2nd\): the parameter is declared tack.Scalar\[np.int32\], got a Python float"):
        fixed_scalar(out, 1.5)
    with pytest.raises(tack.TypeError, match="does not fit it"):
        fixed_scalar(out, 2**40)
    with pytest.raises(tack.TypeError, match=r"declared tack.Scalar\[np.int32\], got a scalar of dtype int64"):
        fixed_scalar(out, np.int64(1))
    with pytest.raises(tack.TypeError, match=r"declared tack.Array\[np.int64\], got float32"):
        fixed_scalar(cpu.zeros(1, np.float32), 1)


def test_huge_python_int_is_refused(cpu):
    with pytest.raises(tack.InvalidArgument, match="does not fit 64 bits"):
        add_scalar(cpu.zeros(1, np.int64), cpu.zeros(1, np.int64), 2**70)


@tack.kernel
def division(q: tack.Array, r: tack.Array, f: tack.Array, a: tack.Array, b: tack.Array):
    for i in tack.parallel(a.size):
        q[i] = a[i] / b[i]
        r[i] = a[i] % b[i]
        f[i] = a[i] // b[i]


def test_integer_division_is_true_division_and_floor_division_floors(device):
    # As in Python and NumPy: / gives f64, // and % round toward minus infinity (by 0: 0).
    if not device.capabilities.supports_f64:
        pytest.skip(f"{device.name} has no f64")
    a = device.array(np.array([7, -7, 7, -7, 5, np.iinfo(np.int32).min], np.int32))
    b = device.array(np.array([2, 2, -2, -2, 0, -1], np.int32))
    q = device.zeros(6, np.float64)
    r, f = (device.zeros(6, np.int32) for _ in range(2))
    division(q, r, f, a, b)
    np.testing.assert_array_equal(q.numpy(), [3.5, -3.5, -3.5, 3.5, np.inf, 2.0**31])
    np.testing.assert_array_equal(r.numpy(), [1, 1, -1, -1, 0, 0])
    np.testing.assert_array_equal(f.numpy(), [3, -4, -4, 3, 0, np.iinfo(np.int32).min])


@tack.kernel
def fill_4d(out: tack.Array):
    for i, j, k, l in tack.parallel(out.shape[0], out.shape[1], out.shape[2], out.shape[3]):
        out[i, j, k, l] = tack.cast(((i * 10 + j) * 10 + k) * 10 + l, np.int32)


@tack.kernel
def fill_3d(out: tack.Array):
    for i, j, k in tack.parallel(out.shape[0], out.shape[1], out.shape[2]):
        out[i, j, k] = tack.cast((i * 10 + j) * 10 + k, np.int32)


def test_3d_and_4d_parallel(device):
    out = device.zeros((2, 3, 4, 5), np.int32)
    fill_4d(out)
    i, j, k, l = np.indices((2, 3, 4, 5))
    np.testing.assert_array_equal(out.numpy(), ((i * 10 + j) * 10 + k) * 10 + l)
    out3 = device.zeros((3, 4, 2), np.int32)
    fill_3d(out3)
    i, j, k = np.indices((3, 4, 2))
    np.testing.assert_array_equal(out3.numpy(), (i * 10 + j) * 10 + k)


@tack.kernel
def shifted_copy(out: tack.Array, a: tack.Array, shift: tack.Scalar):
    for i in tack.parallel(out.size):
        out[i] = a[i + shift]  # OUT OF RANGE


def test_debug_mode_index_error_names_the_python_line(device):
    was = tack.debug()
    tack.set_debug(True)
    try:
        a = device.array(np.arange(4, dtype=np.float32))
        out = device.zeros(4, np.float32)
        with pytest.raises(tack.IndexError) as e:
            shifted_copy(out, a, 2)
            out.numpy()
        line = next(n for n, t in enumerate(open(__file__).read().splitlines(), 1) if t.endswith("# OUT OF RANGE"))
        msg = str(e.value)
        # Work-items 2 and 3 both read out of range; on a backend that runs them in parallel
        # either may be the one recorded first.
        assert "kernel 'shifted_copy'" in msg and ("index 4" in msg or "index 5" in msg) and "extent 4" in msg, msg
        assert f"{__file__}:{line}" in msg, msg
        # The skipped loads gave 0; the in-range ones ran.
        np.testing.assert_array_equal(out.numpy(), [2, 3, 0, 0])
    finally:
        tack.set_debug(was)


@tack.kernel
def bad_bitand(y: tack.Array):
    for i in tack.parallel(y.size):
        y[i] = y[i] & 1  # BITAND


def test_core_type_errors_name_the_python_line(cpu):
    with pytest.raises(tack.TypeError) as e:
        bad_bitand(cpu.zeros(2, np.float32))
    line = next(n for n, t in enumerate(open(__file__).read().splitlines(), 1) if t.endswith("# BITAND"))
    assert f"kernel 'bad_bitand' at {__file__}:{line}: bitand needs integer or bool operands" in str(e.value)
    bad_bitand(cpu.zeros(2, np.int32))  # another dtype still works


def test_reductions_of_kernel_results(device):
    out = device.zeros(1001, np.float32)
    add_scalar(out, device.array(np.arange(1001, dtype=np.float32)), 0.5)
    assert out.sum() == float(np.arange(1001).sum() + 0.5 * 1001)
    assert out.min() == 0.5 and out.max() == 1000.5
