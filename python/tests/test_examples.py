"""The Python examples (examples/python/) run and give their documented results:
saxpy, asyncio_responsive and nbody as programs, and the lid-driven cavity through
cavity.run(), whose Re = 100 centreline must lie within 0.01 of Ghia et al."""
import os
import subprocess
import sys

import numpy as np
import pytest

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
