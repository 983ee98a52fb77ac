"""@tack.kernel(fp_contract=False): no float product fuses into a sum, so a
heat-equation step gives NumPy's bits (NumPy never fuses) on interp, cpu and
opencl. The default may fuse (the cpu backend does, so the keyword is not
vacuous), and TACK_FP_CONTRACT is the default of kernels made without it."""
import platform

import numpy as np
import pytest

import tack


@tack.kernel(fp_contract=False)
def heat_step(out: tack.Array, u: tack.Array, r: tack.Scalar):
    for j in tack.parallel(u.size - 2):
        i = j + 1
        out[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1])


def numpy_heat_step(u, r):
    out = np.zeros_like(u)
    t = u.dtype.type
    out[1:-1] = u[1:-1] + t(r) * (u[:-2] - t(2.0) * u[1:-1] + u[2:])
    return out


def same_bits(got, want):
    bits = np.uint32 if got.dtype == np.float32 else np.uint64
    np.testing.assert_array_equal(got.view(bits), want.view(bits))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_heat_step_without_contraction_is_numpys_bits(device, dtype):
    if dtype == np.float64 and not device.capabilities.supports_f64:
        pytest.skip(f"{device.name} has no f64")
    u = np.random.default_rng(7).uniform(-2.0, 2.0, 4096).astype(dtype)
    out = device.zeros(u.size, dtype)
    heat_step(out, device.array(u), 0.1)
    same_bits(out.numpy(), numpy_heat_step(u, 0.1))


def host_has_fma():
    if platform.machine() not in ("x86_64", "AMD64", "i686"):
        return True
    try:
        with open("/proc/cpuinfo") as f:
            return " fma " in f.read().replace("\n", " ")
    except OSError:
        return False


def axpy_kernel(**options):
    def axpy(out: tack.Array, a: tack.Array, b: tack.Array, c: tack.Array):
        for i in tack.parallel(a.size):
            out[i] = a[i] * b[i] + c[i]
    return tack.kernel(axpy, **options)


def test_the_default_fuses_on_the_cpu_and_the_keyword_stops_it(cpu):
    if not host_has_fma():
        pytest.skip("this CPU has no FMA instruction, so the default cannot fuse here either")
    x = (1.0 + np.arange(1, 17, dtype=np.float32) * np.float32(2.0**-12)).astype(np.float32)
    c = np.full_like(x, -1.0)
    unfused = x * x + c                                   # NumPy rounds the product first
    fused = (x.astype(np.float64) * x - 1.0).astype(np.float32)  # exact in f64, then one rounding: an fma
    assert np.count_nonzero(fused != unfused) >= 8, "the rows must be ones where fusing changes the result"
    results = {}
    for label, options in {"default": {}, "on": {"fp_contract": True}, "off": {"fp_contract": False}}.items():
        out = cpu.zeros(x.size, np.float32)
        axpy_kernel(**options)(out, cpu.array(x), cpu.array(x), cpu.array(c))
        results[label] = out.numpy()
    same_bits(results["default"], fused)
    same_bits(results["on"], fused)
    same_bits(results["off"], unfused)


def test_the_mode_is_in_the_ir():
    assert "fp_contract" not in axpy_kernel().ir()
    assert "fp_contract off" in axpy_kernel(fp_contract=False).ir()
    spec = tack.ArraySpec(np.float32)
    typed = tack.inspect(axpy_kernel(fp_contract=False), "interp", spec, spec, spec, spec).typed_ir
    assert "fp_contract off" in typed


def test_tack_fp_contract_is_the_default_of_kernels_made_without_the_keyword(monkeypatch):
    monkeypatch.setenv("TACK_FP_CONTRACT", "0")
    assert "fp_contract off" in axpy_kernel().ir()
    assert "fp_contract" not in axpy_kernel(fp_contract=True).ir()
    monkeypatch.setenv("TACK_FP_CONTRACT", "banana")
    with pytest.raises(tack.InvalidArgument, match="TACK_FP_CONTRACT='banana'"):
        axpy_kernel()
    axpy_kernel(fp_contract=False)  # the keyword does not read the variable
    monkeypatch.delenv("TACK_FP_CONTRACT")
    assert "fp_contract" not in axpy_kernel().ir()


def test_fp_contract_must_be_a_bool_or_none():
    with pytest.raises(tack.InvalidArgument, match="fp_contract must be True, False or None"):
        axpy_kernel(fp_contract="no")
