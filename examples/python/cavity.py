"""Lid-driven cavity: a D2Q9 lattice-Boltzmann simulation run to a steady state
on a Tack device, checked against Ghia, Ghia & Shin (1982).

    python examples/python/cavity.py [--device NAME] [--re 100|400|1000] [--n CELLS]
                                     [--tol T] [--steps S] [--max-steps S] [--out DIR]

The Python port of examples/cavity (lbm.cpp, cavity.cpp, profile.cpp): the
kernels are the same operations in the same order, so they trace to the same
IR as the C++ ones. Writes DIR/cavity_re<Re>.png (the speed), and
cavity_profile_re<Re>.png and .csv (u/U on the vertical centreline beside
Ghia's values). Exit codes as the C++ demo: 0 done, 1 not converged or more
than 0.01 from Ghia at Re = 100, 2 bad arguments, 77 backend unavailable.
`run()` does the simulation and the comparison without writing files.
"""
import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import tack

# ---- D2Q9 ---------------------------------------------------------------------------
# Velocity c_k, weight w_k and the opposite direction of each. The weights are
# the C++ float expressions 4.f / 9, 1.f / 9, 1.f / 36, computed in f32 and held
# as Python floats: exactly the f32 constants, and weak like the C++ literals.
CX = (0, 1, 0, -1, 0, 1, -1, -1, 1)
CY = (0, 0, 1, 0, -1, 1, 1, -1, -1)
OPP = (0, 3, 4, 1, 2, 7, 8, 5, 6)
_f32 = np.float32
W = tuple(float(w) for w in (_f32(4) / _f32(9),) + (_f32(1) / _f32(9),) * 4 + (_f32(1) / _f32(36),) * 4)
CXF = tuple(float(c) for c in CX)  # static_cast<float>(kCx[k])
CYF = tuple(float(c) for c in CY)
# 6.0f * kW[k] * static_cast<float>(kCx[k]): the lid's momentum per unit lid speed, in f32.
LID = tuple(float(_f32(6) * _f32(W[k]) * _f32(CX[k])) for k in range(9))
# How many of the "source is inside the grid" tests direction k has (one per nonzero component).
NTESTS = tuple(int(CX[k] != 0) + int(CY[k] != 0) for k in range(9))

# The arrays hold g_k = f_k - w_k, the deviation from the fluid at rest: the
# deviations are small (|g| ~ 0.01), so f32 keeps ~3 more digits of them than
# of f itself (see lbm.cpp).


@tack.func
def moments_of(g):
    """(drho, rho, ux, uy) of one cell from its nine g's (sum w = 1, sum w c = 0)."""
    drho = g[0]
    for k in tack.static_range(1, 9):
        drho = drho + g[k]
    jx = (g[1] + g[5] + g[8]) - (g[3] + g[6] + g[7])
    jy = (g[2] + g[5] + g[6]) - (g[4] + g[7] + g[8])
    rho = 1.0 + drho
    inv = 1.0 / rho
    return drho, rho, jx * inv, jy * inv


@tack.func
def array_row(r, y0, slab):
    """The arrays' row of global row r: r itself for the whole grid; in a slab
    with a ghost row below (examples/python/mpi_cavity.py), r - y0 + 1. `slab`
    is a plain Python bool, decided while tracing."""
    out = r
    if slab:
        out = r - y0 + 1
    return out


@tack.func
def stream_collide_cell(g_out, g_in, omega, lid_u, y, x, ny, nx, y0, slab):
    """One cell's time step, pull scheme: gather the populations streaming in
    (half-way bounce-back at walls, plus the lid's momentum below the lid),
    relax towards equilibrium (BGK), write to g_out. Walls use select, not
    branches. y is the cell's row in the whole grid of ny rows, so the walls are
    where they are in the whole grid whatever part of it the arrays hold (as
    stream_collide_cell in examples/cavity/lbm_kernels.hpp)."""
    g = (g_in[0, array_row(y, y0, slab), x],)   # a Python tuple of Values, as the C++ std::vector<Value>
    for k in tack.static_range(1, 9):
        # Only the components that can leave the grid need a test and a clamp.
        sy, sx = y - CY[k], x - CX[k]
        inside = ()             # the tests that must all hold for the source to be fluid
        if CY[k] > 0:
            inside = inside + (sy >= 0,)
            sy = tack.max(sy, 0)
        if CY[k] < 0:
            inside = inside + (sy < ny,)
            sy = tack.min(sy, ny - 1)
        if CX[k] > 0:
            inside = inside + (sx >= 0,)
            sx = tack.max(sx, 0)
        if CX[k] < 0:
            inside = inside + (sx < nx,)
            sx = tack.min(sx, nx - 1)
        fluid = inside[0]
        for t in tack.static_range(1, NTESTS[k]):
            fluid = tack.logical_and(fluid, inside[t])
        bounced = g_in[OPP[k], array_row(y, y0, slab), x]   # w_k == w_opp, so g bounces like f
        if CY[k] < 0 and CX[k] != 0:           # coming down from the lid: it carries the lid's momentum
            bounced = bounced + tack.select(y + 1 >= ny, lid_u * LID[k], 0.0)
        g = g + (tack.select(fluid, g_in[k, array_row(sy, y0, slab), sx], bounced),)

    drho, rho, ux, uy = moments_of(g)
    usq15 = 1.5 * (ux * ux + uy * uy)
    for k in tack.static_range(9):
        cu = 3.0 * (CXF[k] * ux + CYF[k] * uy)
        # f_eq - w = w (rho - 1) + w rho (3 c.u + 4.5 (c.u)^2 - 1.5 u.u)
        geq = W[k] * (drho + rho * (cu + 0.5 * cu * cu - usq15))
        g_out[k, array_row(y, y0, slab), x] = g[k] + omega * (geq - g[k])


# The kernels carry the C++ kernels' names (lbm_*), so both front ends name
# their variants alike.
@tack.kernel(name="lbm_stream_collide")
def stream_collide(g_out: tack.Array, g_in: tack.Array, omega: tack.Scalar, lid_u: tack.Scalar):
    """One time step of the whole grid."""
    for y, x in tack.parallel(g_in.shape[1], g_in.shape[2]):
        ny, nx = g_in.shape[1], g_in.shape[2]
        stream_collide_cell(g_out, g_in, omega, lid_u, y, x, ny, nx, 0, False)


@tack.kernel(name="lbm_moments")
def moments(rho: tack.Array, ux: tack.Array, uy: tack.Array, g_in: tack.Array):
    """Density and velocity of every cell, for output and the residual."""
    for y, x in tack.parallel(g_in.shape[1], g_in.shape[2]):
        g: tuple = ()   # grows to nine values (the annotation tells type checkers it grows)
        for k in tack.static_range(9):
            g = g + (g_in[k, y, x],)
        m = moments_of(g)
        rho[y, x] = m[1]
        ux[y, x] = m[2]
        uy[y, x] = m[3]


@tack.kernel(name="lbm_residual_terms")
def residual_terms(change2: tack.Array, magnitude2: tack.Array, ux_prev: tack.Array, uy_prev: tack.Array,
                   ux: tack.Array, uy: tack.Array):
    """Per-cell |u - u_prev|^2 and |u|^2 (the host sums them); then u_prev = u."""
    for i in tack.parallel(ux.size):
        u, v = ux[i], uy[i]
        du, dv = u - ux_prev[i], v - uy_prev[i]
        change2[i] = du * du + dv * dv
        magnitude2[i] = u * u + v * v
        ux_prev[i] = u
        uy_prev[i] = v


class Lattice:
    """n x n cells, walls on all sides, the lid (row n - 1's top) moving at lid_u;
    BGK relaxation time tau. Starts at rest, density 1. As cavity::Lattice."""

    def __init__(self, dev, n, lid_u, tau):
        self.n, self.lid_u = n, _f32(lid_u)
        self.omega = _f32(1) / _f32(tau)      # f32 scalars, as the C++ float arguments
        self.f = dev.zeros((9, n, n), np.float32)  # g = 0: at rest, density 1
        self.f_next = dev.zeros((9, n, n), np.float32)
        (self.ux, self.uy, self.rho, self.ux_prev, self.uy_prev, self.change2,
         self.magnitude2) = (dev.zeros((n, n), np.float32) for _ in range(7))
        self.steps = 0
        self.have_prev = False

    def step(self, count):
        for _ in range(count):
            stream_collide(self.f_next, self.f, self.omega, self.lid_u)
            self.f, self.f_next = self.f_next, self.f   # swaps the handles, not the data
        self.steps += count

    def residual(self):
        """||u - u_prev|| / ||u|| since the previous call (1 the first time); waits."""
        moments(self.rho, self.ux, self.uy, self.f)
        residual_terms(self.change2, self.magnitude2, self.ux_prev, self.uy_prev, self.ux, self.uy)
        change, magnitude = self.change2.sum(), self.magnitude2.sum()
        first, self.have_prev = not self.have_prev, True
        return 1.0 if first or magnitude == 0 else math.sqrt(change / magnitude)

    def velocity(self):
        moments(self.rho, self.ux, self.uy, self.f)
        return self.ux.numpy(), self.uy.numpy()   # row 0 is the bottom row


# ---- Ghia, Ghia & Shin, J. Comput. Phys. 48 (1982) 387-411, Table I: u/U on the
# vertical centreline, their 129 x 129 grid (copied from ghia.hpp).
GHIA_Y = (0.0000, 0.0547, 0.0625, 0.0703, 0.1016, 0.1719, 0.2813, 0.4531, 0.5000,
          0.6172, 0.7344, 0.8516, 0.9531, 0.9609, 0.9688, 0.9766, 1.0000)
GHIA_U = {
    100: (0.00000, -0.03717, -0.04192, -0.04775, -0.06434, -0.10150, -0.15662, -0.21090, -0.20581,
          -0.13641, 0.00332, 0.23151, 0.68717, 0.73722, 0.78871, 0.84123, 1.00000),
    400: (0.00000, -0.08186, -0.09266, -0.10338, -0.14612, -0.24299, -0.32726, -0.17119, -0.11477,
          0.02135, 0.16256, 0.29093, 0.55892, 0.61756, 0.68439, 0.75837, 1.00000),
    1000: (0.00000, -0.18109, -0.20196, -0.22220, -0.29730, -0.38289, -0.27805, -0.10648, -0.06080,
           0.05702, 0.18719, 0.33304, 0.46604, 0.51117, 0.57492, 0.65928, 1.00000),
}


def centreline(ux, lid_u):
    """(y, u/U) on x = 0.5 in cavity units: the cell centres plus both walls."""
    n = ux.shape[0]
    # With an even n the line runs between two columns: take their mean.
    u = 0.5 * (ux[:, n // 2 - 1].astype(np.float64) + ux[:, n // 2]) if n % 2 == 0 else ux[:, n // 2].astype(float)
    y = np.concatenate(([0.0], (np.arange(n) + 0.5) / n, [1.0]))
    return y, np.concatenate(([0.0], u / float(lid_u), [1.0]))


def parameters(n, re):
    """(lid_u, tau) in lattice units: the lid moves at 0.1 (Mach 0.17) and the
    cavity is n cells wide, so nu = U n / Re and tau = 3 nu + 1/2 (computed in
    double, then rounded to float, as cavity.cpp does)."""
    lid_u = _f32(0.1)
    nu = float(lid_u) * float(n) / re
    return lid_u, _f32(3.0 * nu + 0.5)


def run(device=None, re=100, n=128, max_steps=2_000_000, tol=1e-5, steps=0, check_every=1000,
        progress=None) -> dict[str, Any]:
    """Runs the cavity to a steady state (or exactly `steps` steps when > 0) as
    cavity.cpp's host loop does: a residual check every `check_every` steps,
    stopping once it is below tol. Returns a dict: max_error (None without Ghia
    data for this Re), worst_y, steps, converged, seconds, residual, ux, uy
    ({n, n}, row 0 at the bottom), profile (y, u/U), tack_u (at Ghia's y), tau."""
    dev = device if isinstance(device, tack.Device) else tack.device(device)
    lid_u, tau = parameters(n, re)
    lat = Lattice(dev, n, lid_u, tau)
    fixed = steps > 0
    limit = steps if fixed else max_steps
    every = min(check_every, limit)
    lat.residual()  # remembers the fluid at rest
    residual, converged = 1.0, False
    t0 = time.perf_counter()
    while lat.steps < limit:
        lat.step(min(every, limit - lat.steps))
        residual = lat.residual()   # waits for the steps: the timing is honest
        if not math.isfinite(residual):
            break
        if progress:
            progress(lat.steps, residual, time.perf_counter() - t0)
        if not fixed and residual < tol:
            converged = True
            break
    seconds = time.perf_counter() - t0
    ux, uy = lat.velocity()
    y, u = centreline(ux, lid_u)
    tack_u = np.interp(GHIA_Y, y, u)  # linear, as Profile::at
    ghia = GHIA_U.get(re)
    max_error = worst_y = None
    if ghia is not None:
        d = np.abs(tack_u - np.array(ghia))
        max_error, worst_y = float(d.max()), GHIA_Y[int(d.argmax())]
    return dict(max_error=max_error, worst_y=worst_y, steps=lat.steps, converged=converged, seconds=seconds,
                residual=residual, ux=ux, uy=uy, profile=(y, u), tack_u=tack_u, tau=float(tau), lid_u=float(lid_u),
                device=dev)


# ---- output (Pillow) -------------------------------------------------------------------
_VIRIDIS = np.array([(0.267, 0.005, 0.329), (0.283, 0.141, 0.458), (0.254, 0.265, 0.530), (0.207, 0.372, 0.553),
                     (0.164, 0.471, 0.558), (0.128, 0.567, 0.551), (0.134, 0.658, 0.518), (0.267, 0.749, 0.441),
                     (0.478, 0.821, 0.318), (0.741, 0.873, 0.150), (0.993, 0.906, 0.144)])


def viridis(t):
    """RGB bytes for t in [0, 1] (any shape), the C++ examples' ramp."""
    t = np.clip(np.nan_to_num(t), 0, 1) * 10
    i = np.minimum(t.astype(int), 9)
    f = (t - i)[..., None]
    return (255 * (_VIRIDIS[i] + (_VIRIDIS[i + 1] - _VIRIDIS[i]) * f) + 0.5).astype(np.uint8)


def draw_speed(path, ux, uy, lid_u, title):
    """|u|/U in viridis, bilinear between cell centres, with the lid and a colour bar."""
    from PIL import Image, ImageDraw
    n = ux.shape[0]
    s = max(1, (512 + n - 1) // n)  # pixels per cell
    side, margin, top, bottom = n * s, 12, 34, 52
    speed = np.hypot(ux, uy) / lid_u
    p = (np.arange(side) + 0.5) / s           # pixel centres in cell units

    def axis(c):  # cell index and weight for bilinear sampling at coordinate c
        fc = np.clip(c - 0.5, 0, n - 1)
        c0 = np.minimum(fc.astype(int), n - 2)
        return c0, fc - c0
    x0, tx = axis(p)
    y0, ty = axis(n - p)                      # image rows run down, cavity rows up
    tx, ty = tx[None, :], ty[:, None]
    a = lambda dy, dx: speed[np.ix_(y0 + dy, x0 + dx)]
    field = (1 - ty) * ((1 - tx) * a(0, 0) + tx * a(0, 1)) + ty * ((1 - tx) * a(1, 0) + tx * a(1, 1))
    img = Image.new("RGB", (side + 2 * margin, side + top + bottom), "white")
    img.paste(Image.fromarray(viridis(field)), (margin, top))
    d = ImageDraw.Draw(img)
    ink = (26, 26, 26)
    d.rectangle([margin, top - 5, margin + side - 1, top - 1], fill=ink)   # the lid, moving right
    d.text((margin, 10), title, fill=ink)
    d.line([margin + side - 70, 15, margin + side - 10, 15], fill=ink, width=2)
    d.polygon([(margin + side - 8, 15), (margin + side - 16, 10), (margin + side - 16, 20)], fill=ink)
    d.text((margin + side - 100, 10), "lid", fill=ink)
    by, bw = top + side + 10, side - 120
    bar = viridis(np.linspace(0, 1, bw))[None, :, :].repeat(12, axis=0)
    img.paste(Image.fromarray(bar), (margin, by))
    d.text((margin, by + 16), "0", fill=ink)
    d.text((margin + bw - 6, by + 16), "1", fill=ink)
    d.text((margin + bw + 12, by + 1), "|u| / U", fill=ink)
    img.save(path)


def plot_profile(path, y, u, ghia, title):
    """u/U against y, with Ghia's points as red rings."""
    from PIL import Image, ImageDraw
    W_, H, left, right, top, bottom = 560, 560, 70, 30, 46, 62
    umin, umax = -0.5, 1.0
    pw, ph = W_ - left - right, H - top - bottom
    px = lambda v: left + (v - umin) / (umax - umin) * pw
    py = lambda v: top + (1.0 - v) * ph
    img = Image.new("RGB", (W_, H), "white")
    d = ImageDraw.Draw(img)
    grid, ink, blue, red = (224, 224, 224), (26, 26, 26), (33, 89, 191), (217, 38, 26)
    for i in range(7):  # u ticks every 0.25
        v = umin + 0.25 * i
        d.line([px(v), py(0), px(v), py(1)], fill=(179, 179, 179) if v == 0 else grid)
        d.text((px(v) - 12, py(0) + 9), f"{v:.2f}", fill=ink)
    for i in range(6):  # y ticks every 0.2
        v = 0.2 * i
        d.line([px(umin), py(v), px(umax), py(v)], fill=grid)
        d.text((px(umin) - 30, py(v) - 6), f"{v:.1f}", fill=ink)
    d.rectangle([px(umin), py(1), px(umax), py(0)], outline=ink)
    d.line([(px(a), py(b)) for a, b in zip(u, y)], fill=blue, width=2)
    if ghia is not None:
        for a, b in zip(ghia, GHIA_Y):
            d.ellipse([px(a) - 4.5, py(b) - 4.5, px(a) + 4.5, py(b) + 4.5], outline=red, width=2)
    lx, ly = px(umin) + 16, py(1) + 16
    d.line([lx, ly + 6, lx + 26, ly + 6], fill=blue, width=2)
    d.text((lx + 34, ly), "Tack LBM (D2Q9, f32), Python", fill=ink)
    if ghia is not None:
        d.ellipse([lx + 8.5, ly + 25.5, lx + 17.5, ly + 34.5], outline=red, width=2)
        d.text((lx + 34, ly + 24), "Ghia, Ghia & Shin 1982", fill=ink)
    d.text((left, 16), title, fill=ink)
    d.text((left + pw // 2 - 50, H - 24), "u / U  on  x = 0.5", fill=ink)
    d.text((14, top + ph // 2 - 6), "y", fill=ink)
    img.save(path)


def write_csv(path, tack_u, ghia):
    with open(path, "w") as f:  # Ghia's 17 points, the simulation interpolated there, the difference
        f.write("y,u_tack,u_ghia,difference\n")
        for i, yy in enumerate(GHIA_Y):
            if ghia is None:
                f.write(f"{yy:.4f},{tack_u[i]:.5f},,\n")
            else:
                f.write(f"{yy:.4f},{tack_u[i]:.5f},{ghia[i]:.5f},{tack_u[i] - ghia[i]:+.5f}\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Lid-driven cavity (D2Q9 LBM) checked against Ghia et al. (1982).")
    p.add_argument("--device", default=None, help="cpu, interp, opencl, ... (default: TACK_DEVICE, else cpu)")
    p.add_argument("--re", type=int, default=100)
    p.add_argument("--n", type=int, default=128, help="cells per side")
    p.add_argument("--tol", type=float, default=1e-5, help="steady when u changes by less than this per 1000 steps")
    p.add_argument("--steps", type=int, default=0, help="> 0: run exactly this many steps, no convergence test")
    p.add_argument("--max-steps", type=int, default=2_000_000)
    p.add_argument("--out", default=str(Path(__file__).resolve().parents[2] / "build" / "demo-python"))
    o = p.parse_args(argv)
    if o.re <= 0 or o.n < 4 or o.tol <= 0 or o.steps < 0 or o.max_steps <= 0:
        p.print_usage(sys.stderr)
        return 2
    try:
        dev = tack.device(o.device)
    except tack.BackendUnavailable as e:
        print(f"skipped: {e}", file=sys.stderr)
        return 77
    print(f"device: {dev.name} ({dev.capabilities.display_name})")
    checks = [0]

    def progress(step, residual, seconds):  # a line every 10 checks: no stream of \r in logs
        checks[0] += 1
        if checks[0] % 10 == 1:
            print(f"step {step}  residual {residual:.2e} (target {o.tol:.0e})  {seconds:.1f} s", file=sys.stderr)

    lid_u, tau = parameters(o.n, o.re)
    if tau < _f32(0.51):
        print(f"warning: tau = {tau:.4f} is close to 1/2; BGK may be unstable: use a larger --n", file=sys.stderr)
    if dev.name == "interp" and o.n * o.n * (o.steps or 30000) > 5_000_000:
        print("note: the interpreter runs ~10^4 cell updates a second; this will take long "
              "(try --n 16 --steps 300)", file=sys.stderr)
    print(f"cavity: Re = {o.re}, {o.n} x {o.n} cells, lid velocity {lid_u:.2f}, tau = {tau:.4f}")
    r = run(dev, o.re, o.n, o.max_steps, o.tol, o.steps, progress=progress)
    fixed = o.steps > 0
    mlups = o.n * o.n * r["steps"] / r["seconds"] / 1e6
    if not math.isfinite(r["residual"]):
        print(f"the simulation blew up at step {r['steps']}", file=sys.stderr)
        return 1
    state = "ran" if fixed else "steady after" if r["converged"] else "NOT converged after"
    print(f"{state} {r['steps']} steps in {r['seconds']:.2f} s ({mlups:.0f} MLUPS): residual {r['residual']:.2e}")

    out = Path(o.out)
    out.mkdir(parents=True, exist_ok=True)
    ghia = GHIA_U.get(o.re)
    title = f"Re = {o.re}, {o.n} x {o.n} cells (Tack, Python)"
    draw_speed(out / f"cavity_re{o.re}.png", r["ux"], r["uy"], r["lid_u"], title)
    y, u = r["profile"]
    plot_profile(out / f"cavity_profile_re{o.re}.png", y, u, ghia, f"Centreline u/U, {title}")
    write_csv(out / f"cavity_profile_re{o.re}.csv", r["tack_u"], ghia)
    print(f"wrote {out}/cavity_re{o.re}.png, cavity_profile_re{o.re}.png and .csv")

    if r["max_error"] is not None:
        print(f"largest deviation from Ghia et al. (1982): {r['max_error']:.4f} (at y = {r['worst_y']:.4f})")
        # Only Re = 100 is resolved well enough on this grid to promise 0.01 (as the C++ demo).
        if o.re == 100 and not fixed:
            if not r["converged"]:
                print(f"FAILED: not converged within {o.max_steps} steps", file=sys.stderr)
                return 1
            if r["max_error"] > 0.01:
                print("FAILED: the deviation from Ghia et al. exceeds 0.01", file=sys.stderr)
                return 1
            print("within 0.01 of Ghia et al.: OK")
    return 0 if fixed or r["converged"] else 1


if __name__ == "__main__":
    sys.exit(main())
