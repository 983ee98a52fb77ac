"""Python-side benchmarks of the tack package against Numba in the same run:
the cost of a warm kernel call from Python, tracing plus a cold compile, and
the first call in a new process with the disk cache warm. Child processes
measure what a new program pays; medians, reported as ratios where a peer
exists.

    build/venv/bin/python bench/python/calls.py            # after scripts/test.sh built the package
    build/venv/bin/python bench/python/calls.py --quick

Numba's side runs where `import numba` works and is skipped (said so) otherwise.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

# OpenBLAS threads spinning in the background would steal the second core from both sides.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

N = 1000

CHILD_TACK = textwrap.dedent("""
    import os, sys, time
    t0 = time.perf_counter()
    import numpy as np, tack
    t1 = time.perf_counter()
    @tack.kernel
    def saxpy(y: tack.Array, x: tack.Array, a: tack.Scalar):
        for i in tack.parallel(y.size):
            y[i] = a * x[i] + y[i]
    d = tack.device("cpu", num_threads=1)
    x = d.array(np.ones(%d, np.float32)); y = d.zeros(%d, np.float32)
    t2 = time.perf_counter()
    saxpy(y, x, 3.0)
    t3 = time.perf_counter()
    assert y.numpy()[0] == 3.0
    print(t1 - t0, t3 - t2)
""" % (N, N))

CHILD_NUMBA = textwrap.dedent("""
    import time
    t0 = time.perf_counter()
    import numpy as np, numba
    t1 = time.perf_counter()
    @numba.njit
    def saxpy(y, x, a):
        for i in range(y.size):
            y[i] = a * x[i] + y[i]
    x = np.ones(%d, np.float32); y = np.zeros(%d, np.float32)
    t2 = time.perf_counter()
    saxpy(y, x, 3.0)
    t3 = time.perf_counter()
    print(t1 - t0, t3 - t2)
""" % (N, N))


def child(code, env, runs):
    """Medians of (import seconds, first-call seconds) over `runs` new processes."""
    imports, firsts = [], []
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "first_call.py")  # a file: tack.kernel reads the kernel's source
        with open(script, "w") as f:
            f.write(code)
        outs = [subprocess.run([sys.executable, script], env=env, check=True, capture_output=True, text=True,
                               timeout=300).stdout.split() for _ in range(runs)]
    for out in outs:
        imports.append(float(out[0]))
        firsts.append(float(out[1]))
    return statistics.median(imports), statistics.median(firsts)


def per_call(fn, args, calls, repeats):
    fn(*args)
    best = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        best.append((time.perf_counter() - t) / calls)
    return statistics.median(best)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    calls, repeats, runs = (20000, 3, 3) if args.quick else (200000, 7, 7)

    import tack
    try:
        import numba
    except ImportError as e:
        numba = None
        print(f"numba: skipped ({e})")

    @tack.kernel
    def saxpy(y: tack.Array, x: tack.Array, a: tack.Scalar):
        for i in tack.parallel(y.size):
            y[i] = a * x[i] + y[i]

    rows = []
    serial = tack.device("cpu", num_threads=1)
    x, y = serial.array(np.ones(N, np.float32)), serial.zeros(N, np.float32)
    t_tack = per_call(saxpy, (y, x, 3.0), calls, repeats)
    t_tack_np = per_call(saxpy, (y, x, np.float32(3.0)), calls, repeats)
    t_numba = None
    if numba:
        @numba.njit
        def nsaxpy(y, x, a):
            for i in range(y.size):
                y[i] = a * x[i] + y[i]
        hx, hy = np.ones(N, np.float32), np.zeros(N, np.float32)
        t_numba = per_call(nsaxpy, (hy, hx, 3.0), calls, repeats)
    rows.append(("warm call, saxpy 3 args, 1000 f32, serial CPU, Python float", t_tack * 1e6, t_numba and t_numba * 1e6,
                 "us", 1.5))
    rows.append(("warm call, same, NumPy float32 scalar", t_tack_np * 1e6, t_numba and t_numba * 1e6, "us", None))

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TACK_CACHE="0", TACK_CPU_THREADS="1")
        imp, cold = child(CHILD_TACK, env, runs)
        env = dict(os.environ, TACK_CACHE_DIR=cache, TACK_CPU_THREADS="1")
        child(CHILD_TACK, env, 1)  # fills the cache
        _, warm = child(CHILD_TACK, env, runs)
    n_cold = n_imp = None
    if numba:
        with tempfile.TemporaryDirectory() as ncache:
            n_imp, n_cold = child(CHILD_NUMBA, dict(os.environ, NUMBA_CACHE_DIR=ncache), runs)
    rows.append(("trace + cold compile + first call, saxpy, new process", cold * 1e3, n_cold and n_cold * 1e3,
                 "ms", None))
    rows.append(("first call with the disk cache warm, new process", warm * 1e3, None, "ms", None))
    rows.append(("import (tack / numba)", imp * 1e3, n_imp and n_imp * 1e3, "ms", None))

    print(f"{'measure':62} {'tack':>10} {'numba':>10} {'ratio':>7}  (ratio = tack / numba; below 1 tack is faster)")
    for name, t, n, unit, _ in rows:
        ratio = f"{t / n:7.2f}" if n else "      -"
        ns = f"{n:10.3f}" if n else "         -"
        print(f"{name:62} {t:10.3f} {ns} {ratio}  {unit}")


if __name__ == "__main__":
    main()
