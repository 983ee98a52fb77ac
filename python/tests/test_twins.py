"""The same kernel written in C++ and in Python gives the same typed IR, so
both front ends share variants and disk-cache entries. The C++ twins are in
python/tests/twins/twins.cpp, the test module tack_twins (never installed):
TACK_TWINS_DIR names the folder it was built in (scripts/test.sh builds it and
sets it); without it, the Python package's default build folders are searched."""
import glob
import importlib
import os
import re
import sys

import numpy as np
import pytest

import tack

F32 = tack.ArraySpec(np.float32, 1)
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def twins_module():
    """The tack_twins module; a skip (saying how to build it) when it was not built and no
    TACK_TWINS_DIR asks for it, a failure when TACK_TWINS_DIR names a folder without it."""
    folder = os.environ.get("TACK_TWINS_DIR")
    found = glob.glob(os.path.join(folder, "tack_twins*")) if folder else sorted(
        glob.glob(os.path.join(REPO, "build", "python", "twins", "tack_twins*")) +
        glob.glob(os.path.join(REPO, "build", "python", "*", "twins", "tack_twins*")))
    if not found:
        if folder:
            pytest.fail(f"TACK_TWINS_DIR={folder} holds no tack_twins module")
        pytest.skip("the tack_twins test module is not built: install the package with "
                    "-C cmake.define.TACK_PYTHON_TWINS=ON (scripts/test.sh does)")
    sys.path.insert(0, os.path.dirname(found[0]))
    try:
        return importlib.import_module("tack_twins")
    finally:
        sys.path.pop(0)


def cpp_twin(name):
    """The C++-written twin of the kernel `name`."""
    return twins_module().kernel(name)


@tack.kernel
def saxpy(y: tack.Array, x: tack.Array, a: tack.Scalar):
    for i in tack.parallel(y.size):
        y[i] = a * x[i] + y[i]


@tack.kernel
def jacobi(out: tack.Array, inp: tack.Array):
    for i, j in tack.parallel(inp.shape[0] - 2, inp.shape[1] - 2):
        out[i + 1, j + 1] = 0.25 * (inp[i, j + 1] + inp[i + 2, j + 1] + inp[i + 1, j] + inp[i + 1, j + 2])


@tack.kernel
def mandelbrot(out: tack.Array[np.float32], max_iter: tack.Scalar[np.int32]):
    for row, col in tack.parallel(out.shape[0], out.shape[1]):
        h = tack.cast(out.shape[0], np.float32)
        cx = -0.75 + 3.0 * (tack.cast(col, np.float32) - 0.5 * tack.cast(out.shape[1], np.float32)) / (1.5 * h)
        cy = 1.0 - 2.0 * tack.cast(row, np.float32) / h
        x = 0.0
        y = 0.0
        n = 0
        for _ in range(max_iter):
            x2 = x * x
            y2 = y * y
            if x2 + y2 > 256.0:
                break
            y = 2.0 * x * y + cy
            x = x2 - y2 + cx
            n += 1
        smooth = tack.cast(n, np.float32) + 1.0 - tack.log2(tack.log(tack.sqrt(x * x + y * y)))
        out[row, col] = tack.select(n < max_iter, smooth, -1.0)


@tack.kernel
def histogram(bins: tack.Array[np.int32], data: tack.Array):
    for i in tack.parallel(data.size):
        b = tack.cast(data[i] * tack.cast(bins.size, np.float32), np.int64)
        tack.atomic_add(bins, tack.clamp(b, 0, bins.size - 1), 1)


@tack.kernel
def block_sum(out: tack.Array, inp: tack.Array):
    for g in tack.workgroups(out.size):
        i = g.global_id
        tile = g.shared(np.float32, 256)
        tile[g.local_id] = tack.select(i < inp.size, inp[tack.min(i, inp.size - 1)], 0.0)
        g.barrier()
        s = g.reduce_add(tile[g.local_id])
        if g.local_id == 0:
            out[g.group_id] = s


@tack.kernel
def nbody_step(pos_out: tack.Array[tack.vec3], vel: tack.Array[tack.vec3], pos: tack.Array[tack.vec3],
               mass: tack.Array, dt: tack.Scalar, eps2: tack.Scalar):
    # The twin of examples/nbody/nbody_kernel.hpp (issue 29): vectors lower to the same scalar IR.
    for i in tack.parallel(pos.shape[0]):
        p = pos[i]
        acc = tack.vec3(0.0, 0.0, 0.0)
        for j in range(pos.shape[0]):
            d = pos[j] - p
            inv_r = tack.rsqrt(tack.dot(d, d) + eps2)
            acc += d * (mass[j] * inv_r * inv_r * inv_r)
        v = vel[i] + acc * dt
        vel[i] = v
        pos_out[i] = p + v * dt


@tack.kernel
def random_walk(out: tack.Array, seed: tack.Scalar):
    for i in tack.parallel(out.size):
        rng = tack.Random(seed, i)
        x = rng.uniform()
        n = 0
        while x < 0.9:
            x = rng.uniform()
            n += 1
        z = rng.normal()
        out[i] = x + z + n


@tack.kernel
def local_sort16(out: tack.Array, inp: tack.Array):
    for i in tack.parallel(out.shape[0]):
        a = tack.local_array(np.float32, 16)
        for k in range(16):
            a[k] = inp[i, k]
        for k in range(1, 16):
            key = a[k]
            j = k - 1
            while tack.logical_and(j >= 0, a[tack.max(j, 0)] > key):   # C++'s &&: both sides evaluated
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = key
        for k in range(16):
            out[i, k] = a[k]


def cavity_kernel(name):
    def make():
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
        try:
            import cavity
        finally:
            sys.path.pop(0)
        return getattr(cavity, name)
    return make


def unnamed(typed_ir):
    """The typed IR without the Var names inspect adds (`v3: f32  # acc.x`): the
    Python front end names its Vars after the source's names, a C++ Var is named
    only with .name(...); names are debug information, not part of the IR."""
    return re.sub(r"  # [^\n]*", "", typed_ir)


CASES = {
    "saxpy": (lambda: saxpy, [F32, F32, np.float32(2)]),
    "jacobi": (lambda: jacobi, [tack.ArraySpec(np.float32, 2)] * 2),
    "mandelbrot": (lambda: mandelbrot, [tack.ArraySpec(np.float32, 2), np.int32(100)]),
    "histogram": (lambda: histogram, [tack.ArraySpec(np.int32, 1), F32]),
    "block_sum": (lambda: block_sum, [F32, F32]),
    "local_sort16": (lambda: local_sort16, [tack.ArraySpec(np.float32, 2)] * 2),
    "lbm_stream_collide": (cavity_kernel("stream_collide"),
                           [tack.ArraySpec(np.float32, 3)] * 2 + [np.float32(1.8), np.float32(0.1)]),
    "lbm_moments": (cavity_kernel("moments"), [tack.ArraySpec(np.float32, 2)] * 3 + [tack.ArraySpec(np.float32, 3)]),
    "lbm_residual_terms": (cavity_kernel("residual_terms"), [F32] * 6),
    "random_walk": (lambda: random_walk, [F32, np.uint64(1)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("backend", ["interp", "cpu", "cuda", "opencl"])
def test_python_and_cpp_give_the_same_typed_ir(name, backend):
    make, args = CASES[name]
    py = tack.inspect(make(), backend, *args)
    cpp = tack.inspect(cpp_twin(name), backend, *args)
    assert unnamed(py.typed_ir) == unnamed(cpp.typed_ir)
    assert py.source == cpp.source
    # The untyped IR may differ only in the C++ type of weak literals (0.0f is a
    # float literal in C++, 0.0 a double in both), which typing removes.


@pytest.mark.parametrize("backend", ["interp", "cpu", "cuda", "opencl"])
def test_the_vec3_nbody_kernel_gives_the_same_typed_ir(backend):
    cpp_kernel = cpp_twin("nbody_step")
    args = [tack.ArraySpec(np.float32, 2)] * 3 + [F32, np.float32(0.001), np.float32(0.01)]
    py = tack.inspect(nbody_step, backend, *args)
    cpp = tack.inspect(cpp_kernel, backend, *args)
    assert unnamed(py.typed_ir) == unnamed(cpp.typed_ir)
    assert py.source == cpp.source
    # inspect names the Python kernel's Vars after its source: acc is a vec3 Var.
    assert all(f"  # acc.{c}\n" in py.typed_ir for c in "xyz"), py.typed_ir


def example(name):
    """The module of examples/python/<name>.py."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


@pytest.mark.parametrize("backend", ["interp", "cpu", "cuda", "opencl"])
def test_the_heat_steps_adjoint_is_the_same_from_python_and_cpp(backend):
    # examples/python/heat_inverse.py's step and its C++ twin: the same adjoint IR and code (docs/autodiff.md).
    heat_inverse = example("heat_inverse")
    grid = tack.ArraySpec(np.float64, 2)
    args = [grid, grid, 0.05, grid, grid]
    py = tack.inspect(tack.adjoint(heat_inverse.heat_step), backend, *args)
    cpp = tack.inspect(tack.adjoint(cpp_twin("heat_step")), backend, *args)
    assert unnamed(py.typed_ir) == unnamed(cpp.typed_ir)
    assert py.source == cpp.source
    assert "kernel heat_step_adjoint" in py.typed_ir and "atomic_add" in py.typed_ir, py.typed_ir


@pytest.mark.parametrize("backend", ["interp", "cpu", "cuda", "opencl"])
def test_the_path_tracer_gives_the_same_typed_ir(backend):
    # examples/python/path_tracer.py's render (vec3, a struct, @tack.func early returns, tack.Random) and its
    # C++ twin examples/path_tracer/path_tracer_kernel.hpp.
    path_tracer = example("path_tracer")
    args = [tack.ArraySpec(np.float32, 3)] + [tack.ArraySpec(np.float32, 2)] * 3 + [
        np.float32(1), np.int32(4), np.int32(6), np.uint64(1)]
    py = tack.inspect(path_tracer.render, backend, *args)
    cpp = tack.inspect(cpp_twin("render"), backend, *args)
    assert unnamed(py.typed_ir) == unnamed(cpp.typed_ir)
    assert py.source == cpp.source
    assert "  # hit_sphere.returned\n" in py.typed_ir and "  # ray.direction.z\n" in py.typed_ir, py.typed_ir


def test_a_python_kernel_hits_the_cpp_kernels_disk_cache(tmp_path):
    import subprocess
    twins_module()  # skips or fails here, as the other tests do, when the module is missing
    script = (
        "import numpy as np, tack, sys\n"
        "sys.path.insert(0, %r)\n"
        "import test_twins\n"
        "k = test_twins.cpp_twin('saxpy') if sys.argv[1] == 'cpp' else test_twins.saxpy\n"
        "d = tack.device('cpu'); y = d.zeros(8, np.float32); x = d.array(np.ones(8, np.float32))\n"
        "k(y, x, np.float32(2)); assert y.numpy()[0] == 2\n"
        "s = tack.compile_stats(); print(s.variants, s.disk_hits, s.disk_misses)\n" % os.path.dirname(__file__))
    env = dict(os.environ, TACK_CACHE_DIR=str(tmp_path))

    def run(which):
        """(variants, disk hits, disk misses) of the process that ran the `which` kernel."""
        r = subprocess.run([sys.executable, "-c", script, which], env=env, check=True, timeout=120,
                           capture_output=True, text=True)
        return tuple(int(v) for v in r.stdout.split()[-3:])

    variants, hits, misses = run("cpp")
    assert variants >= 1 and (hits, misses) == (0, variants), \
        f"the C++ kernel should compile its variant and store it: {variants} variants, {hits} hits, {misses} misses"
    files = sorted(p.name for p in tmp_path.rglob("*") if p.is_file())
    assert files, "the C++ kernel wrote no cache entry"
    variants, hits, misses = run("python")
    assert variants >= 1 and (hits, misses) == (variants, 0), \
        (f"the Python kernel should load the C++ kernel's variant from the disk cache: {variants} variants, "
         f"{hits} hits, {misses} misses")
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == files, \
        "the Python kernel compiled a variant of its own instead of loading the C++ kernel's"
