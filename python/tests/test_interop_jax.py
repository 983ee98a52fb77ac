"""Tack and JAX on the CPU: arrays both ways through DLPack without a copy (the
same address on both sides), memory that outlives its producer, every dtype
both have, and the dtypes Tack refuses. JAX arrays are immutable, so the writes
tested are Tack's: into memory JAX handed out (JAX sees them), and into a Tack
array before JAX takes it. JAX on a GPU is not tested here."""
import gc

import numpy as np
import pytest

import tack

jax = pytest.importorskip("jax", reason="jax is not installed (scripts/install-deps.sh installs jax and jaxlib)")
import jax.numpy as jnp  # noqa: E402 - after the skip

jax.config.update("jax_enable_x64", True)  # before any array: int64, uint64 and float64 stay 64-bit
CPU = jax.devices("cpu")[0]

from conftest import ALL_DTYPES as DTYPES, values_of  # noqa: E402
N = 1000  # big enough that freed memory is reused by the allocations that follow


@tack.kernel
def add_one(a: tack.Array):
    for i in tack.parallel(a.size):
        a[i] = a[i] + 1



def jax_cpu(values):
    """A JAX array on the CPU computed by JAX (not a NumPy array JAX wraps or caches)."""
    with jax.default_device(CPU):
        return jnp.asarray(values) + jnp.zeros((), values.dtype)


def test_jax_array_into_tack_in_place(host_device):
    x = jax_cpu(np.arange(8, dtype=np.float32))
    t = tack.from_dlpack(x, host_device)
    assert t.device == host_device and t.shape == (8,) and t.dtype == np.float32
    assert t.share().handle == x.unsafe_buffer_pointer()  # no copy
    np.testing.assert_array_equal(t.numpy(), np.arange(8))
    add_one(t)  # Tack writes into JAX's buffer; JAX reads it and computes with it
    np.testing.assert_array_equal(np.asarray(x), np.arange(8) + 1)
    assert float(jnp.sum(x * 2)) == 2 * 36


def test_tack_array_into_jax_in_place(host_device):
    t = host_device.array(np.arange(8, dtype=np.float32).reshape(2, 4))
    add_one(t)  # queued before the export: the export waits for it
    y = jnp.from_dlpack(t)
    assert y.devices() == {CPU} and y.shape == (2, 4) and y.dtype == jnp.float32
    assert y.unsafe_buffer_pointer() == t.share().handle  # no copy
    np.testing.assert_array_equal(np.asarray(y), np.arange(8).reshape(2, 4) + 1)
    np.testing.assert_array_equal(np.asarray(jnp.sum(y, axis=1)), [10, 26])


def test_tack_keeps_jax_memory_after_jax_drops_it():
    x = jax_cpu(np.arange(N, dtype=np.float64))
    address = x.unsafe_buffer_pointer()
    t = tack.from_dlpack(x)
    del x
    gc.collect()
    churn = [jax_cpu(np.full(N, -1.0)) for _ in range(8)]  # would land on freed memory
    assert all(c.unsafe_buffer_pointer() != address for c in churn)
    assert t.share().handle == address
    np.testing.assert_array_equal(t.numpy(), np.arange(N))


def test_jax_keeps_tack_memory_after_tack_drops_it(host_device):
    t = host_device.array(np.arange(N, dtype=np.int64))
    address = t.share().handle
    y = jnp.from_dlpack(t)
    del t
    gc.collect()
    churn = [host_device.array(np.full(N, -1, np.int64)) for _ in range(8)]
    assert all(c.share().handle != address for c in churn)
    assert y.unsafe_buffer_pointer() == address
    np.testing.assert_array_equal(np.asarray(y), np.arange(N))
    assert int(jnp.sum(y)) == N * (N - 1) // 2


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_both_ways(cpu, dtype):
    fill = True if dtype is np.bool_ else 3
    # JAX -> Tack: the same memory, Tack's write seen by JAX.
    x = jax_cpu(values_of(dtype))
    assert x.dtype == dtype  # 64-bit types stay 64-bit (jax_enable_x64)
    t = tack.from_dlpack(x, cpu)
    assert t.dtype == dtype and t.share().handle == x.unsafe_buffer_pointer()
    np.testing.assert_array_equal(t.numpy(), values_of(dtype))
    t.fill(fill)
    np.testing.assert_array_equal(np.asarray(x), np.full(5, fill, dtype))
    # Tack -> JAX: the same memory, JAX reads Tack's values.
    t = cpu.array(values_of(dtype)[::-1].copy())
    y = jnp.from_dlpack(t)
    assert y.dtype == dtype and y.unsafe_buffer_pointer() == t.share().handle
    np.testing.assert_array_equal(np.asarray(y), values_of(dtype)[::-1])


@pytest.mark.parametrize("dtype, name", [(jnp.bfloat16, "bfloat16"), (jnp.float16, "float16"),
                                         (jnp.complex64, "complex64")])
def test_dtypes_tack_has_not_are_refused_by_name(dtype, name):
    with jax.default_device(CPU):
        x = jnp.arange(4, dtype=dtype)
    with pytest.raises(tack.TypeError, match=f"dtype {name} is not one of Tack's dtypes"):
        tack.from_dlpack(x)
    assert np.asarray(x).tolist() == [0, 1, 2, 3]  # still JAX's, still valid
