"""NumPy bool arrays in Tack: one byte an element on the host and in kernels.
A load gives a bool (an `if` condition, an operand of `and`/`or`/`not`, 0 or 1
beside a number); any nonzero byte is True, as NumPy reads it; a store converts
as Python's bool() does and writes exactly 0 or 1. Bool arrays and u8 arrays
are different variants of one kernel."""
import numpy as np
import pytest

import tack


def nonzero_bytes():
    """A bool array whose bytes are 0, 1, 2 and 255, as a host writes them through a uint8 view."""
    return np.array([0, 1, 2, 255, 0, 128], np.uint8).view(np.bool_)


def bytes_of(a):
    return a.numpy().view(np.uint8)


# ---- host arrays -------------------------------------------------------------


def test_bool_arrays_round_trip(device):
    host = np.array([[True, False, True], [False, False, True]])
    a = device.array(host)
    assert a.dtype == np.bool_ and a.shape == (2, 3)
    out = a.numpy()
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, host)
    np.testing.assert_array_equal(np.asarray(a), host)
    np.testing.assert_array_equal(a.read_range(2, 3), [True, False, False])
    assert a.read_range(0, 2).dtype == np.bool_
    assert device.array([True, False, True]).dtype == np.bool_  # a Python list of bools
    assert np.dtype(np.bool_) in device.capabilities.supported_dtypes
    assert np.dtype(np.bool_) not in device.capabilities.supported_atomic_dtypes


def test_zeros_empty_and_fill_convert_as_bool(device):
    z = device.zeros((2, 2), np.bool_)
    assert z.dtype == np.bool_
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 2), bool))
    assert device.empty(3, bool).dtype == np.bool_
    for value in (True, 2, -1, 0.5, float("nan"), float("inf"), np.float32(3), np.int8(-4)):
        z.fill(value)
        assert bytes_of(z).tolist() == [[1, 1], [1, 1]], value
    for value in (False, 0, 0.0, -0.0, np.float64(-0.0), np.uint64(0)):
        z.fill(value)
        assert bytes_of(z).tolist() == [[0, 0], [0, 0]], value


def test_host_bytes_other_than_0_and_1_are_kept_and_read_as_true(device):
    a = device.array(nonzero_bytes())
    np.testing.assert_array_equal(bytes_of(a), [0, 1, 2, 255, 0, 128])
    np.testing.assert_array_equal(a.numpy(), [False, True, True, True, False, True])


def test_reductions_count_like_numpy(device):
    a = device.array(nonzero_bytes())
    host = nonzero_bytes()
    assert a.sum() == int(host.sum()) == 4 and type(a.sum()) is int
    assert a.min() is False and a.max() is True
    assert device.array(np.ones(5, bool)).min() is True
    assert device.zeros(70000, np.bool_).max() is False  # more than one block of the host reduction
    assert device.zeros(0, np.bool_).sum() == 0
    with pytest.raises(tack.InvalidArgument, match="empty"):
        device.zeros(0, np.bool_).min()


def test_textures_need_f32(cpu):
    with pytest.raises(tack.TypeError, match="texture3d needs a float32 array.*got bool"):
        tack.texture3d(cpu.zeros(8, np.bool_), (2, 2, 2))


# ---- kernels -----------------------------------------------------------------


@tack.kernel
def masked(out: tack.Array, mask: tack.Array[np.bool_], x: tack.Array):
    for i in tack.parallel(x.size):
        if mask[i]:
            out[i] = x[i] + 1000
        else:
            out[i] = x[i]
        out[i] += (10 if mask[i] else 20) + (100 if mask[i] and x[i] > 2 else 0)
        out[i] += 1 if not mask[i] or x[i] == 1 else 0


def test_loads_are_conditions_and_nonzero_bytes_are_true(device):
    mask = nonzero_bytes()
    x = np.array([1, 1, 3, 3, 5, 0], np.int32)
    out = device.zeros(6, np.int32)
    masked(out, device.array(mask), device.array(x))
    m = mask.astype(bool)  # NumPy's own reading of the bytes
    want = x + np.where(m, 1000, 0) + np.where(m, 10, 20) + np.where(m & (x > 2), 100, 0)
    want += np.where(~m | (x == 1), 1, 0)
    np.testing.assert_array_equal(out.numpy(), want)


@tack.kernel
def store(out: tack.Array, x: tack.Array):
    for i in tack.parallel(x.size):
        out[i] = x[i]


def test_stores_convert_as_python_bool(device):
    floats = [0.0, -0.0, 2.0, float("nan"), 0.5, -1.0, float("inf"), 1e-300]
    ints = [0, 1, 2, 256, -256, -1]
    cases = [np.array(ints, np.int32), np.array(floats, np.float32)]  # 1e-300 is 0 in f32
    if np.dtype(np.float64) in device.capabilities.supported_dtypes:
        cases.append(np.array(floats, np.float64))
    for host in cases:
        out = device.array(np.full(host.size, 7, np.uint8).view(np.bool_))  # bytes 7: a store must write 0 or 1
        store(out, device.array(host))
        np.testing.assert_array_equal(bytes_of(out), [int(bool(v)) for v in host.tolist()], err_msg=str(host.dtype))
    # A bool array copied: bytes 2, 255 and 128 are stored back as 1.
    out = device.zeros(6, np.bool_)
    store(out, device.array(nonzero_bytes()))
    np.testing.assert_array_equal(bytes_of(out), [0, 1, 1, 1, 0, 1])


@tack.kernel
def compare(out: tack.Array, x: tack.Array):
    for i in tack.parallel(x.size):
        out[i] = x[i] > 0.5


@tack.kernel
def literals(out: tack.Array):
    for _ in tack.parallel(1):
        out[0] = 2
        out[1] = 0
        out[2] = -0.0
        out[3] = 0.25
        out[4] = True


def test_stores_of_comparisons_and_literals(device):
    x = np.array([0.0, 0.5, 0.75, -3.0, 2.0, np.nan], np.float32)
    out = device.zeros(6, np.bool_)
    compare(out, device.array(x))
    np.testing.assert_array_equal(out.numpy(), x > 0.5)
    np.testing.assert_array_equal(bytes_of(out), (x > 0.5).astype(np.uint8))
    out = device.array(np.full(5, 9, np.uint8).view(np.bool_))
    literals(out)
    np.testing.assert_array_equal(bytes_of(out), [1, 0, 0, 1, 1])


@tack.kernel
def mixed(out: tack.Array, count: tack.Array, mask: tack.Array, x: tack.Array, flags: tack.Array):
    for i in tack.parallel(x.size):
        out[i] = mask[i] * x[i]
        count[i] = mask[i] + flags[i]


def test_mixed_with_numbers_a_mask_is_0_or_1_as_in_numpy(device):
    mask = nonzero_bytes()[:4]
    x = np.array([1.5, 2.5, -3.0, 4.0], np.float32)
    flags = np.array([7, 7, 250, 0], np.uint8)  # a u8 array beside the bool one
    out, count = device.zeros(4, np.float32), device.zeros(4, np.uint8)
    mixed(out, count, device.array(mask), device.array(x), device.array(flags))
    np.testing.assert_array_equal(out.numpy(), mask * x)  # NumPy: bool * f32 is f32
    np.testing.assert_array_equal(count.numpy(), mask + flags)  # bool + u8 is u8


@tack.kernel
def both_bools(out: tack.Array, a: tack.Array, b: tack.Array):
    for i in tack.parallel(out.size):
        out[i] = a[i] + b[i]


def test_arithmetic_on_two_bools_is_refused(cpu):
    # NumPy's bool + bool is "or", Python's True + True is 2: Tack asks which is meant.
    m = cpu.zeros(2, np.bool_)
    with pytest.raises(tack.TypeError, match="add on bool values; cast them to an integer type first"):
        both_bools(cpu.zeros(2, np.int32), m, m)


@tack.kernel
def mask_2d(out: tack.Array, mask: tack.Array, x: tack.Array):
    for i, j in tack.parallel(x.shape[0], x.shape[1]):
        out[i, j] = mask[i, j] and x[i, j] > 0
        x[i, j] = x[i, j] if mask[i, j] else 0


def test_two_dimensional_masks(device):
    mask = np.array([1, 0, 2, 0, 1, 255], np.uint8).view(np.bool_).reshape(2, 3)
    x = np.array([[5, 6, -7], [8, 0, 9]], np.int32)
    out, xs = device.zeros((2, 3), np.bool_), device.array(x)
    mask_2d(out, device.array(mask), xs)
    np.testing.assert_array_equal(out.numpy(), mask & (x > 0))
    np.testing.assert_array_equal(xs.numpy(), np.where(mask, x, 0))


def test_a_u8_array_is_another_variant(device):
    x = device.array(np.array([0, 2, 300], np.int32))
    as_bool, as_u8 = device.zeros(3, np.bool_), device.zeros(3, np.uint8)
    store(as_bool, x)
    store(as_u8, x)
    np.testing.assert_array_equal(bytes_of(as_bool), [0, 1, 1])
    np.testing.assert_array_equal(as_u8.numpy(), [0, 2, 44])


def test_a_bool_annotation_refuses_other_dtypes(cpu):
    with pytest.raises(tack.TypeError, match=r"declared tack.Array\[np.bool_\], got uint8"):
        masked(cpu.zeros(2, np.int32), cpu.zeros(2, np.uint8), cpu.zeros(2, np.int32))


@tack.kernel
def bool_atomic(flags: tack.Array):
    for i in tack.parallel(flags.size):
        tack.atomic_or(flags, i, True)


def test_atomics_on_bool_arrays_are_refused(cpu):
    with pytest.raises(tack.TypeError, match="atomic_or on a bool array: atomics need numbers; use a uint8 or int32"):
        bool_atomic(cpu.zeros(4, np.bool_))


@tack.kernel
def shared_flags(out: tack.Array, x: tack.Array):
    for g in tack.workgroups(x.size // 256):
        seen = g.shared(np.bool_, 256)
        was = seen[g.local_id]  # zeroed: False
        g.barrier()
        seen[g.local_id] = x[g.global_id] % 3  # a number, stored as bool() stores it
        g.barrier()
        out[g.global_id] = (1 if seen[255 - g.local_id] else 0) + (10 if was else 0)


def test_shared_bool_arrays_in_workgroups(device):
    if not device.capabilities.supports_workgroups:
        pytest.skip(f"{device.name} has no workgroups")
    x = np.arange(512, dtype=np.int32) * 5
    out = device.zeros(512, np.int32)
    shared_flags(out, device.array(x))
    want = (x.reshape(2, 256)[:, ::-1] % 3 != 0).astype(np.int32).reshape(-1)
    np.testing.assert_array_equal(out.numpy(), want)


@tack.kernel
def flagged(out: tack.Array, mask: tack.Array, flag: tack.Scalar):
    for i in tack.parallel(out.size):
        out[i] = (1 if mask[i] and flag else 0) + (10 if flag else 0)


def test_a_python_bool_is_a_bool_scalar(device):
    mask = device.array(nonzero_bytes()[:3])
    out = device.zeros(3, np.int32)
    flagged(out, mask, True)
    np.testing.assert_array_equal(out.numpy(), [10, 11, 11])
    flagged(out, mask, False)
    np.testing.assert_array_equal(out.numpy(), [0, 0, 0])


# ---- DLPack ------------------------------------------------------------------


@pytest.fixture(params=("cpu", "interp"))
def host_device(request):
    from conftest import make_device
    return make_device(request.param)


def test_numpy_reads_a_bool_array_in_place(host_device):
    a = host_device.array(np.array([True, False, True]))
    view = np.from_dlpack(a)
    assert view.dtype == np.bool_
    np.testing.assert_array_equal(view, [True, False, True])
    a.fill(False)
    np.testing.assert_array_equal(view, [False, False, False])  # the same memory


def test_from_dlpack_wraps_a_numpy_bool_array(host_device):
    host = np.array([True, False, False, True])
    a = tack.from_dlpack(host, host_device)
    assert a.dtype == np.bool_
    store(a, host_device.array(np.array([0.0, np.nan, -0.0, 3.0])))
    np.testing.assert_array_equal(host, [False, True, False, True])  # written in place
    assert host_device.array(host).dtype == np.bool_  # Device.array of a producer copies it
