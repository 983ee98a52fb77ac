"""Inverse heat diffusion: recover the initial temperature field from the final one by gradient descent
through the whole simulation, differentiated by a tack.Tape.

    python examples/python/heat_inverse.py [--device NAME] [--steps 200] [--iterations 80] [--out heat_inverse.png]

A field on an n x n grid diffuses for `steps` explicit steps (u += alpha * laplacian(u), two arrays used in
turn: the tape keeps a copy of each array a later step overwrites). The truth's final field is observed;
starting from zero, each iteration runs the simulation under a Tape, takes the squared error of its final
field, and steps the initial field against tape.backward's gradient. Writes a PNG of the truth, the start and
the recovered field side by side, and prints the loss's fall; exit 0 when it fell at least 100-fold.
"""
import argparse
import sys

import numpy as np

import tack

# The C++ twin of heat_step, giving the same adjoint IR: python/tests/twins/twins.cpp ("heat_step").


@tack.kernel
def heat_step(out: tack.Array, u: tack.Array, alpha: tack.Scalar):
    for i, j in tack.parallel(u.shape[0] - 2, u.shape[1] - 2):
        c = u[i + 1, j + 1]
        out[i + 1, j + 1] = c + alpha * (u[i, j + 1] + u[i + 2, j + 1] + u[i + 1, j] + u[i + 1, j + 2] - 4.0 * c)


@tack.kernel
def squared_error(loss: tack.Array, u: tack.Array, target: tack.Array):
    for i, j in tack.parallel(u.shape[0], u.shape[1]):
        d = u[i, j] - target[i, j]
        tack.atomic_add(loss, 0, d * d)


def truth_field(n):
    """Two warm blobs and a cold bar, zero on the border."""
    y, x = np.mgrid[0:n, 0:n] / (n - 1.0)
    field = np.exp(-((x - 0.3) ** 2 + (y - 0.35) ** 2) / 0.01) + 0.7 * np.exp(-((x - 0.7) ** 2 + (y - 0.6) ** 2) / 0.02)
    field -= 0.5 * ((np.abs(x - 0.5) < 0.25) & (np.abs(y - 0.8) < 0.04))
    field[0, :] = field[-1, :] = field[:, 0] = field[:, -1] = 0.0
    return field


def simulate(dev, initial, steps, alpha):
    """The final field of `steps` steps from `initial` (a device array that the steps overwrite)."""
    a, b = initial, dev.zeros(initial.shape, np.float64)
    for _ in range(steps):
        heat_step(b, a, alpha)
        a, b = b, a
    return a


def run(dev, n=32, steps=200, iterations=80, alpha=0.05, learning_rate=0.9):
    """(losses per iteration, truth, start, recovered)."""
    truth = truth_field(n)
    observed = dev.array(simulate(dev, dev.array(truth), steps, alpha).numpy())
    estimate = np.zeros((n, n))
    start = estimate.copy()
    losses = []
    tape = tack.Tape()
    for _ in range(iterations):
        initial = dev.array(estimate, requires_grad=True)
        loss = dev.zeros(1, np.float64)
        with tape:
            final = simulate(dev, initial, steps, alpha)
            squared_error(loss, final, observed)
        tape.backward(loss)
        losses.append(float(loss.numpy()[0]))
        # The border is the boundary condition (held at zero), not a value to recover.
        estimate[1:-1, 1:-1] -= learning_rate * initial.grad.numpy()[1:-1, 1:-1]
        tape.reset()
    return losses, truth, start, estimate


def write_png(path, fields):
    """Fields side by side as an 8-bit grey PNG (6x6 pixels a cell, one scale for all), written with zlib alone."""
    import struct
    import zlib
    lo, hi = min(f.min() for f in fields), max(f.max() for f in fields)
    image = np.concatenate([np.pad(f, 2, constant_values=hi) for f in fields], axis=1).repeat(6, 0).repeat(6, 1)
    pixels = (np.clip((image - lo) / (hi - lo), 0, 1) * 255 + 0.5).astype(np.uint8)
    raw = b"".join(b"\x00" + row.tobytes() for row in pixels)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", pixels.shape[1], pixels.shape[0], 8, 0,
                                                                    0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default=None, help="cpu, interp, opencl, ... (default: TACK_DEVICE, else cpu)")
    p.add_argument("--n", type=int, default=32, help="grid size")
    p.add_argument("--steps", type=int, default=200, help="diffusion steps")
    p.add_argument("--iterations", type=int, default=80, help="gradient descent iterations")
    p.add_argument("--out", default="heat_inverse.png")
    args = p.parse_args(argv)
    try:
        dev = tack.device(args.device)
    except tack.BackendUnavailable as e:
        print(f"skipped: {e}", file=sys.stderr)
        return 77
    losses, truth, start, recovered = run(dev, args.n, args.steps, args.iterations)
    write_png(args.out, [truth, start, recovered])
    fall = losses[0] / losses[-1]
    print(f"device: {dev.name}; {args.steps} steps, {args.iterations} iterations: loss {losses[0]:.4g} -> "
          f"{losses[-1]:.4g} ({fall:.0f}x); wrote {args.out}: {'OK' if fall >= 100 else 'FAILED'}")
    return 0 if fall >= 100 else 1


if __name__ == "__main__":
    sys.exit(main())
