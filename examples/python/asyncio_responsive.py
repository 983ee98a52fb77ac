"""asyncio: an event loop that stays responsive while a long kernel runs.

    python examples/python/asyncio_responsive.py [--device NAME] [--seconds S]

A Mandelbrot kernel sized to take about S seconds (0.7 by default) runs while
a second coroutine ticks every 10 ms; the program prints how many ticks ran
during the wait and exits 1 if none did (77 if the backend is unavailable).

Two ways to wait, depending on the device:

- Queued devices (opencl, cuda, hip, ...): a launch only enqueues the work and
  returns at once. `await out.numpy_async()` / `await tack.sync_async()` then
  wait in one of Tack's threads and resume the coroutine through the loop, so
  the loop runs meanwhile.
- cpu and interp: the launch runs the whole kernel inside the call (there is no
  queue to hand it to), so calling the kernel on the loop's thread would block
  the loop for the kernel's full duration, and the awaits afterwards find
  nothing left to wait for. So the call itself goes to a worker thread:
  `await loop.run_in_executor(None, kernel, *args)`. A kernel call releases the
  GIL while it runs, so the loop's thread keeps running Python meanwhile.
"""
import argparse
import asyncio
import sys
import time

import numpy as np

import tack

RUNS_IN_CALL = {"cpu", "interp"}  # backends whose launch returns only when the kernel is done


# The escape count of each pixel (n + 1 - log2(log|z|)), or -1 inside the set;
# the work is max_iter iterations per pixel inside the set.
@tack.kernel
def mandelbrot(out: tack.Array, max_iter: tack.Scalar):
    for row, col in tack.parallel(out.shape[0], out.shape[1]):
        h = tack.cast(out.shape[0], np.float32)
        cx = -0.75 + 3.0 * (tack.cast(col, np.float32) - 0.5 * tack.cast(out.shape[1], np.float32)) / (1.5 * h)
        cy = 1.0 - 2.0 * tack.cast(row, np.float32) / h
        x = 0.0
        y = 0.0
        n = 0
        for _ in range(max_iter):
            x2, y2 = x * x, y * y
            if x2 + y2 > 256.0:
                break
            y = 2.0 * x * y + cy
            x = x2 - y2 + cx
            n += 1
        smooth = tack.cast(n, np.float32) + 1.0 - tack.log2(tack.log(tack.sqrt(x * x + y * y)))
        out[row, col] = tack.select(n < max_iter, smooth, -1.0)


async def count_ticks_during(wait):
    """Awaits `wait` while a coroutine ticks every 10 ms; returns (its result, ticks, seconds)."""
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)  # the ticker is running before the wait starts
    t0 = time.perf_counter()
    try:
        result = await wait
    finally:
        task.cancel()
    return result, ticks, time.perf_counter() - t0


async def launch_and_wait(dev, out, max_iter):
    if dev.name in RUNS_IN_CALL:
        # The launch is the long part here: run it off the loop's thread.
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, mandelbrot, out, max_iter)
        await tack.sync_async()        # nothing left to wait for; kept so both paths read alike
    else:
        mandelbrot(out, max_iter)      # queued: returns at once
        await tack.sync_async()        # waits in a Tack thread; the loop keeps ticking
    return await out.numpy_async()


def calibrate(out, target_seconds):
    """max_iter for a launch of about target_seconds, from the times of two short
    launches (a + b * max_iter). The first launch also compiles the kernel, which
    happens inside the call and would otherwise block the loop."""
    def timed(iters):
        t0 = time.perf_counter()
        mandelbrot(out, np.int32(iters))
        tack.sync()
        return time.perf_counter() - t0
    timed(100)  # compiles
    lo, hi = timed(100), timed(600)
    per_iter = max((hi - lo) / 500, 1e-9)
    iters = (target_seconds - (lo - 100 * per_iter)) / per_iter
    return np.int32(min(max(int(iters), 600), 2**31 - 1))


def main() -> int:
    p = argparse.ArgumentParser(description="An asyncio loop that keeps ticking while a Tack kernel runs.")
    p.add_argument("--device", default=None, help="cpu, interp, opencl, ... (default: TACK_DEVICE, else cpu)")
    p.add_argument("--seconds", type=float, default=0.7, help="how long the kernel should run")
    p.add_argument("--size", type=int, default=512, help="image width (height is 2/3 of it)")
    o = p.parse_args()
    try:
        dev = tack.device(o.device)
    except tack.BackendUnavailable as e:
        print(f"skipped: {e}", file=sys.stderr)
        return 77
    out = dev.zeros((o.size * 2 // 3, o.size), np.float32)
    max_iter = calibrate(out, o.seconds)
    how = "launched in an executor thread" if dev.name in RUNS_IN_CALL else "queued, awaited with sync_async"
    print(f"device: {dev.name} ({dev.capabilities.display_name}); {out.shape[1]} x {out.shape[0]} pixels, "
          f"max_iter {max_iter}, {how}")

    image, ticks, seconds = asyncio.run(count_ticks_during(launch_and_wait(dev, out, max_iter)))
    inside = float(np.mean(image < 0))
    print(f"waited {seconds:.2f} s for the kernel ({inside:.0%} of the pixels in the set); "
          f"{ticks} ticks of 10 ms ran meanwhile (at most {int(seconds / 0.01)})")
    if ticks == 0:
        print("FAILED: the event loop was blocked during the wait", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
