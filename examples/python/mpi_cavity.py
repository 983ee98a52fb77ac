"""The lid-driven cavity on several MPI ranks with mpi4py: the rows split in
slabs, one Tack kernel per step on each slab, halos exchanged by MPI straight
from Tack arrays (no copies).

    mpirun -np R python examples/python/mpi_cavity.py [--device NAME] [--n CELLS]
                                                      [--steps S] [--dump FILE] [--compare-serial]

The Python twin of examples/mpi_cavity: the slab kernel runs cavity.py's cell
update (stream_collide_cell) with the cell's global row, so any rank count
gives the bits of one rank. Rank 0 gathers g = f - w: --dump writes it as raw
f32 [9][n][n], --compare-serial requires the bits of cavity.Lattice. Exit codes:
0 done, 1 failed, 2 bad arguments, 77 no mpi4py or the backend is unavailable.
"""
import argparse
import os
import sys
import time

import numpy as np

try:
    from mpi4py import MPI
except (ImportError, RuntimeError, OSError) as e:  # optional: no mpi4py, or no MPI library for it to load
    print(f"skipped: mpi4py cannot be used ({e}); pip install mpi4py, with an MPI installed", file=sys.stderr)
    sys.exit(77)

import tack

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cavity import Lattice, parameters, stream_collide_cell  # noqa: E402  (the kernels are cavity.py's)


@tack.kernel(name="lbm_slab_stream_collide")
def slab_stream_collide(g_out: tack.Array, g_in: tack.Array, omega: tack.Scalar, lid_u: tack.Scalar,
                        y0: tack.Scalar, ny: tack.Scalar, first: tack.Scalar, stride: tack.Scalar,
                        count: tack.Scalar):
    """Array rows first, first + stride, ... (count of them) of a slab holding
    global rows y0.. as array rows 1..; rows 0 and rows + 1 are ghost rows."""
    for i, x in tack.parallel(count, g_in.shape[2]):
        y = y0 + (first + i * stride) - 1   # the cell's global row
        stream_collide_cell(g_out, g_in, omega, lid_u, y, x, ny, g_in.shape[2], y0, True)


@tack.kernel(name="halo_pack")
def halo_pack(bottom: tack.Array, top: tack.Array, g: tack.Array):
    """The slab's edge rows, each into one contiguous {9, nx} message."""
    for k, x in tack.parallel(bottom.shape[0], bottom.shape[1]):
        bottom[k, x] = g[k, 1, x]
        top[k, x] = g[k, g.shape[1] - 2, x]


@tack.kernel(name="halo_unpack")
def halo_unpack(g: tack.Array, below: tack.Array, above: tack.Array):
    """The ghost rows from the received messages."""
    for k, x in tack.parallel(below.shape[0], below.shape[1]):
        g[k, 0, x] = below[k, x]
        g[k, g.shape[1] - 1, x] = above[k, x]


def mpi_buffer(a):
    """What mpi4py reads and writes: the Tack array itself. mpi4py takes it through
    __dlpack__ (DLPack 1.0: the array's own, writable memory, no copy), which
    shares the array, so every later launch that binds it completes before
    returning and MPI never reads a half-written halo. On cuda the tensor is
    device memory, which only a CUDA-aware MPI can use (docs/mpi.md)."""
    kind = a.share().kind
    if kind not in ("host", "cuda"):
        raise SystemExit(f"mpi_cavity.py: MPI cannot use {kind!r} memory (host or cuda only)")
    return a


class Slab:
    """This rank's rows [y0, y0 + rows) of the n x n cavity, with ghost rows."""

    def __init__(self, dev, comm, n, lid_u, tau):
        rank, ranks = comm.Get_rank(), comm.Get_size()
        base, extra = divmod(n, ranks)
        self.y0, self.rows = rank * base + min(rank, extra), base + (rank < extra)
        self.comm, self.n, self.lid_u, self.omega = comm, n, lid_u, np.float32(1) / tau
        self.below = rank - 1 if rank > 0 else MPI.PROC_NULL
        self.above = rank + 1 if rank + 1 < ranks else MPI.PROC_NULL
        self.f = dev.zeros((9, self.rows + 2, n), np.float32)
        self.f_next = dev.zeros((9, self.rows + 2, n), np.float32)
        self.send = [dev.zeros((9, n), np.float32) for _ in range(2)]   # bottom row, top row
        self.recv = [dev.zeros((9, n), np.float32) for _ in range(2)]   # ghost below, ghost above
        self.send_buf = [mpi_buffer(a) for a in self.send]
        self.recv_buf = [mpi_buffer(a) for a in self.recv]
        self.steps, self.halo_s, self.step_s = 0, 0.0, 0.0

    def step(self, count):
        rows, y0, n = self.rows, self.y0, self.n
        inner = max(rows - 2, 0)
        edge_count, edge_stride = (2, rows - 1) if rows > 1 else (1, 1)
        up, down = 1, 2  # tags: the direction a row travels
        for _ in range(count):
            t0 = time.perf_counter()
            halo_pack(self.send[0], self.send[1], self.f)
            reqs = [self.comm.Irecv(self.recv_buf[0], self.below, up), self.comm.Irecv(self.recv_buf[1], self.above, down),
                    self.comm.Isend(self.send_buf[0], self.below, down), self.comm.Isend(self.send_buf[1], self.above, up)]
            t1 = time.perf_counter()
            slab_stream_collide(self.f_next, self.f, self.omega, self.lid_u, y0, n, 2, 1, inner)  # overlaps the exchange
            t2 = time.perf_counter()
            MPI.Request.Waitall(reqs)
            halo_unpack(self.f, self.recv[0], self.recv[1])
            t3 = time.perf_counter()
            slab_stream_collide(self.f_next, self.f, self.omega, self.lid_u, y0, n, 1, edge_stride, edge_count)
            t4 = time.perf_counter()
            self.halo_s += (t1 - t0) + (t3 - t2)
            self.step_s += t4 - t0
            self.f, self.f_next = self.f_next, self.f
        self.steps += count

    def populations(self):
        return self.f.numpy()[:, 1:self.rows + 1, :]   # the owned rows, [k][row][x]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device")
    p.add_argument("--re", type=int, default=100)
    p.add_argument("--n", type=int, default=64)
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--dump")
    p.add_argument("--compare-serial", action="store_true")
    a = p.parse_args(argv)
    comm = MPI.COMM_WORLD
    rank, ranks = comm.Get_rank(), comm.Get_size()
    if a.n < max(ranks, 4) or a.steps < 1:
        p.error("--n must be at least 4 and the rank count, --steps at least 1")
    try:
        dev = tack.device(a.device)
    except tack.BackendUnavailable as e:
        print(f"skipped: {e}", file=sys.stderr)
        return 77
    lid_u, tau = parameters(a.n, a.re)
    slab = Slab(dev, comm, a.n, lid_u, tau)
    comm.Barrier()
    slab.step(1)                      # compiles: not timed
    slab.halo_s = slab.step_s = 0.0
    comm.Barrier()
    t0 = time.perf_counter()
    slab.step(a.steps - 1)
    comm.Barrier()
    seconds = time.perf_counter() - t0
    share = comm.reduce(slab.halo_s / slab.step_s if slab.step_s else 0.0, op=MPI.MAX)
    blocks = comm.gather(slab.populations(), root=0)
    if rank != 0:
        return 0
    g = np.ascontiguousarray(np.concatenate(blocks, axis=1))   # slabs in rank order: rows in order
    print(f"mpi_cavity.py: {ranks} ranks on {dev.name}, {a.n} x {a.n} cells, {slab.steps} steps in {seconds:.3f} s: "
          f"{a.n * a.n * (a.steps - 1) / max(seconds, 1e-9) / 1e6:.1f} MLUPS; halo {100 * share:.1f}% of a step")
    status = 0
    if a.dump:
        g.tofile(a.dump)
        print(f"wrote {a.dump}")
    if a.compare_serial:
        lat = Lattice(dev, a.n, lid_u, tau)
        lat.step(slab.steps)
        same = np.array_equal(lat.f.numpy().view(np.uint32), g.view(np.uint32))
        print(f"the same bits as cavity.py's single-process Lattice: {'yes' if same else 'NO'}")
        status = 0 if same else 1
    return status


if __name__ == "__main__":
    sys.exit(main())
