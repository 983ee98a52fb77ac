"""Adjoint kernels on the CPU: Tack's tack.adjoint against Warp's adjoint launch (wp.launch(..., adjoint=True),
what wp.Tape runs) of the same kernels in the same run: out-of-place saxpy and a 5-point Jacobi sweep in f32.
Medians of repeated launches, each waited for; Warp's CPU kernels run on one thread, so Tack runs with
TACK_CPU_THREADS=1 too (set here), for a like-for-like ratio. Skips (exit 0, said so) without warp-lang.

    build/venv/bin/python bench/python/autodiff_warp.py [--quick]
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TACK_CPU_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import tack  # noqa: E402


@tack.kernel
def saxpy_t(z: tack.Array, x: tack.Array, y: tack.Array, a: tack.Scalar):
    for i in tack.parallel(z.size):
        z[i] = a * x[i] + y[i]


@tack.kernel
def jacobi_t(out: tack.Array, u: tack.Array):
    for i, j in tack.parallel(u.shape[0] - 2, u.shape[1] - 2):
        out[i + 1, j + 1] = 0.25 * (u[i, j + 1] + u[i + 2, j + 1] + u[i + 1, j] + u[i + 1, j + 2])


def median_ms(fn, repeats):
    fn()  # compiles
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    try:
        import warp as wp
    except ImportError:
        print("skipped: warp-lang is not installed (pip install warp-lang)")
        return 0
    wp.config.quiet = True
    wp.init()

    @wp.kernel
    def saxpy_w(z: wp.array(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
        i = wp.tid()
        z[i] = a * x[i] + y[i]

    @wp.kernel
    def jacobi_w(out: wp.array2d(dtype=float), u: wp.array2d(dtype=float)):
        i, j = wp.tid()
        out[i + 1, j + 1] = 0.25 * (u[i, j + 1] + u[i + 2, j + 1] + u[i + 1, j] + u[i + 1, j + 2])

    n = 1 << (16 if args.quick else 22)
    g = 256 if args.quick else 1024
    repeats = 5 if args.quick else 15
    rng = np.random.default_rng(0)
    dev = tack.device("cpu")
    rows = []

    hx, hy, seed = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    tx, ty, tz = dev.array(hx), dev.array(hy), dev.zeros(n, np.float32)
    tgx, tgy, tgz = dev.zeros(n, np.float32), dev.zeros(n, np.float32), dev.array(seed)
    adj = tack.adjoint(saxpy_t)
    saxpy_t(tz, tx, ty, 2.0)
    adj(tz, tx, ty, 2.0, tgz, tgx, tgy)  # one adjoint from the seed: the check below
    tack_saxpy = median_ms(lambda: (adj(tz, tx, ty, 2.0, tgz, tgx, tgy), tack.sync()), repeats)
    wx, wy, wz = (wp.array(h, dtype=float, device="cpu") for h in (hx, hy, np.zeros(n, np.float32)))
    wgx, wgy, wgz = wp.zeros(n, dtype=float, device="cpu"), wp.zeros(n, dtype=float, device="cpu"), wp.array(
        seed, dtype=float, device="cpu")
    wp.launch(saxpy_w, dim=n, inputs=[wz, wx, wy, 2.0], device="cpu")
    wp.launch(saxpy_w, dim=n, inputs=[wz, wx, wy, 2.0], adj_inputs=[wgz, wgx, wgy, 0.0], adjoint=True, device="cpu")
    # Both computed d z / d x = 2 seed once (Tack then clears z's gradient, z being overwritten; Warp keeps it).
    np.testing.assert_allclose(tgx.numpy(), 2 * seed, rtol=1e-6)
    np.testing.assert_allclose(wgx.numpy(), 2 * seed, rtol=1e-6)
    warp_saxpy = median_ms(lambda: (wp.launch(saxpy_w, dim=n, inputs=[wz, wx, wy, 2.0],
                                              adj_inputs=[wgz, wgx, wgy, 0.0], adjoint=True, device="cpu"),
                                    wp.synchronize()), repeats)
    rows.append((f"saxpy, {n} f32", tack_saxpy, warp_saxpy))

    hu, gseed = rng.random((g, g), dtype=np.float32), rng.standard_normal((g, g)).astype(np.float32)
    tu, tout = dev.array(hu), dev.zeros((g, g), np.float32)
    tgu, tgout = dev.zeros((g, g), np.float32), dev.array(gseed)
    jadj = tack.adjoint(jacobi_t)
    jacobi_t(tout, tu)
    tack_jacobi = median_ms(lambda: (jadj(tout, tu, tgout, tgu), tack.sync()), repeats)
    wu, wout = wp.array(hu, dtype=float, device="cpu"), wp.zeros((g, g), dtype=float, device="cpu")
    wgu, wgout = wp.zeros((g, g), dtype=float, device="cpu"), wp.array(gseed, dtype=float, device="cpu")
    warp_jacobi = median_ms(lambda: (wp.launch(jacobi_w, dim=(g - 2, g - 2), inputs=[wout, wu], adj_inputs=[wgout, wgu],
                                               adjoint=True, device="cpu"), wp.synchronize()), repeats)
    rows.append((f"Jacobi 5-point, {g}^2 f32", tack_jacobi, warp_jacobi))

    print(f"Adjoints on the CPU, one thread each (TACK_CPU_THREADS={os.environ['TACK_CPU_THREADS']}), warp-lang "
          f"{wp.__version__}, medians of {repeats}:")
    print(f"{'kernel':32} {'Tack':>10} {'Warp':>10} {'Warp/Tack':>10}")
    for name, t, w in rows:
        print(f"{name:32} {t:8.3f} ms {w:8.3f} ms {w / t:10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
