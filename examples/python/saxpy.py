"""saxpy: y = a * x + y on a Tack device, checked against NumPy.

    python examples/python/saxpy.py [--device NAME]

The Python twin of examples/saxpy/saxpy.cpp. Without --device it runs on
tack.device(): TACK_DEVICE if set, else the default. Exit 0 when every element
matches.
"""
import argparse
import sys

import numpy as np

import tack


# Traced once into Tack IR, compiled for the dtypes of each call (f32 here).
@tack.kernel
def saxpy(y: tack.Array, x: tack.Array, a: tack.Scalar):
    for i in tack.parallel(y.size):
        y[i] = a * x[i] + y[i]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default=None, help="cpu, interp, opencl, ... (default: TACK_DEVICE, else cpu)")
    args = p.parse_args()

    try:
        dev = tack.device(args.device)
    except tack.BackendUnavailable as e:
        print(f"skipped: {e}", file=sys.stderr)
        return 77
    print(f"device: {dev.name} ({dev.capabilities.display_name})")

    # These values make every a * x + y exact in f32, so any correct device
    # matches NumPy bit for bit.
    n = 1 << 16
    i = np.arange(n)
    hx = (0.25 * (i % 1024)).astype(np.float32)
    hy = ((i % 77) - 38.0).astype(np.float32)
    x, y = dev.array(hx), dev.array(hy)
    saxpy(y, x, 3.0)          # a Python float is weak: the kernel computes in f32
    out = y.numpy()           # waits for the launch

    expected = np.float32(3.0) * hx + hy
    wrong = np.flatnonzero(out != expected)
    for k in wrong[:5]:
        print(f"mismatch at {k}: got {out[k]}, expected {expected[k]}", file=sys.stderr)
    print(f"saxpy: {n} elements, {wrong.size} mismatches: {'OK' if wrong.size == 0 else 'FAILED'}")
    return 0 if wrong.size == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
