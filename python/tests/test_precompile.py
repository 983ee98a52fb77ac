"""Compiling ahead from Python: Kernel.precompile and tack.precompile make the
variants later calls find in memory; compile_stats counts what was made."""
import numpy as np
import pytest

import tack


def make_kernel(k):
    @tack.kernel(name=f"shift_{k}")
    def shift(y: tack.Array, a: tack.Scalar):
        for i in tack.parallel(y.size):
            y[i] = y[i] * a + k
    return shift


def test_precompile_then_call_compiles_nothing_more(cpu):
    k = make_kernel(1)
    tack.reset_compile_stats()
    k.precompile(cpu, tack.ArraySpec(np.float32), float)      # the weak variant a Python float selects
    k.precompile(cpu, tack.ArraySpec(np.float32), np.float32)  # the strong f32 one
    assert tack.compile_stats().variants == 2
    y = cpu.array(np.ones(4, np.float32))
    k(y, 2.0)
    k(y, np.float32(2.0))
    assert tack.compile_stats().variants == 2, "a call made a variant precompile had made"
    np.testing.assert_array_equal(y.numpy(), np.full(4, 7.0, np.float32))


def test_precompile_many_in_parallel(cpu):
    kernels = [make_kernel(k) for k in range(10, 18)]
    tack.reset_compile_stats()
    tack.precompile(cpu, [(k, (tack.ArraySpec(np.float64), float)) for k in kernels], threads=2)
    s = tack.compile_stats()
    assert s.variants == 8 and s.compile_ms + s.load_ms > 0
    for n, k in enumerate(kernels):
        y = cpu.zeros(2, np.float64)
        k(y, 1.0)
        assert y.numpy()[0] == 10 + n
    assert tack.compile_stats().variants == 8


def test_precompile_errors(cpu):
    k = make_kernel(30)
    with pytest.raises(tack.TypeError):
        k.precompile(cpu, 1.0, 1.0)  # a scalar for the array parameter
    with pytest.raises(tack.InvalidArgument, match="takes 2 arguments"):
        k.precompile(cpu, tack.ArraySpec(np.float32))
    with pytest.raises(tack.TypeError, match="pairs"):
        tack.precompile(cpu, [k])


def test_precompile_on_every_executing_device(device):
    k = make_kernel(40)
    tack.reset_compile_stats()
    k.precompile(device, tack.ArraySpec(np.float32), np.float32)
    made = tack.compile_stats().variants
    assert made == 1, f"precompile on {device.name} made {made} variants, not the one asked for"
    y = device.array(np.ones(3, np.float32))
    k(y, np.float32(3.0))
    assert tack.compile_stats().variants == made, f"the call on {device.name} made a variant precompile had made"
    np.testing.assert_array_equal(y.numpy(), [43, 43, 43])
