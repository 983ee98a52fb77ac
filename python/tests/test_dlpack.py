"""Memory across Tack's edge from Python: DLPack both ways, array_from_ptr,
share(), with the lifetimes of C++'s from_dlpack (the producer's memory lives
until the Tack array and its launches are done; a deleter runs exactly once)."""
import gc
import weakref

import numpy as np
import pytest

import tack


@tack.kernel
def add_one(a: tack.Array):
    for i in tack.parallel(a.size):
        a[i] = a[i] + 1


def test_numpy_reads_a_tack_array_in_place(host_device):
    a = host_device.array(np.arange(6, dtype=np.float32))
    assert a.__dlpack_device__() == (1, 0)
    view = np.from_dlpack(a)
    np.testing.assert_array_equal(view, np.arange(6))
    assert a.shared()
    add_one(a)  # a shared array's launch completes before returning: the view sees it at once
    np.testing.assert_array_equal(view, np.arange(6) + 1)


def test_numpy_view_keeps_the_memory_alive(host_device):
    a = host_device.array(np.arange(1000, dtype=np.int64))
    view = np.from_dlpack(a)
    del a
    gc.collect()
    np.testing.assert_array_equal(view, np.arange(1000))


def test_from_dlpack_wraps_numpy_without_a_copy(host_device):
    host = np.arange(8, dtype=np.int32)
    t = tack.from_dlpack(host, host_device)
    assert t.shape == (8,) and t.dtype == np.int32 and t.shared()
    add_one(t)
    np.testing.assert_array_equal(host, np.arange(8) + 1)  # written in place
    host[0] = 100
    assert t.numpy()[0] == 100


def test_from_dlpack_keeps_the_producer_alive_and_releases_it_once():
    host = np.arange(16, dtype=np.float64).reshape(4, 4)
    alive = weakref.ref(host)
    t = tack.from_dlpack(host)  # no device: the CPU for host memory
    assert t.device.name == "cpu" and t.shape == (4, 4)
    del host
    gc.collect()
    assert alive() is not None, "the Tack array must keep the NumPy array alive"
    np.testing.assert_array_equal(t.numpy(), np.arange(16).reshape(4, 4))
    del t
    gc.collect()
    assert alive() is None, "the deleter must run (once) when the Tack array is gone"


def test_capsule_protocol():
    host = np.arange(3, dtype=np.float32)
    capsule = host.__dlpack__()
    t = tack.from_dlpack(capsule)
    np.testing.assert_array_equal(t.numpy(), host)
    with pytest.raises(tack.InvalidArgument, match="already consumed"):
        tack.from_dlpack(capsule)
    with pytest.raises(tack.InvalidArgument, match="PyCapsule"):
        tack.from_dlpack(object.__new__(type("NotATensor", (), {"__dlpack__": lambda self: 42})))


def test_refused_tensors_stay_the_producers():
    strided = np.arange(10, dtype=np.float32)[::2]
    with pytest.raises(tack.TypeError, match="not row-major and contiguous"):
        tack.from_dlpack(strided)
    np.testing.assert_array_equal(strided, [0, 2, 4, 6, 8])  # untouched, still valid
    with pytest.raises(tack.TypeError, match="dtype float16 is not one of Tack's dtypes"):
        tack.from_dlpack(np.zeros(4, np.float16))


def test_dlpack_round_trip_every_dtype(cpu):
    for dt in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
               np.float32, np.float64):
        host = np.arange(5).astype(dt)
        back = np.from_dlpack(tack.from_dlpack(host, cpu))
        assert back.dtype == dt
        np.testing.assert_array_equal(back, host)


def test_torch_round_trip_if_installed(cpu):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed here")
    t = torch.arange(6, dtype=torch.float32)
    a = tack.from_dlpack(t, cpu)
    add_one(a)
    assert t.tolist() == [1, 2, 3, 4, 5, 6]
    back = torch.from_dlpack(a)
    assert back.tolist() == [1, 2, 3, 4, 5, 6]


def test_cupy_round_trip_on_cuda_if_installed():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed here (it needs a CUDA GPU and toolkit)")
    try:
        dev = tack.device("cuda")
    except tack.BackendUnavailable as e:
        pytest.skip(f"no cuda device: {e}")
    c = cupy.arange(6, dtype=cupy.float32)
    a = tack.from_dlpack(c, dev)
    assert a.share().handle == c.data.ptr  # the same device memory
    add_one(a)
    dev.synchronize()
    assert c.get().tolist() == [1, 2, 3, 4, 5, 6]
    back = cupy.from_dlpack(a)
    assert back.data.ptr == c.data.ptr and back.get().tolist() == [1, 2, 3, 4, 5, 6]
    via_interface = cupy.asarray(a)  # __cuda_array_interface__
    assert via_interface.data.ptr == c.data.ptr


def test_array_from_ptr_and_share(cpu):
    host = np.zeros(8, np.float32)
    t = tack.array_from_ptr(cpu, host.ctypes.data, np.float32, 8, keep_alive=host)
    add_one(t)
    np.testing.assert_array_equal(host, np.ones(8))
    mem = t.share()
    assert mem.kind == "host" and mem.handle == host.ctypes.data and mem.bytes == 32
    with pytest.raises(tack.InvalidArgument, match="align"):
        tack.array_from_ptr(cpu, host.ctypes.data + 1, np.float32, 4)
    with pytest.raises(tack.InvalidArgument):
        tack.array_from_ptr(cpu, 0, np.float32, 4)


def test_array_from_ptr_keep_alive_is_held():
    cpu = tack.device("cpu")
    host = np.arange(4, dtype=np.int32)
    alive = weakref.ref(host)
    t = tack.array_from_ptr(cpu, host.ctypes.data, np.int32, 4, keep_alive=host)
    del host
    gc.collect()
    assert alive() is not None
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2, 3])
    del t
    gc.collect()
    assert alive() is None


def test_share_marks_an_array(device):
    a = device.array(np.arange(4, dtype=np.float32))
    assert not a.shared()
    mem = a.share()
    assert a.shared() and mem.bytes == 16 and mem.handle != 0


def test_export_memory_is_cuda_only(cpu):
    with pytest.raises(tack.InvalidArgument):
        cpu.array(np.zeros(4, np.float32)).export_memory()
    with pytest.raises(tack.InvalidArgument):
        cpu.empty_exportable(4, np.float32)


def test_numpy_view_is_writable_through_dlpack_1(host_device):
    a = host_device.array(np.arange(4, dtype=np.float32))
    view = np.from_dlpack(a)  # NumPy asks for DLPack 1.0: a versioned, writable tensor
    assert view.flags.writeable
    view[0] = 42  # e.g. an MPI receive into the view
    assert a.numpy()[0] == 42


def test_capsule_versions():
    a = tack.device("cpu").array(np.arange(3, dtype=np.int32))
    legacy = a.__dlpack__()
    versioned = a.__dlpack__(max_version=(1, 0))
    assert "dltensor" in repr(legacy) and "dltensor_versioned" in repr(versioned)
    for capsule in (legacy, versioned):
        np.testing.assert_array_equal(tack.from_dlpack(capsule).numpy(), [0, 1, 2])
    with pytest.raises(tack.InvalidArgument, match="already consumed"):
        tack.from_dlpack(versioned)
    with pytest.raises(BufferError, match="in place"):
        a.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="own device"):
        a.__dlpack__(dl_device=(2, 0))
    assert a.__dlpack__(dl_device=(1, 0)) is not None


def test_read_only_numpy_is_refused_and_stays_the_producers():
    host = np.arange(4, dtype=np.float32)
    host.flags.writeable = False
    with pytest.raises(tack.InvalidArgument, match="read-only"):
        tack.from_dlpack(host)
    np.testing.assert_array_equal(host, [0, 1, 2, 3])


def test_array_from_ptr_wraps_an_opencl_buffer():
    try:
        dev = tack.device("opencl")
    except tack.BackendUnavailable as e:
        pytest.skip(f"opencl is unavailable here: {e}")
    a = dev.array(np.arange(8, dtype=np.float32))
    mem = a.share()
    assert mem.kind == "opencl"
    b = tack.array_from_ptr(dev, mem.handle, np.float32, 8, keep_alive=a)
    assert b.shared() and b.share().handle == mem.handle
    add_one(b)
    np.testing.assert_array_equal(a.numpy(), np.arange(8) + 1)
    c = tack.from_dlpack(a)  # kDLOpenCL: the same cl_mem
    c.fill(3)
    np.testing.assert_array_equal(b.numpy(), np.full(8, 3))
    with pytest.raises(tack.InvalidArgument, match="is a cl_mem of 32 bytes, but the array needs 36"):
        tack.array_from_ptr(dev, mem.handle, np.float32, 9)
