"""Fixtures shared by the Python tests: the devices that can run here.

`device` is parametrized over the executing backends (interp, cpu, opencl);
one that cannot be made here is skipped with the reason Tack gives. Every
wait a test makes on a device is bounded by the per-test timeout below, so a
hang fails the test instead of stalling CI."""
import faulthandler
import os
import sys

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


@pytest.fixture(autouse=True)
def _bounded_test():
    faulthandler.dump_traceback_later(TEST_TIMEOUT_S, exit=True, file=sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()
