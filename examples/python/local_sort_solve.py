"""Per-work-item arrays: each work-item sorts its own 16 values and solves its
own 4x4 linear system in tack.local_array storage, checked against NumPy.

    python examples/python/local_sort_solve.py [--device NAME] [--n N]

Exit 0 when the sorts equal np.sort exactly and the solutions agree with
np.linalg.solve to 1e-4 (relative).
"""
import argparse
import sys

import numpy as np

import tack


@tack.func
def insertion_sort(a, n):
    """Sorts a[0:n] in place; a local array is passed by reference."""
    for k in range(1, n):
        key = a[k]
        j = k - 1
        while j >= 0 and a[j] > key:   # `and` as in Python: a[j] is read only when j >= 0
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key


@tack.kernel
def sort16(out: tack.Array, values: tack.Array):
    for i in tack.parallel(values.shape[0]):
        a = tack.local_array(np.float32, 16)     # this work-item's own 16 floats, all zero
        for k in range(len(a)):
            a[k] = values[i, k]
        insertion_sort(a, len(a))
        for k in range(16):
            out[i, k] = a[k]


@tack.kernel
def solve4(x: tack.Array, m: tack.Array, rhs: tack.Array):
    for s in tack.parallel(m.shape[0]):
        a = tack.local_array(np.float64, 16)     # the matrix, row-major
        b = tack.local_array(np.float64, 4)
        for k in range(16):
            a[k] = m[s, k // 4, k % 4]
        for k in range(4):
            b[k] = rhs[s, k]
        for c in range(4):                       # elimination with partial pivoting
            p = c
            best = abs(a[c * 4 + c])
            for r in range(c + 1, 4):
                if abs(a[r * 4 + c]) > best:
                    best = abs(a[r * 4 + c])
                    p = r
            if p != c:
                for k in range(4):
                    t = a[c * 4 + k]
                    a[c * 4 + k] = a[p * 4 + k]
                    a[p * 4 + k] = t
                t = b[c]
                b[c] = b[p]
                b[p] = t
            for r in range(c + 1, 4):
                f = a[r * 4 + c] / a[c * 4 + c]
                for k in range(c, 4):
                    a[r * 4 + k] -= f * a[c * 4 + k]
                b[r] -= f * b[c]
        for q in range(4):                       # back substitution
            r = 3 - q
            acc = b[r]
            for k in range(r + 1, 4):
                acc -= a[r * 4 + k] * b[k]
            b[r] = acc / a[r * 4 + r]
        for k in range(4):
            x[s, k] = b[k]


def run(dev, n=4096, seed=1):
    """Sorts and solves n problems on dev; returns the largest errors against NumPy."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-1000, 1000, size=(n, 16)).astype(np.float32)
    out = dev.zeros((n, 16), np.float32)
    sort16(out, dev.array(values))
    sorted_wrong = int(np.count_nonzero(out.numpy() != np.sort(values, axis=1)))

    m = rng.standard_normal((n, 4, 4)) + 4.0 * np.eye(4)
    m = m[:, rng.permutation(4), :]              # rows out of order: the pivoting has work to do
    rhs = rng.standard_normal((n, 4))
    x = dev.zeros((n, 4), np.float64)
    solve4(x, dev.array(m), dev.array(rhs))
    want = np.linalg.solve(m, rhs[..., None])[..., 0]
    solve_error = float(np.max(np.abs(x.numpy() - want) / (1.0 + np.abs(want))))
    return sorted_wrong, solve_error


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default=None, help="cpu, interp, opencl, ... (default: TACK_DEVICE, else cpu)")
    p.add_argument("--n", type=int, default=4096, help="problems (work-items)")
    args = p.parse_args()
    try:
        dev = tack.device(args.device)
    except tack.BackendUnavailable as e:
        print(f"skipped: {e}", file=sys.stderr)
        return 77
    if not dev.capabilities.supports_f64:
        print(f"skipped: {dev.name} has no float64", file=sys.stderr)
        return 77
    sorted_wrong, solve_error = run(dev, args.n)
    ok = sorted_wrong == 0 and solve_error < 1e-4
    print(f"device: {dev.name}; {args.n} sorts of 16: {sorted_wrong} elements differ from np.sort; "
          f"{args.n} 4x4 solves: largest relative error {solve_error:.2e}: {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
