"""Fixtures shared by the Python tests: the devices that can run here; and a
long launch with the check that a wait finished it (the sync tests).

`device` is parametrized over the executing backends (interp, cpu, opencl);
one that cannot be made here is skipped with the reason Tack gives. Every
wait a test makes on a device is bounded by the per-test timeout below, so a
hang fails the test instead of stalling CI."""
import faulthandler
import os
import sys
import time

import numpy as np
import pytest

import tack

EXECUTING = ("interp", "cpu", "opencl")

# A test that hangs dumps every thread's stack and fails the run after this long.
TEST_TIMEOUT_S = float(os.environ.get("TACK_PYTEST_TIMEOUT_S", "300"))


def make_device(name):
    try:
        return tack.device(name)
    except tack.BackendUnavailable as e:
        pytest.skip(f"{name}: {e}")


@pytest.fixture(params=EXECUTING)
def device(request):
    return make_device(request.param)


@pytest.fixture
def cpu():
    return make_device("cpu")


# The devices whose arrays live in host memory (DLPack, the array interface, interop on the CPU).
@pytest.fixture(params=("cpu", "interp"))
def host_device(request):
    return make_device(request.param)


# Tack's eleven array dtypes, as NumPy types.
ALL_DTYPES = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
              np.float32, np.float64)


def values_of(dtype, n=5):
    """n distinct-looking values of a dtype: 0, 1, 2, ... (bools alternate)."""
    return (np.arange(n) % 2 == 1) if dtype is np.bool_ else np.arange(n).astype(dtype)


@pytest.fixture(autouse=True)
def _bounded_test():
    faulthandler.dump_traceback_later(TEST_TIMEOUT_S, exit=True, file=sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


# A long launch, and the check that a wait (sync, synchronize, their async forms) finished it.

@tack.kernel
def busy(out: tack.Array, n: tack.Scalar):
    for i in tack.parallel(out.size):
        acc = tack.cast(i, np.float32)
        for k in range(n):
            acc = acc * 0.999999 + 1e-6
        out[i] = acc


def busy_work(device):
    """An output, an iteration count whose launch keeps `device` busy for a tenth of a second or
    more, and the output that launch leaves."""
    out = device.zeros(256, np.float32)
    n = 1000
    while True:
        t = time.perf_counter()
        busy(out, n)
        result = out.numpy()
        if time.perf_counter() - t >= 0.1 or n > 10**9:
            return out, n, result
        n *= 4


def assert_the_wait_finished_the_work(device, work, wait):
    """Launches busy_work's kernel, then calls wait(); the output must be complete after it. Where the
    device queues its launches (opencl), a read waits for the work itself, so it proves nothing:
    the work is complete only if the read after wait() found it done, i.e. waited much less than
    the launch and wait() did together (a wait that returns at once leaves all of it to the read)."""
    out, n, want = work
    out.fill(-1.0)
    t0 = time.perf_counter()
    busy(out, n)
    t1 = time.perf_counter()
    wait()
    t2 = time.perf_counter()
    got = out.numpy()
    t3 = time.perf_counter()
    np.testing.assert_array_equal(got, want)
    launch, waited, read = t1 - t0, t2 - t1, t3 - t2
    assert read < (launch + waited) / 2, (f"on {device.name} the read after the wait still waited {read * 1e3:.1f} ms "
                                          f"(launch {launch * 1e3:.1f} ms, wait {waited * 1e3:.1f} ms): the wait "
                                          f"returned before the work was done")
