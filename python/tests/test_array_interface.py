"""tack.Array's NumPy array interface (version 3) on host memory (cpu, interp)
and its CUDA Array Interface (version 3) on cuda: the dictionaries, NumPy's
zero-copy view through the first (same address, writes seen both ways, the
memory kept alive by the view), and both absent (AttributeError) where the
memory is not theirs to describe, so NumPy falls back to a copy."""
import gc
import types

import numpy as np
import pytest

import tack
from conftest import busy, busy_work, make_device

from conftest import ALL_DTYPES as DTYPES  # noqa: E402


@tack.kernel
def add_one(a: tack.Array):
    for i in tack.parallel(a.size):
        a[i] = a[i] + 1



@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_the_interface_describes_the_memory(host_device, dtype):
    a = host_device.zeros((2, 3), dtype)
    assert not a.shared()
    d = a.__array_interface__
    assert d == {"shape": (2, 3), "typestr": np.dtype(dtype).str, "data": (a.share().handle, False),
                 "strides": None, "version": 3}
    assert d["data"][0] != 0
    assert a.shared(), "the interface hands the memory out: the array is shared, as by __dlpack__"


def test_numpy_views_a_tack_array_in_place(host_device):
    a = host_device.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    v = np.asarray(a)
    assert v.base is a  # NumPy keeps the Tack array
    assert v.ctypes.data == a.share().handle and v.flags.writeable and v.flags.c_contiguous
    np.testing.assert_array_equal(v, np.arange(6).reshape(2, 3))
    add_one(a)  # a shared array's launch completes before returning: the view sees it at once
    np.testing.assert_array_equal(v, np.arange(6).reshape(2, 3) + 1)
    v[1, 2] = 100
    assert a.numpy()[1, 2] == 100
    copy = np.array(a)  # np.array copies, through the same interface
    assert copy.ctypes.data != v.ctypes.data
    np.testing.assert_array_equal(copy, v)


def test_the_view_sees_the_launches_queued_before(cpu):
    out, n, want = busy_work(cpu)
    out.fill(-1.0)
    busy(out, n)  # queued; the interface waits for it as share() does
    np.testing.assert_array_equal(np.asarray(out), want)


def test_the_view_keeps_the_memory_alive(host_device):
    a = host_device.array(np.arange(1000, dtype=np.int64))
    v = np.asarray(a)
    del a
    gc.collect()
    churn = [host_device.array(np.full(1000, -1, np.int64)) for _ in range(8)]  # would land on freed memory
    assert all(c.share().handle != v.ctypes.data for c in churn)
    np.testing.assert_array_equal(v, np.arange(1000))


def test_a_zero_size_array_gives_address_zero(cpu):
    a = cpu.zeros(0, np.float32)
    assert a.__array_interface__["data"] == (0, False)
    v = np.asarray(a)
    assert v.shape == (0,) and v.dtype == np.float32


def test_host_arrays_have_no_cuda_array_interface(host_device):
    a = host_device.array(np.arange(4, dtype=np.float32))
    assert not hasattr(a, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match=f"{host_device.name} device has no __cuda_array_interface__"):
        a.__cuda_array_interface__
    assert not a.shared(), "asking must not share the array"


def test_device_arrays_have_no_array_interface_and_numpy_copies():
    dev = make_device("opencl")
    a = dev.array(np.arange(4, dtype=np.float32))
    assert not hasattr(a, "__array_interface__")
    assert not hasattr(a, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="opencl device has no __array_interface__"):
        a.__array_interface__
    v = np.asarray(a)  # through __array__: a copy
    np.testing.assert_array_equal(v, [0, 1, 2, 3])
    v[0] = 9
    assert a.numpy()[0] == 0
    assert not a.shared(), "asking must not share the array"


def test_cuda_array_interface_dictionary():
    # No GPU here: the property runs on a stand-in with a cuda device and a shared address.
    fake = types.SimpleNamespace(device=types.SimpleNamespace(name="cuda"), shape=(2, 3), size=6,
                                 dtype=np.dtype(np.int16), shares=[])
    fake.share = lambda: fake.shares.append(1) or types.SimpleNamespace(handle=0x7F0000001000)
    fake._interface = types.MethodType(tack.Array._interface, fake)
    d = tack.Array.__cuda_array_interface__.fget(fake)
    assert d == {"shape": (2, 3), "typestr": "<i2", "data": (0x7F0000001000, False), "strides": None,
                 "version": 3, "stream": None}
    assert fake.shares == [1], "the array is shared (its launches complete) before its address is handed out"
    with pytest.raises(AttributeError):
        tack.Array.__array_interface__.fget(fake)


def test_cuda_array_interface_on_a_cuda_device():
    dev = make_device("cuda")
    a = dev.array(np.arange(6, dtype=np.float32))
    add_one(a)
    d = a.__cuda_array_interface__
    assert d["data"] == (a.share().handle, False) and d["stream"] is None and d["version"] == 3
    assert d["shape"] == (6,) and d["typestr"] == "<f4" and d["strides"] is None
    assert not hasattr(a, "__array_interface__")
    np.testing.assert_array_equal(np.asarray(a), np.arange(6) + 1)  # a copy through __array__
