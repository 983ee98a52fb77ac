"""The Python examples (examples/python/) run and give their documented results:
saxpy, asyncio_responsive, nbody and local_sort_solve as programs; the lid-driven
cavity through cavity.run(), whose Re = 100 centreline must lie within 0.01 of
Ghia et al.; the path tracer through path_tracer.run(), whose white furnace must
come out within 1% of its analytic radiance."""
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import make_device

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python")


def run_example(name, *args):
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args], capture_output=True, text=True,
                       timeout=120, cwd=EXAMPLES)
    if r.returncode == 77:
        pytest.skip(r.stderr.strip())
    return r


def test_saxpy():
    r = run_example("saxpy.py", "--device", "cpu")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 mismatches: OK" in r.stdout


@pytest.mark.parametrize("device", ["interp", "cpu", "opencl"])
def test_nbody_vec3_step_matches_numpy(device):
    r = run_example("nbody.py", "--device", device, "--bodies", "256")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "256 bodies, one step" in r.stdout and ": OK" in r.stdout


@pytest.mark.parametrize("device", ["interp", "cpu", "opencl"])
def test_heat_inverse_recovers_the_initial_field(device, tmp_path):
    # Gradient descent through 200 diffusion steps, differentiated by a tack.Tape (docs/autodiff.md).
    out = tmp_path / "heat.png"
    r = run_example("heat_inverse.py", "--device", device, "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert ": OK" in r.stdout and out.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("device", ["cpu", "opencl"])  # the executor path, and the queued path
def test_asyncio_loop_keeps_ticking_during_the_wait(device):
    r = run_example("asyncio_responsive.py", "--device", device)
    assert r.returncode == 0, r.stdout + r.stderr
    assert " ticks of 10 ms ran meanwhile" in r.stdout


@pytest.fixture(scope="module")
def cavity():
    sys.path.insert(0, EXAMPLES)
    try:
        import cavity
    finally:
        sys.path.pop(0)
    return cavity


def test_cavity_re100_matches_ghia(cavity):
    import tack
    r = cavity.run(tack.device("cpu"), re=100, n=128)  # the C++ demo's case: ~28 000 steps
    assert r["converged"], f"not steady after {r['steps']} steps (residual {r['residual']:.2e})"
    assert r["max_error"] < 0.01, f"{r['max_error']:.4f} from Ghia et al. at y = {r['worst_y']}"
    assert r["ux"].shape == r["uy"].shape == (128, 128)
    assert np.isfinite(r["ux"]).all() and np.isfinite(r["uy"]).all()


def test_cavity_writes_its_files(cavity, tmp_path):
    # A short fixed run: the program's output path, not the physics.
    assert cavity.main(["--device", "cpu", "--n", "16", "--steps", "200", "--out", str(tmp_path)]) == 0
    names = {p.name for p in tmp_path.iterdir()}
    assert names == {"cavity_re100.png", "cavity_profile_re100.png", "cavity_profile_re100.csv"}
    lines = (tmp_path / "cavity_profile_re100.csv").read_text().splitlines()
    assert lines[0] == "y,u_tack,u_ghia,difference" and len(lines) == 18


@pytest.mark.parametrize("device", ["interp", "cpu", "opencl"])
def test_local_sort_solve(device):
    # Per-work-item arrays: 16 values sorted and a 4x4 system solved per work-item, against NumPy.
    r = run_example("local_sort_solve.py", "--device", device, "--n", "256" if device == "interp" else "4096")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 elements differ from np.sort" in r.stdout and r.stdout.rstrip().endswith("OK")


@pytest.fixture(scope="module")
def path_tracer():
    sys.path.insert(0, EXAMPLES)
    try:
        import path_tracer
    finally:
        sys.path.pop(0)
    return path_tracer


def furnace_truth(width, height):
    """Which pixels see the furnace's sphere wholly (True), not at all (False) or
    in part (None): the camera rays through a pixel's four corners, met with the
    unit sphere at the origin as the kernel's camera makes them."""
    def hits(px, py):
        d = np.array([0.364 * px * width / height, 0.364 * py, 1.0])
        d /= np.linalg.norm(d)
        o = np.array([0.0, 0.0, -4.0])
        b = o @ d
        return b * b - (o @ o - 1.0) > 0.0
    truth = np.empty((height, width), dtype=object)
    for row in range(height):
        for col in range(width):
            corners = [hits((col + u) / width * 2.0 - 1.0, 1.0 - (row + v) / height * 2.0)
                       for u in (0.0, 1.0) for v in (0.0, 1.0)]
            truth[row, col] = True if all(corners) else False if not any(corners) else None
    return truth


@pytest.mark.parametrize("name", ["interp", "cpu", "opencl"])
def test_path_tracer_white_furnace(path_tracer, name):
    # A diffuse sphere of albedo 0.6 in an environment of radiance 1 reflects 0.6
    # of it everywhere on its surface; every other pixel sees the environment.
    dev = make_device(name)
    width, height = 32, 24
    image = path_tracer.run(dev, path_tracer.FURNACE, width=width, height=height, samples=8)
    truth = furnace_truth(width, height)
    on = np.array([[t is True for t in r] for r in truth])
    off = np.array([[t is False for t in r] for r in truth])
    assert on.sum() > 50 and off.sum() > 50, "the scene must show both the sphere and the environment"
    np.testing.assert_allclose(image[on], 0.6, rtol=0.01)
    np.testing.assert_allclose(image[off], 1.0, rtol=0.01)


def test_path_tracer_renders_alike_on_interp_cpu_and_opencl(path_tracer):
    # The same random streams on every device: the pictures differ only where a
    # transcendental's last bits send a path elsewhere.
    images = {name: path_tracer.run(make_device(name), path_tracer.SCENE, width=24, height=18, samples=4)
              for name in ("interp", "cpu", "opencl")}
    ref = images["interp"]
    assert ref.mean() > 0.05 and np.isfinite(ref).all()
    for name, img in images.items():
        close = np.isclose(img, ref, rtol=1e-3, atol=1e-4).all(axis=2)
        assert close.mean() > 0.97, f"{name}: only {close.mean():.1%} of the pixels match interp's"
        assert abs(img.mean() - ref.mean()) < 0.01 * ref.mean(), name


def test_path_tracer_writes_a_png(path_tracer, tmp_path):
    out = tmp_path / "scene.png"
    assert path_tracer.main(["--device", "cpu", "--spp", "2", "--out", str(out)]) == 0
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and b"IHDR" in data[:16] and data.endswith(b"IEND\xaeB`\x82")
