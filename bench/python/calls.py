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

# D2Q9 lattice Boltzmann, periodic, BGK collision: one pull-streaming step per
# site, written out per direction so both front ends see the same arithmetic.
LBM_BODY = """
        h = fin.shape[1]
        w = fin.shape[2]
        im = i - 1 if i > 0 else h - 1
        ip = i + 1 if i < h - 1 else 0
        jm = j - 1 if j > 0 else w - 1
        jp = j + 1 if j < w - 1 else 0
        f0 = fin[0, i, j]
        f1 = fin[1, i, jm]
        f2 = fin[2, im, j]
        f3 = fin[3, i, jp]
        f4 = fin[4, ip, j]
        f5 = fin[5, im, jm]
        f6 = fin[6, im, jp]
        f7 = fin[7, ip, jp]
        f8 = fin[8, ip, jm]
        rho = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8
        ux = (f1 - f3 + f5 - f6 - f7 + f8) / rho
        uy = (f2 - f4 + f5 + f6 - f7 - f8) / rho
        usq = 1.5 * (ux * ux + uy * uy)
        r0 = rho * 0.44444445
        r1 = rho * 0.11111111
        r2 = rho * 0.027777778
        fout[0, i, j] = f0 + omega * (r0 * (1.0 - usq) - f0)
        fout[1, i, j] = f1 + omega * (r1 * (1.0 + 3.0 * ux + 4.5 * ux * ux - usq) - f1)
        fout[2, i, j] = f2 + omega * (r1 * (1.0 + 3.0 * uy + 4.5 * uy * uy - usq) - f2)
        fout[3, i, j] = f3 + omega * (r1 * (1.0 - 3.0 * ux + 4.5 * ux * ux - usq) - f3)
        fout[4, i, j] = f4 + omega * (r1 * (1.0 - 3.0 * uy + 4.5 * uy * uy - usq) - f4)
        e5 = ux + uy
        e6 = uy - ux
        fout[5, i, j] = f5 + omega * (r2 * (1.0 + 3.0 * e5 + 4.5 * e5 * e5 - usq) - f5)
        fout[6, i, j] = f6 + omega * (r2 * (1.0 + 3.0 * e6 + 4.5 * e6 * e6 - usq) - f6)
        fout[7, i, j] = f7 + omega * (r2 * (1.0 - 3.0 * e5 + 4.5 * e5 * e5 - usq) - f7)
        fout[8, i, j] = f8 + omega * (r2 * (1.0 - 3.0 * e6 + 4.5 * e6 * e6 - usq) - f8)
"""

# A new program: import, then the first call of saxpy and of the LBM kernel on
# tiny arrays. Prints import, saxpy and lbm seconds.
CHILD_TACK = textwrap.dedent("""
    import os, sys, time
    t0 = time.perf_counter()
    import numpy as np, tack
    t1 = time.perf_counter()
    @tack.kernel
    def saxpy(y: tack.Array, x: tack.Array, a: tack.Scalar):
        for i in tack.parallel(y.size):
            y[i] = a * x[i] + y[i]
    @tack.kernel
    def lbm(fout: tack.Array, fin: tack.Array, omega: tack.Scalar):
        for i, j in tack.parallel(fin.shape[1], fin.shape[2]):
    %s
    d = tack.device("cpu", num_threads=1)
    x = d.array(np.ones(%d, np.float32)); y = d.zeros(%d, np.float32)
    fin = d.array(np.full((9, 4, 4), 0.1, np.float32)); fout = d.zeros((9, 4, 4), np.float32)
    t2 = time.perf_counter()
    saxpy(y, x, 3.0)
    t3 = time.perf_counter()
    lbm(fout, fin, 1.25)
    t4 = time.perf_counter()
    assert y.numpy()[0] == 3.0 and abs(fout.numpy()[0, 0, 0] - (0.1 + 1.25 * (0.44444445 * 0.9 - 0.1))) < 1e-5
    print(t1 - t0, t3 - t2, t4 - t3)
""") % (textwrap.indent(textwrap.dedent(LBM_BODY), " " * 8).rstrip("\n"), N, N)

# The same with numba.njit(cache=True): a cold compile with NUMBA_CACHE_DIR
# empty, a cache load with it warm.
CHILD_NUMBA = textwrap.dedent("""
    import time
    t0 = time.perf_counter()
    import numpy as np, numba
    t1 = time.perf_counter()
    @numba.njit(cache=True)
    def saxpy(y, x, a):
        for i in range(y.size):
            y[i] = a * x[i] + y[i]
    @numba.njit(cache=True)
    def lbm(fout, fin, omega):
        for i in range(fin.shape[1]):
          for j in range(fin.shape[2]):
    %s
    x = np.ones(%d, np.float32); y = np.zeros(%d, np.float32)
    fin = np.full((9, 4, 4), 0.1, np.float32); fout = np.zeros((9, 4, 4), np.float32)
    t2 = time.perf_counter()
    saxpy(y, x, 3.0)
    t3 = time.perf_counter()
    lbm(fout, fin, 1.25)
    t4 = time.perf_counter()
    assert y[0] == 3.0 and abs(fout[0, 0, 0] - (0.1 + 1.25 * (0.44444445 * 0.9 - 0.1))) < 1e-5
    print(t1 - t0, t3 - t2, t4 - t3)
""") % (textwrap.indent(textwrap.dedent(LBM_BODY), " " * 10).rstrip("\n"), N, N)


def child(code, env, runs):
    """Medians of (import, saxpy's first call, lbm's first call) seconds over `runs` new processes."""
    imports, firsts, lbms = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "first_call.py")  # a file: tack.kernel reads the kernel's source
        with open(script, "w") as f:
            f.write(code)
        outs = [subprocess.run([sys.executable, script], env=env, check=True, capture_output=True, text=True,
                               timeout=300).stdout.split() for _ in range(runs)]
    for out in outs:
        imports.append(float(out[0]))
        firsts.append(float(out[1]))
        lbms.append(float(out[2]))
    return statistics.median(imports), statistics.median(firsts), statistics.median(lbms)


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
        imp, cold, cold_lbm = child(CHILD_TACK, env, runs)
        env = dict(os.environ, TACK_CACHE_DIR=cache, TACK_CPU_THREADS="1")
        child(CHILD_TACK, env, 1)  # fills the cache
        _, warm, warm_lbm = child(CHILD_TACK, env, runs)
    n_cold = n_cold_lbm = n_imp = n_warm = n_warm_lbm = None
    if numba:
        with tempfile.TemporaryDirectory() as ncache:
            colds = [child(CHILD_NUMBA, dict(os.environ, NUMBA_CACHE_DIR=os.path.join(ncache, str(r))), 1)
                     for r in range(runs)]
            n_imp = statistics.median(c[0] for c in colds)
            n_cold = statistics.median(c[1] for c in colds)
            n_cold_lbm = statistics.median(c[2] for c in colds)
            _, n_warm, n_warm_lbm = child(CHILD_NUMBA, dict(os.environ, NUMBA_CACHE_DIR=os.path.join(ncache, "0")),
                                          runs)
    ms = 1e3
    rows.append(("trace + cold compile + first call, saxpy, new process", cold * ms, n_cold and n_cold * ms,
                 "ms", None))
    rows.append(("the same, D2Q9 LBM (after saxpy)", cold_lbm * ms, n_cold_lbm and n_cold_lbm * ms, "ms", None))
    rows.append(("first call with the disk cache warm, saxpy, new process", warm * ms, n_warm and n_warm * ms,
                 "ms", None))
    rows.append(("the same, D2Q9 LBM (after saxpy)", warm_lbm * ms, n_warm_lbm and n_warm_lbm * ms, "ms", None))
    rows.append(("import (tack / numba)", imp * ms, n_imp and n_imp * ms, "ms", None))

    print(f"{'measure':62} {'tack':>10} {'numba':>10} {'ratio':>7}  (ratio = tack / numba; below 1 tack is faster)")
    for name, t, n, unit, _ in rows:
        ratio = f"{t / n:7.2f}" if n else "      -"
        ns = f"{n:10.3f}" if n else "         -"
        print(f"{name:62} {t:10.3f} {ns} {ratio}  {unit}")


if __name__ == "__main__":
    main()
