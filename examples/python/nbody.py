"""nbody: one all-pairs gravity step (softened) with tack.vec3, checked against NumPy.

    python examples/python/nbody.py [--device NAME] [--bodies N]

Positions and velocities are (n, 3) arrays passed as tack.Array[tack.vec3];
the simulation state is one @tack.struct parameter bundling them with the
time step. Each work-item sums the accelerations on one body over all
others, then advances its velocity and position (semi-implicit Euler).
Exit 0 when the result agrees with NumPy (float64) to 1e-4 relative.
"""
import argparse
import sys

import numpy as np

import tack


@tack.struct
class State:
    pos: tack.Array[tack.vec3]      # (n, 3) positions, read
    vel: tack.Array[tack.vec3]      # (n, 3) velocities, updated in place
    new_pos: tack.Array[tack.vec3]  # (n, 3) positions after the step
    mass: tack.Array                # (n,) masses
    dt: np.float32
    eps2: np.float32                # softening length squared


@tack.func
def accel(p, q, m, eps2):
    """The acceleration on a body at p from a mass m at q."""
    d = q - p
    r2 = tack.dot(d, d) + eps2
    inv_r = tack.rsqrt(r2)
    return d * (m * inv_r * inv_r * inv_r)


@tack.kernel
def step(s: State):
    for i in tack.parallel(s.pos.shape[0]):
        p = s.pos[i]
        a = tack.vec3(0.0, 0.0, 0.0)
        for j in range(s.pos.shape[0]):
            a += accel(p, s.pos[j], s.mass[j], s.eps2)
        v = s.vel[i] + a * s.dt
        s.vel[i] = v
        s.new_pos[i] = p + v * s.dt


def reference(pos, vel, mass, dt, eps2):
    pos, vel, mass = pos.astype(np.float64), vel.astype(np.float64), mass.astype(np.float64)
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d * d).sum(axis=2) + eps2
    a = (d * (mass[None, :] / r2 ** 1.5)[:, :, None]).sum(axis=1)
    v = vel + a * dt
    return pos + v * dt, v


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default=None, help="cpu, interp, opencl, ... (default: TACK_DEVICE, else cpu)")
    p.add_argument("--bodies", type=int, default=512)
    args = p.parse_args()
    try:
        dev = tack.device(args.device)
    except tack.BackendUnavailable as e:
        print(f"skipped: {e}", file=sys.stderr)
        return 77
    print(f"device: {dev.name} ({dev.capabilities.display_name})")

    rng = np.random.default_rng(7)
    n = args.bodies
    hpos = rng.standard_normal((n, 3)).astype(np.float32)
    hvel = (0.1 * rng.standard_normal((n, 3))).astype(np.float32)
    hmass = rng.uniform(0.5, 1.5, n).astype(np.float32) / n
    dt, eps2 = np.float32(0.01), np.float32(0.01)   # of the dtype State's fields hold

    state = State(pos=dev.array(hpos), vel=dev.array(hvel), new_pos=dev.zeros((n, 3), np.float32),
                  mass=dev.array(hmass), dt=dt, eps2=eps2)
    step(state)
    got_pos, got_vel = state.new_pos.numpy(), state.vel.numpy()

    want_pos, want_vel = reference(hpos, hvel, hmass, dt, eps2)
    err = max(np.max(np.abs(got_pos - want_pos) / (np.abs(want_pos) + 1e-3)),
              np.max(np.abs(got_vel - want_vel) / (np.abs(want_vel) + 1e-3)))
    ok = err < 1e-4
    print(f"nbody: {n} bodies, one step, max relative error {err:.2e}: {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
