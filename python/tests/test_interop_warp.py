"""Tack and NVIDIA Warp (warp-lang) on the CPU: arrays both ways through DLPack
and the NumPy array interface without a copy (the same address on both sides),
writes on either side seen on the other, memory that outlives its producer,
every dtype both have, and the dtypes and layouts Tack refuses. Warp's cuda
arrays are not tested here (no GPU)."""
import gc
import weakref

import numpy as np
import pytest

import tack

wp = pytest.importorskip("warp", reason="warp-lang is not installed (scripts/install-deps.sh installs it)")
wp.config.quiet = True  # no banner on init
wp.init()

# Tack's eleven dtypes; Warp has them all (its float16 Tack refuses).
from conftest import ALL_DTYPES as DTYPES, values_of  # noqa: E402
N = 1000  # big enough that freed memory is reused by the allocations that follow


@tack.kernel
def add_one(a: tack.Array):
    for i in tack.parallel(a.size):
        a[i] = a[i] + 1


@wp.kernel
def warp_double(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] * 2.0



def warp_cpu(values):
    return wp.array(values, dtype=wp.dtype_from_numpy(values.dtype), device="cpu")


def test_warp_array_into_tack_in_place(host_device):
    w = warp_cpu(np.arange(8, dtype=np.float32))
    t = tack.from_dlpack(w, host_device)
    assert t.device == host_device and t.shape == (8,) and t.dtype == np.float32
    assert t.share().handle == w.ptr  # no copy
    add_one(t)  # Tack writes, Warp sees
    np.testing.assert_array_equal(w.numpy(), np.arange(8) + 1)
    wp.launch(warp_double, dim=8, inputs=[w], device="cpu")  # Warp writes, Tack sees
    wp.synchronize_device("cpu")
    np.testing.assert_array_equal(t.numpy(), (np.arange(8) + 1) * 2)


def test_tack_array_into_warp_in_place(host_device):
    t = host_device.array(np.arange(8, dtype=np.float32))
    add_one(t)  # queued before the export: the export waits for it
    w = wp.from_dlpack(t)
    assert w.device.is_cpu and w.shape == (8,) and w.dtype == wp.float32
    assert w.ptr == t.share().handle  # no copy
    np.testing.assert_array_equal(w.numpy(), np.arange(8) + 1)
    wp.launch(warp_double, dim=8, inputs=[w], device="cpu")
    wp.synchronize_device("cpu")
    np.testing.assert_array_equal(t.numpy(), (np.arange(8) + 1) * 2)
    add_one(t)
    np.testing.assert_array_equal(w.numpy(), (np.arange(8) + 1) * 2 + 1)


def test_warp_takes_a_tack_array_through_the_array_interface(cpu):
    t = cpu.array(np.arange(6, dtype=np.int32).reshape(2, 3))
    w = wp.array(t, dtype=wp.int32, device="cpu", copy=False)  # reads __array_interface__
    assert w.ptr == t.share().handle and w.shape == (2, 3)
    w.numpy()[1, 2] = 50
    assert t.numpy()[1, 2] == 50


def test_tack_keeps_warp_memory_after_warp_drops_it():
    w = warp_cpu(np.arange(N, dtype=np.float64))
    alive = weakref.ref(w)
    t = tack.from_dlpack(w)
    del w
    gc.collect()
    churn = [wp.full(N, -1.0, dtype=wp.float64, device="cpu") for _ in range(8)]  # would land on freed memory
    np.testing.assert_array_equal(t.numpy(), np.arange(N))
    assert all(c.ptr != t.share().handle for c in churn)
    assert alive() is not None, "the Tack array holds Warp's tensor"
    del t
    gc.collect()
    assert alive() is None, "Tack must call Warp's deleter when its array is gone"


def test_warp_keeps_tack_memory_after_tack_drops_it(host_device):
    t = host_device.array(np.arange(N, dtype=np.float32))
    address = t.share().handle
    w = wp.from_dlpack(t)
    del t
    gc.collect()
    churn = [host_device.array(np.full(N, -1, np.float32)) for _ in range(8)]
    assert all(c.share().handle != address for c in churn)
    assert w.ptr == address
    np.testing.assert_array_equal(w.numpy(), np.arange(N))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_both_ways(cpu, dtype):
    wtype = wp.dtype_from_numpy(dtype)
    fill = True if dtype is np.bool_ else 3
    # Warp -> Tack: the same memory, Tack's write seen by Warp.
    w = warp_cpu(values_of(dtype))
    t = tack.from_dlpack(w, cpu)
    assert t.dtype == dtype and t.share().handle == w.ptr
    np.testing.assert_array_equal(t.numpy(), values_of(dtype))
    t.fill(fill)
    np.testing.assert_array_equal(w.numpy(), np.full(5, fill, dtype))
    # Tack -> Warp: the same memory, Warp's write seen by Tack.
    t = cpu.array(values_of(dtype))
    w = wp.from_dlpack(t)
    assert w.dtype == wtype and w.ptr == t.share().handle
    np.testing.assert_array_equal(w.numpy(), values_of(dtype))
    w.numpy()[:] = values_of(dtype)[::-1]  # on the CPU, numpy() is a view
    np.testing.assert_array_equal(t.numpy(), values_of(dtype)[::-1])


def test_float16_is_refused_by_name():
    w = warp_cpu(np.arange(4, dtype=np.float16))
    with pytest.raises(tack.TypeError, match="dtype float16 is not one of Tack's dtypes"):
        tack.from_dlpack(w)
    np.testing.assert_array_equal(w.numpy(), np.arange(4))  # still Warp's, still valid


@pytest.mark.parametrize("view", ["every_other", "transposed"])
def test_strided_views_are_refused_as_not_contiguous(view):
    w = warp_cpu(np.arange(16, dtype=np.float32).reshape(4, 4))
    strided = w.flatten()[::2] if view == "every_other" else w.transpose()
    assert not strided.is_contiguous
    with pytest.raises(tack.TypeError, match="not row-major and contiguous .*stride"):
        tack.from_dlpack(strided)
    np.testing.assert_array_equal(w.numpy(), np.arange(16).reshape(4, 4))
