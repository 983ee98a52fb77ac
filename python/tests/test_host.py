"""The host API from Python: devices, options, capabilities, arrays, NumPy
round trips, reductions, fills, read_range, textures, debug mode."""
import numpy as np
import pytest

import tack

ALL_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
              np.float32, np.float64]


def test_backend_names_lists_every_backend():
    names = tack.backend_names()
    assert {"interp", "cpu", "opencl", "cuda", "hip", "level_zero"} <= set(names)


def test_default_device_is_cpu(monkeypatch):
    monkeypatch.delenv("TACK_DEVICE", raising=False)
    assert tack.device().name == "cpu"


def test_tack_device_environment_variable(monkeypatch):
    monkeypatch.setenv("TACK_DEVICE", "interp")
    assert tack.device().name == "interp"


def test_same_name_same_device():
    assert tack.device("cpu") == tack.device("cpu")
    assert tack.device("cpu") != tack.device("interp")
    assert hash(tack.device("cpu")) == hash(tack.device("cpu"))


def test_misspelled_option_raises_before_anything_is_made():
    with pytest.raises(tack.InvalidArgument, match="has no option 'num_thread'.*did you mean 'num_threads'"):
        tack.device("cpu", num_thread=2)
    with pytest.raises(ValueError):  # InvalidArgument is a ValueError, as the reference raised
        tack.device("cpu", bogus=1)


def test_option_of_a_wrong_type():
    with pytest.raises(tack.InvalidArgument, match="option 'num_threads' must be"):
        tack.device("cpu", num_threads=[2])


def test_options_make_their_own_device():
    d = tack.device("cpu", num_threads=1)
    assert d.name == "cpu" and d != tack.device("cpu")


def test_unknown_device():
    with pytest.raises(tack.InvalidArgument, match="unknown device 'cpuu'"):
        tack.device("cpuu")


def test_unavailable_backend_is_an_import_error():
    # No CUDA driver here: the reference raised ImportError for a missing backend.
    try:
        tack.device("cuda")
    except tack.BackendUnavailable as e:
        assert isinstance(e, ImportError) and isinstance(e, tack.Error)
        assert str(e)
    else:
        pytest.skip("a CUDA device is present")


def test_capabilities(device):
    caps = device.capabilities
    assert caps.name == device.name
    assert np.dtype(np.float32) in caps.supported_dtypes
    assert all(isinstance(d, np.dtype) for d in caps.supported_dtypes)
    assert caps.supported_atomic_dtypes <= caps.supported_dtypes
    assert caps.supports_f64 == (np.dtype(np.float64) in caps.supported_dtypes)
    assert isinstance(caps.device_options, tuple)
    with pytest.raises(AttributeError):
        caps.name = "x"


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_numpy_round_trip_every_dtype(device, dtype):
    if np.dtype(dtype) not in device.capabilities.supported_dtypes:
        pytest.skip(f"{device.name} has no {np.dtype(dtype).name}")
    host = (np.arange(24) % 100).astype(dtype).reshape(2, 3, 4)
    a = device.array(host)
    assert a.dtype == np.dtype(dtype)
    assert a.shape == (2, 3, 4) and a.size == 24 and a.ndim == 3 and len(a) == 2
    assert a.device == device
    out = a.numpy()
    assert out.dtype == np.dtype(dtype) and out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out, host)
    np.testing.assert_array_equal(np.asarray(a), host)


def test_array_from_lists_buffers_and_dtype(cpu):
    np.testing.assert_array_equal(cpu.array([1.5, 2.5]).numpy(), [1.5, 2.5])
    assert cpu.array([1, 2, 3]).dtype == np.int64
    assert cpu.array([1, 2], dtype=np.float32).dtype == np.float32
    # A non-contiguous view is copied in order.
    host = np.arange(20, dtype=np.float64).reshape(4, 5)[:, ::2]
    np.testing.assert_array_equal(cpu.array(host).numpy(), host)
    # Any buffer-protocol object.
    np.testing.assert_array_equal(cpu.array(memoryview(np.arange(4, dtype=np.int32))).numpy(), [0, 1, 2, 3])


def test_array_refusals(cpu):
    with pytest.raises(tack.InvalidArgument, match="0-d"):
        cpu.array(np.float32(1.0))
    with pytest.raises(tack.TypeError, match="not one of Tack's dtypes"):  # more in test_dtype_refusals.py
        cpu.array(np.zeros(3, np.complex64))
    with pytest.raises(tack.InvalidArgument):
        cpu.array(np.zeros((1, 1, 1, 1, 2), np.float32))  # 5 dimensions
    with pytest.raises(tack.TypeError, match="not a dtype"):
        cpu.zeros(3, "not a dtype")


def test_zeros_empty_fill(device):
    z = device.zeros((3, 4), np.int32)
    np.testing.assert_array_equal(z.numpy(), np.zeros((3, 4), np.int32))
    e = device.empty(5, np.float32)
    e.fill(2.5)
    np.testing.assert_array_equal(e.numpy(), np.full(5, 2.5, np.float32))
    z.fill(7)
    np.testing.assert_array_equal(z.numpy(), np.full((3, 4), 7, np.int32))
    # A float into an int array converts as tack.cast does: toward zero, saturating.
    z.fill(-3.9)
    assert (z.numpy() == -3).all()
    z.fill(1e30)
    assert (z.numpy() == np.iinfo(np.int32).max).all()
    with pytest.raises(tack.TypeError, match="fill"):
        z.fill("3")


def test_memory_spaces(device):
    """zeros and empty take one of the device's memory spaces (the first is the default) and refuse any other."""
    spaces = list(device.capabilities.device_memory_spaces)
    for space in spaces:
        z = device.zeros(4, np.float32, memory_space=space)
        np.testing.assert_array_equal(z.numpy(), np.zeros(4, np.float32))
        e = device.empty(4, np.int32, memory_space=space)
        e.fill(3)
        np.testing.assert_array_equal(e.numpy(), np.full(4, 3, np.int32))
    with pytest.raises(tack.InvalidArgument, match=f"the {device.name} device has no memory space 'nowhere'"):
        device.zeros(4, np.float32, memory_space="nowhere")
    with pytest.raises(tack.InvalidArgument, match="has no memory space 'nowhere'"):
        device.empty(4, memory_space="nowhere")


def test_reductions(device):
    host = np.linspace(-2, 3, 1001).astype(np.float32)
    a = device.array(host)
    assert a.sum() == pytest.approx(float(host.astype(np.float64).sum()), abs=1e-3)
    assert a.min() == float(host.min()) and a.max() == float(host.max())
    i = device.array(np.array([5, -7, 3], np.int32))
    assert (i.sum(), i.min(), i.max()) == (1, -7, 5)
    assert isinstance(i.sum(), int) and isinstance(a.sum(), float)
    u = device.array(np.array([2**63, 1], np.uint64)) if np.dtype(np.uint64) in device.capabilities.supported_dtypes else None
    if u is not None:
        assert u.max() == 2**63
    with pytest.raises(tack.InvalidArgument, match="empty"):
        device.zeros(0, np.float32).min()
    assert device.zeros(0, np.float32).sum() == 0.0


def test_integer_odd_size_sums_are_exact(device):
    # Integer-valued f32 data: any lost tail element would show.
    for n in (1, 255, 257, 4099):
        host = (np.arange(n) % 7).astype(np.float32)
        assert device.array(host).sum() == float(host.sum())


def test_read_range(device):
    a = device.array(np.arange(10, dtype=np.int16))
    np.testing.assert_array_equal(a.read_range(3, 4), [3, 4, 5, 6])
    assert a.read_range(10, 0).size == 0
    with pytest.raises(tack.Error):
        a.read_range(8, 5)
    with pytest.raises(tack.Error):
        a.read_range(-1, 2)


@tack.kernel
def sample_texels(out: tack.Array, t: tack.Texture3D, w: tack.Scalar, h: tack.Scalar, d: tack.Scalar):
    """out[i]: the texture sampled at the centre of texel i (x fastest, then y, then z)."""
    for i in tack.parallel(out.size):
        x = i % w
        y = (i // w) % h
        z = i // (w * h)
        out[i] = t.sample(tack.cast(x, np.float32) / tack.cast(w - 1, np.float32),
                          tack.cast(y, np.float32) / tack.cast(h - 1, np.float32),
                          tack.cast(z, np.float32) / tack.cast(d - 1, np.float32))


@tack.kernel
def rewrite(a: tack.Array):
    for i in tack.parallel(a.size):
        a[i] = 100.0 - 3.0 * tack.cast(i, np.float32)


def test_texture3d_snapshot(device):
    host = np.arange(24, dtype=np.float32)  # texel (x, y, z) is element (z * 3 + y) * 4 + x
    a = device.array(host)
    tex = tack.texture3d(a, (4, 3, 2))
    assert tex.shape == (4, 3, 2) and tex.device == device
    out = device.zeros(24, np.float32)

    def sampled():
        sample_texels(out, tex, 4, 3, 2)
        return out.numpy()

    np.testing.assert_allclose(sampled(), host, atol=1e-4, err_msg="the texture's texels")
    rewrite(a)
    changed = 100.0 - 3.0 * host
    np.testing.assert_array_equal(a.numpy(), changed)
    np.testing.assert_allclose(sampled(), host, atol=1e-4,
                               err_msg="the texture saw a later write to its array: it is no snapshot")
    tex.update()
    np.testing.assert_allclose(sampled(), changed, atol=1e-4, err_msg="update() did not copy the array again")
    with pytest.raises(tack.InvalidArgument):
        tack.texture3d(a, (4, 3, 3))
    with pytest.raises(tack.Error):
        tack.texture3d(device.array(np.arange(24, dtype=np.int32)), (4, 3, 2))


def test_sync_and_synchronize(device):
    from conftest import assert_the_wait_finished_the_work, busy_work
    work = busy_work(device)
    assert_the_wait_finished_the_work(device, work, device.synchronize)
    assert_the_wait_finished_the_work(device, work, tack.sync)


def test_debug_flag_round_trip():
    was = tack.debug()
    try:
        tack.set_debug(True)
        assert tack.debug()
        tack.set_debug(False)
        assert not tack.debug()
    finally:
        tack.set_debug(was)


def test_error_classes_derive_from_builtins():
    assert issubclass(tack.InvalidArgument, ValueError)
    assert issubclass(tack.TypeError, TypeError)
    assert issubclass(tack.IndexError, IndexError)
    assert issubclass(tack.CompileError, RuntimeError)
    assert issubclass(tack.BackendError, RuntimeError)
    assert issubclass(tack.BackendUnavailable, ImportError)
    for cls in (tack.InvalidArgument, tack.TypeError, tack.IndexError, tack.CompileError, tack.BackendError,
                tack.BackendUnavailable):
        assert issubclass(cls, tack.Error)
