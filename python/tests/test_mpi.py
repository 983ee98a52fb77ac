"""examples/python/mpi_cavity.py under mpirun: 2 ranks give the bits of 1 rank,
and 1 rank those of cavity.py's single-process Lattice. Skipped, with the
reason, where mpirun or mpi4py is missing."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python", "mpi_cavity.py")
MPIRUN = shutil.which("mpirun") or shutil.which("mpiexec")


def mpirun(ranks, *args):
    if MPIRUN is None:
        pytest.skip("no mpirun on PATH (Debian: openmpi-bin)")
    if importlib.util.find_spec("mpi4py") is None:
        pytest.skip("mpi4py is not installed (pip install mpi4py, with mpicc on PATH)")
    version = subprocess.run([MPIRUN, "--version"], capture_output=True, text=True).stdout.lower()
    # Open MPI refuses root without the first, more ranks than cores without the second.
    flags = ["--allow-run-as-root", "--oversubscribe"] if "open mpi" in version or "openrte" in version else []
    env = dict(os.environ, TACK_CPU_THREADS="1")  # the ranks share this machine's cores
    r = subprocess.run([MPIRUN, *flags, "-np", str(ranks), sys.executable, EXAMPLE, *args], capture_output=True,
                       text=True, timeout=120, env=env)
    if r.returncode == 77:
        pytest.skip(r.stderr.strip())
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_two_ranks_give_the_bits_of_one(tmp_path):
    small = ["--device", "cpu", "--n", "24", "--steps", "200"]
    out1 = mpirun(1, *small, "--compare-serial", "--dump", str(tmp_path / "np1.bin"))
    assert "the same bits as cavity.py's single-process Lattice: yes" in out1
    mpirun(2, *small, "--dump", str(tmp_path / "np2.bin"))
    one, two = (tmp_path / "np1.bin").read_bytes(), (tmp_path / "np2.bin").read_bytes()
    assert len(one) == 9 * 24 * 24 * 4
    assert one == two
