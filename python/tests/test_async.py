"""asyncio and the GIL: waits run in Tack's tack-wait threads, so an event
loop keeps running during a long kernel, and every blocking call releases the
GIL. Measured while the device works: how often another coroutine runs (as
the reference counts), and the longest stretch in which another thread could
not run (a call that keeps the GIL is one such stretch, as long as the call)."""
import asyncio
import inspect
import threading
import time

import numpy as np
import pytest

import tack
from conftest import busy as spin


def spin_args(device, seconds_hint):
    """An output and an iteration count that keep `device` busy for about a tenth of a second or more."""
    out = device.zeros(4096, np.float32)
    n = 5000
    while True:
        t = time.perf_counter()
        spin(out, n)
        out.numpy()
        if time.perf_counter() - t >= seconds_hint or n > 10**8:
            return out, n
        n *= 4


class Ticker:
    """A coroutine that counts how often the event loop lets it run (every 1 ms)."""

    def __init__(self):
        self.count = 0
        self._running = True
        self._task = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self):
        while self._running:
            self.count += 1
            await asyncio.sleep(0.001)

    async def stop(self):
        self._running = False
        await self._task
        return self.count


class GilWitness:
    """A thread that runs Python bytecode without pause and records every stretch of more than
    a millisecond in which it made no progress. A call that keeps the GIL while it waits is one
    such stretch, as long as the call; a call that releases it leaves only the short ones of
    the GIL's hand-over (the switch interval, 5 ms) and of the OS scheduler. Counting steps
    instead cannot tell them apart: after a GIL-holding call returns, the counter is given a
    switch interval of its own before the caller reads the count."""

    def __init__(self):
        self.stalls = []  # (from, to): perf_counter times between which the thread did not run
        self._done = threading.Event()
        running = threading.Event()

        def run():
            clock = time.perf_counter
            last = clock()
            running.set()
            while not self._done.is_set():
                now = clock()
                if now - last > 1e-3:
                    self.stalls.append((last, now))
                last = now

        self._thread = threading.Thread(target=run)
        self._thread.start()
        assert running.wait(timeout=30), "the witness thread did not start"

    def stop(self):
        self._done.set()
        self._thread.join(timeout=30)
        assert not self._thread.is_alive()

    def assert_ran_throughout(self, start, end, what):
        """The thread ran during [start, end] but for stalls shorter than half of it."""
        window = end - start
        # A window too short to tell a held GIL from the hand-over must not pass unmeasured.
        assert window >= 0.05, f"{what} took {window * 1e3:.1f} ms: too short to measure"
        longest = max((min(b, end) - max(a, start) for a, b in self.stalls), default=0.0)
        assert longest < window / 2, (f"another thread could not run for {longest * 1e3:.1f} ms of the "
                                      f"{window * 1e3:.1f} ms {what} took: it kept the GIL")


def queued_device():
    """opencl (PoCL): its launches are queued, so sync_async has something to wait for."""
    from conftest import make_device
    return make_device("opencl")


def test_sync_async_keeps_the_loop_running():
    dev = queued_device()
    out, n = spin_args(dev, 0.2)

    async def main():
        ticks = Ticker()
        await asyncio.sleep(0)
        spin(out, n)                 # queued: returns at once
        await tack.sync_async()      # waits in a tack-wait thread
        during_async = ticks.count
        spin(out, n)
        before = ticks.count
        tack.sync()                  # blocks the loop thread: the ticker cannot run
        during_sync = ticks.count - before
        await ticks.stop()
        return during_async, during_sync

    during_async, during_sync = asyncio.run(main())
    assert during_async >= 5, f"the loop ran {during_async} times during sync_async"
    assert during_sync == 0


def test_numpy_async_returns_the_data(device):
    out, n = device.zeros(16, np.float32), 3

    async def main():
        spin(out, n)
        return await out.numpy_async()

    got = asyncio.run(main())
    want = np.arange(16, dtype=np.float32)
    for _ in range(n):
        want = want * np.float32(0.999999) + np.float32(1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_device_synchronize_async(device):
    from conftest import assert_the_wait_finished_the_work, busy_work

    async def main():
        waiting = device.synchronize_async()
        assert inspect.isawaitable(waiting)
        await waiting

    assert_the_wait_finished_the_work(device, busy_work(device), lambda: asyncio.run(main()))


def test_cpu_launch_releases_the_gil():
    dev = tack.device("cpu")
    out, n = spin_args(dev, 0.2)
    witness = GilWitness()
    start = time.perf_counter()
    spin(out, n)  # a long launch on the calling thread, with the GIL released
    end = time.perf_counter()
    witness.stop()
    witness.assert_ran_throughout(start, end, "the CPU launch")


def test_cpu_kernel_in_an_executor_keeps_the_loop_running():
    dev = tack.device("cpu")
    out, n = spin_args(dev, 0.2)

    async def main():
        ticks = Ticker()
        await asyncio.get_running_loop().run_in_executor(None, spin, out, n)
        return await ticks.stop()

    assert asyncio.run(main()) >= 5


def test_blocking_reads_release_the_gil():
    dev = queued_device()
    out, n = spin_args(dev, 0.2)
    spin(out, n)  # queued: returns at once, the device works on
    witness = GilWitness()
    start = time.perf_counter()
    out.numpy()  # waits for the queued launch with the GIL released
    end = time.perf_counter()
    witness.stop()
    witness.assert_ran_throughout(start, end, "the blocking read")


def test_threads_dispatch_one_kernel_with_different_scalars(device):
    @tack.kernel
    def scaled(out: tack.Array, v: tack.Scalar):
        for i in tack.parallel(out.size):
            out[i] = v * tack.cast(i, np.float32)

    outs = [device.zeros(256, np.float32) for _ in range(4)]
    errors = []

    def work(t):
        try:
            for r in range(50):
                scaled(outs[t], float(t * 100 + r))
                got = outs[t].numpy()
                want = np.float32(t * 100 + r) * np.arange(256, dtype=np.float32)
                if not np.array_equal(got, want):
                    errors.append((t, r))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert errors == []


def test_exit_right_after_sync_async_is_clean(tmp_path):
    """A tack-wait thread finishing its callback while Python exits must not abort the process
    (it did about one run in six before the exit gate: "Fatal Python error: PyGILState_Release:
    thread state ... must be current when releasing", the runtime finalizing). The script holds
    the wait thread in its callback until the exit has begun, so every run crosses the window
    (without the gate, every run aborts) instead of one in six."""
    import subprocess
    import sys
    script = tmp_path / "exit_after_await.py"
    script.write_text(
        "import asyncio, atexit, sys, threading, time, numpy as np, tack\n"
        "@tack.kernel\n"
        "def inc(y: tack.Array):\n"
        "    for i in tack.parallel(y.size):\n"
        "        y[i] = y[i] + 1.0\n"
        "d = tack.device(%r)\n"
        "a = d.zeros(1 << 20, np.float32)\n"
        "inc(a); tack.sync()\n"
        "exiting = threading.Event()\n"
        "atexit.register(exiting.set)  # runs before tack's own handler (atexit is LIFO): the exit has begun\n"
        "when_all_done = tack._core._when_all_done\n"
        "def held(done):\n"
        "    def callback(error):\n"
        "        done(error)  # resumes the coroutine, and the main thread goes on to exit\n"
        "        if exiting.wait(30):  # the tack-wait thread stays in its callback until the exit begins\n"
        "            sys.stdout.write('in the callback at exit\\n'); sys.stdout.flush()\n"
        "        time.sleep(0.01)  # gives the GIL up once more\n"
        "    when_all_done(callback)\n"
        "tack._core._when_all_done = held\n"
        "async def main():\n"
        "    inc(a); await tack.sync_async()\n"
        "asyncio.run(main())\n" % queued_device().name)
    for _ in range(3):
        r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert "in the callback at exit" in r.stdout, "the wait thread was not in its callback at exit: " + r.stderr
