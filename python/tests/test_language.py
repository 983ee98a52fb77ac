# The Python kernel language, construct by construct, run on every device of
# this build that can run here (interp, cpu, opencl) and checked against NumPy.
import math

import numpy as np
import pytest

import tack

DEVICES = ("interp", "cpu", "opencl")


@pytest.fixture(params=DEVICES)
def dev(request):
    if request.param not in tack.backend_names():
        pytest.skip(f"{request.param}: not in this build (backends: {', '.join(tack.backend_names())})")
    try:
        return tack.device(request.param)
    except tack.BackendUnavailable as e:  # no driver or device here; any other error fails the test
        pytest.skip(f"{request.param}: {e}")


rng = np.random.default_rng


# ---- parameters, the parallel loop, weak and strong scalars -----------------------

@tack.kernel
def saxpy(y: tack.Array, x: tack.Array, a: tack.Scalar):
    """y = a * x + y"""
    for i in tack.parallel(y.size):
        y[i] = a * x[i] + y[i]


def test_saxpy_weak_python_float_stays_f32_numpy_scalar_is_strong(dev):
    x = rng(0).standard_normal(1000).astype(np.float32)
    y0 = rng(1).standard_normal(1000).astype(np.float32)
    y = dev.array(y0)
    saxpy(y, dev.array(x), 3.0)
    out = y.numpy()
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.float32(3.0) * x + y0, rtol=1e-6, atol=1e-6)  # a*x+y may fuse
    spec = tack.ArraySpec(np.float32, 1)
    weak = tack.inspect(saxpy, "interp", spec, spec, 3.0).typed_ir
    strong = tack.inspect(saxpy, "interp", spec, spec, np.float64(3.0)).typed_ir
    assert "mul.f32(cast.f32(%2)" in weak and "f64(" not in weak
    assert "mul.f64(%2, cast.f64(" in strong


def test_kernel_object():
    assert isinstance(saxpy, tack.Kernel) and isinstance(saxpy, tack._core.Kernel)
    assert "__call__" not in tack.Kernel.__dict__     # calls take _core.Kernel's path
    assert saxpy.__name__ == "saxpy" and saxpy.__doc__ == "y = a * x + y"
    assert saxpy.python_function is saxpy.__wrapped__
    assert "saxpy" in repr(saxpy) and "test_language.py" in repr(saxpy)

    @tack.kernel(name="renamed")
    def k(y: "tack.Array[np.float32]", n: "tack.Scalar[np.int64]"):  # string annotations, as with __future__
        for i in tack.parallel(n):
            y[i] = 1.0
    assert k.name == "renamed" and k.__name__ == "k"
    assert "kernel renamed(%0: Array<f32>, %1: Scalar<i64>)" in k.ir()


def test_jacobi_2d(dev):
    a = rng(0).random((16, 24))
    out = dev.array(a.copy())

    @tack.kernel
    def jacobi(out: tack.Array, inp: tack.Array):
        for i, j in tack.parallel(inp.shape[0] - 2, inp.shape[1] - 2):
            out[i + 1, j + 1] = 0.25 * (inp[i, j + 1] + inp[i + 2, j + 1] + inp[i + 1, j] + inp[i + 1, j + 2])
    jacobi(out, dev.array(a))
    ref = a.copy()
    ref[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)


# ---- control flow -------------------------------------------------------------------

# fp_contract=False: every product and sum rounds on its own, as NumPy's f32 reference does, so each
# pixel's iteration count must match exactly on every backend (a fused a*b+c would move the orbit
# by an ulp, and near the set's edge the escape by any number of iterations). `trips` counts the
# loop's bodies: the escape count alone cannot see a break that goes on looping (the orbit's state
# no longer changes after the escape) nor an extra trip (a pixel that never escapes reads -1).
@tack.kernel(fp_contract=False)
def mandel(out: tack.Array[np.float32], trips: tack.Array[np.int32], max_iter: tack.Scalar[np.int32]):
    for row, col in tack.parallel(out.shape[0], out.shape[1]):
        h = tack.cast(out.shape[0], np.float32)
        cx = -0.75 + 3.0 * (tack.cast(col, np.float32) - 0.5 * tack.cast(out.shape[1], np.float32)) / (1.5 * h)
        cy = 1.0 - 2.0 * tack.cast(row, np.float32) / h
        x = 0.0; y = 0.0; n = 0; t = 0  # noqa: E702
        for _ in range(max_iter):
            t += 1
            x2 = x * x
            y2 = y * y
            if x2 + y2 > 256.0:
                break
            y = 2.0 * x * y + cy
            x = x2 - y2 + cx
            n += 1
        out[row, col] = tack.select(n < max_iter, tack.cast(n, np.float32), -1.0)
        trips[row, col] = t


def test_mandelbrot_range_loop_with_break(dev):
    rows, cols, max_iter = 12, 20, 60
    img = dev.zeros((rows, cols), np.float32)
    trips = dev.zeros((rows, cols), np.int32)
    mandel(img, trips, max_iter)
    f = np.float32                           # the kernel computes in f32 throughout
    ref = np.empty((rows, cols), np.float32)
    ref_trips = np.empty((rows, cols), np.int32)
    for r, c in np.ndindex(rows, cols):
        cx = f(-0.75) + f(3.0) * (f(c) - f(0.5) * f(cols)) / (f(1.5) * f(rows))
        cy = f(1.0) - f(2.0) * f(r) / f(rows)
        x, y, n = f(0), f(0), 0
        while n < max_iter and x * x + y * y <= f(256.0):
            x, y, n = x * x - y * y + cx, f(2.0) * x * y + cy, n + 1
        ref[r, c] = n if n < max_iter else -1.0
        ref_trips[r, c] = min(n + 1, max_iter)   # the trip that saw the escape, or every trip
    got = img.numpy()
    wrong = [(int(r), int(c), float(got[r, c]), float(ref[r, c])) for r, c in zip(*np.nonzero(got != ref))]
    assert not wrong, f"(row, col, got, want) of {len(wrong)} pixels: {wrong[:10]}"
    got_trips = trips.numpy()
    wrong = [(int(r), int(c), int(got_trips[r, c]), int(ref_trips[r, c]))
             for r, c in zip(*np.nonzero(got_trips != ref_trips))]
    assert not wrong, f"loop trips (row, col, got, want) of {len(wrong)} pixels: {wrong[:10]}"
    assert 0 < np.sum(ref == -1) < ref.size and len(np.unique(ref)) > 10  # both exits taken, many counts


def test_while_loop_collatz(dev):
    start = np.arange(1, 200, dtype=np.int64)

    @tack.kernel
    def collatz(steps: tack.Array, start: tack.Array):
        for i in tack.parallel(start.size):
            n = start[i]
            count = 0
            while n > 1:
                if n % 2 == 0:
                    n = n // 2
                else:
                    n = 3 * n + 1
                count += 1
            steps[i] = count
    steps = dev.zeros(start.size, np.int32)
    collatz(steps, dev.array(start))

    def ref(n, c=0):
        return c if n <= 1 else ref(n // 2 if n % 2 == 0 else 3 * n + 1, c + 1)
    assert steps.numpy().tolist() == [ref(int(n)) for n in start]


def test_continue_and_value_bounded_range(dev):
    m = rng(0).integers(-5, 6, size=(7, 13)).astype(np.float32)

    @tack.kernel
    def row_pos_sum(out: tack.Array, m: tack.Array):
        for r in tack.parallel(m.shape[0]):
            acc = 0.0
            for c in range(m.shape[1]):
                e = m[r, c]
                if e <= 0:
                    continue
                acc += e
            out[r] = acc
    out = dev.zeros(7, np.float32)
    row_pos_sum(out, dev.array(m))
    np.testing.assert_array_equal(out.numpy(), np.where(m > 0, m, 0).sum(axis=1))


def test_while_true_with_break_and_logical_ops(dev):
    @tack.kernel
    def first_multiple(out: tack.Array, k: tack.Scalar):
        for i in tack.parallel(out.size):
            n = i + 1
            while True:
                if n % k == 0 and not (n % 2 == 1 or n < 0):
                    break
                n += 1
            out[i] = n
    out = dev.zeros(20, np.int64)
    first_multiple(out, 3)
    ref = [next(n for n in range(i + 1, 100) if n % 3 == 0 and n % 2 == 0) for i in range(20)]
    assert out.numpy().tolist() == ref


def test_if_elif_else_merges_vars(dev):
    x = np.linspace(-2, 2, 41)

    @tack.kernel
    def classify(s: tack.Array, x: tack.Array):
        for i in tack.parallel(x.size):
            v = x[i]
            if v > 0.5:
                r = 1.0
                big = v > 1.5
            elif v < -0.5:
                r = -1.0
                big = v < -1.5
            else:
                r = 0.0
                big = False
            s[i] = r + tack.select(big, 10.0, 0.0)
    s = dev.zeros(41, np.float64)
    classify(s, dev.array(x))
    ref = np.where(x > 0.5, 1.0, np.where(x < -0.5, -1.0, 0.0)) + np.where(np.abs(x) > 1.5, 10.0, 0.0)
    np.testing.assert_array_equal(s.numpy(), ref)


def test_range_steps_and_tuple_swap(dev):
    @tack.kernel
    def steps(out: tack.Array, n: tack.Scalar):
        for i in tack.parallel(out.shape[0]):
            up = 0
            for k in range(1, n, 3):          # 1, 4, 7, ...
                up += k
            down = 0
            for k in range(n, 0, -2):         # n, n-2, ...
                down += k
            a, b = 0, 1
            for _ in range(i):                # Fibonacci through a, b = b, a + b
                a, b = b, a + b
            out[i, 0], out[i, 1], out[i, 2] = up, down, a
    out = dev.zeros((15, 3), np.int64)
    steps(out, 20)
    fib = [0, 1]
    for _ in range(13):
        fib.append(fib[-1] + fib[-2])
    np.testing.assert_array_equal(out.numpy()[:, 0], sum(range(1, 20, 3)))
    np.testing.assert_array_equal(out.numpy()[:, 1], sum(range(20, 0, -2)))
    np.testing.assert_array_equal(out.numpy()[:, 2], fib[:15])


# ---- trace-time Python: static_range, constants, @tack.func ----------------------------

W = (4 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 36, 1 / 36, 1 / 36, 1 / 36)   # D2Q9 weights


def test_static_range_unrolls_with_python_tables(dev):
    f = rng(0).random((9, 50))

    @tack.kernel
    def weighted(rho: tack.Array, f: tack.Array):
        for i in tack.parallel(f.shape[1]):
            r = f[0, i] * W[0]
            for k in tack.static_range(1, 9):
                if k == 8:
                    break                      # a Python break: stops the unrolling
                r = r + f[k, i] * W[k]
            rho[i] = r * np.float64(1.0) + math.pi * 0
    rho = dev.zeros(50, np.float64)
    weighted(rho, dev.array(f))
    np.testing.assert_allclose(rho.numpy(), (np.array(W[:8])[:, None] * f[:8]).sum(axis=0), rtol=1e-12)
    ir = weighted.ir()
    assert "for " not in ir.replace("parallel_for", "") and ir.count("load") == 8


@tack.func
def sq(v):
    return v * v


@tack.func
def smoothstep(e0, e1, x, clip=True):
    t = (x - e0) / (e1 - e0)
    if clip:                                   # a Python value: decided at trace time
        t = tack.clamp(t, 0.0, 1.0)
    return sq(t) * (3.0 - 2.0 * t)


@tack.func
def accumulate(a, n):
    s = 0.0
    for k in range(n):                         # a Var inside a func
        s += a[k]
    return s


def test_func_inlining(dev):
    x = np.linspace(-0.5, 1.5, 33, dtype=np.float32)

    @tack.kernel
    def fade(y: tack.Array, x: tack.Array):
        for i in tack.parallel(x.size):        # a column per result, so that each one is checked
            y[i, 0] = smoothstep(0.0, 1.0, x[i])
            y[i, 1] = smoothstep(0.0, 1.0, x[i], clip=False)
            y[i, 2] = sq(x[i])
            y[i, 3] = accumulate(x, i % 4)     # a trip count that is a kernel value
    y = dev.zeros((33, 4), np.float32)
    fade(y, dev.array(x))
    t = np.clip(x, 0, 1)
    want = np.stack([t * t * (3 - 2 * t), x * x * (3 - 2 * x), x * x,
                     [x[:k].sum(dtype=np.float32) for k in np.arange(33) % 4]], axis=1)
    np.testing.assert_allclose(y.numpy(), want, atol=1e-6)
    assert sq(3) == 9                          # outside a kernel: the Python function


def test_select_ternary_chained_compare_and_builtins(dev):
    x = np.linspace(-3, 3, 61)

    @tack.kernel
    def mix(out: tack.Array, x: tack.Array, lo: tack.Scalar, hi: tack.Scalar):
        for i in tack.parallel(x.size):
            v = x[i]
            inside = 1.0 if lo < v <= hi else 0.0
            relu = tack.select(v < 0, 0.0, v)
            out[i, 0], out[i, 1] = inside, relu
            out[i, 2] = abs(v) + max(v, 0.5) - min(v, -0.5, 0.0)
            out[i, 3] = float(int(v * 2.0))
            out[i, 4] = tack.floor(v) + tack.sqrt(tack.abs(v)) + v ** 2
    out = dev.zeros((61, 5), np.float64)
    mix(out, dev.array(x), -1.0, 1.0)
    o = out.numpy()
    np.testing.assert_array_equal(o[:, 0], ((-1 < x) & (x <= 1)).astype(float))
    np.testing.assert_array_equal(o[:, 1], np.maximum(x, 0))
    np.testing.assert_allclose(o[:, 2], np.abs(x) + np.maximum(x, 0.5) - np.minimum(x, -0.5).clip(max=0))
    np.testing.assert_array_equal(o[:, 3], np.trunc(x * 2))
    np.testing.assert_allclose(o[:, 4], np.floor(x) + np.sqrt(np.abs(x)) + x ** 2, rtol=1e-12)


# ---- atomics, workgroups, textures -----------------------------------------------------

def test_atomic_histogram_and_ticket(dev):
    data = (np.arange(10000) % 100 / 10.0).astype(np.float32)

    @tack.kernel
    def histogram(counts: tack.Array[np.int32], data: tack.Array, lo: tack.Scalar, width: tack.Scalar):
        for i in tack.parallel(data.size):
            b = tack.cast(tack.floor((data[i] - lo) / width), np.int64)
            if b >= 0 and b < counts.size:
                tack.atomic_add(counts, b, 1)
    counts = dev.zeros(10, np.int32)
    histogram(counts, dev.array(data), np.float32(0.0), np.float32(1.0))
    np.testing.assert_array_equal(counts.numpy(), np.histogram(data, bins=10, range=(0, 10))[0])

    @tack.kernel
    def ticket(counter: tack.Array, got: tack.Array):
        for i in tack.parallel(got.size):
            got[i] = tack.atomic_add(counter, 0, 1)
            tack.atomic_max(counter, 1, i)
    counter, got = dev.zeros(2, np.int64), dev.zeros(500, np.int64)
    ticket(counter, got)
    assert sorted(got.numpy().tolist()) == list(range(500))
    assert counter.numpy().tolist() == [500, 499]


def test_atomic_adds_into_small_arrays_match_numpy(dev):
    # Launches large enough to fan out: on the cpu the adds into these small arrays go to per-thread copies
    # (docs/cpu-threading.md). Whole-number weights, so every order of the adds gives NumPy's exact sums.
    n = 20_003 if dev.name == "interp" else 200_003
    rng = np.random.default_rng(7)
    idx = rng.integers(0, 37, n).astype(np.int64)
    w = rng.integers(-50, 50, n).astype(np.float64)

    @tack.kernel
    def weighted(counts: tack.Array[np.int32], sums: tack.Array, down: tack.Array[np.uint32],
                 idx: tack.Array, w: tack.Array):
        for i in tack.parallel(idx.size):
            tack.atomic_add(counts, idx[i], 1)
            tack.atomic_add(sums, idx[i], w[i])
            tack.atomic_sub(down, idx[i] % 5, 1)

    counts, down = dev.zeros(37, np.int32), dev.zeros(5, np.uint32)
    f64 = np.dtype(np.float64) in dev.capabilities.supported_atomic_dtypes
    sums = dev.array(np.full(37, -0.0, dtype=np.float64 if f64 else np.float32))
    weighted(counts, sums, down, dev.array(idx), dev.array(w.astype(sums.numpy().dtype)))
    want_sums = np.zeros(37)
    np.add.at(want_sums, idx, w)
    np.testing.assert_array_equal(counts.numpy(), np.bincount(idx, minlength=37))
    np.testing.assert_array_equal(sums.numpy(), want_sums)
    want_down = (np.uint64(2**32) - np.bincount(idx % 5, minlength=5).astype(np.uint64)).astype(np.uint32)
    np.testing.assert_array_equal(down.numpy(), want_down)


def test_workgroup_block_sum_with_shared_memory(dev):
    if not dev.capabilities.supports_workgroups:
        pytest.skip(f"{dev.name}: no workgroups")

    @tack.kernel
    def block_sum(partial: tack.Array, check: tack.Array, x: tack.Array):
        for g in tack.workgroups(partial.size):
            s = g.shared(np.float32, 256)
            i = g.global_id
            v = 0.0
            if i < x.size:
                s[g.local_id] = x[i]
                v = x[i]
            g.barrier()
            for k in tack.static_range(8):           # a tree: strides 128, 64, ..., 1
                stride = 128 >> k
                if g.local_id < stride:
                    s[g.local_id] += s[g.local_id + stride]
                g.barrier()
            total = g.reduce_add(v)
            if g.local_id == 0:
                partial[g.group_id] = s[0]
                check[g.group_id] = total
    x = np.ones(1000, np.float32)
    partial, check = dev.zeros(4, np.float32), dev.zeros(4, np.float32)
    block_sum(partial, check, dev.array(x))
    assert partial.numpy().tolist() == [256, 256, 256, 232]
    assert check.numpy().tolist() == [256, 256, 256, 232]


def test_texture_sample(dev):
    vol = dev.array(np.arange(8, dtype=np.float32).reshape(2, 2, 2))
    tex = tack.texture3d(vol, (2, 2, 2))

    @tack.kernel
    def probe(out: tack.Array, uvw: tack.Array, t: tack.Texture3D):
        for i in tack.parallel(out.size):
            out[i] = t.sample(uvw[i, 0], uvw[i, 1], uvw[i, 2])
    uvw = np.array([[0, 0, 0], [1, 1, 1], [.5, .5, .5], [-3, 0, 0], [.5, 0, 0]], np.float32)
    out = dev.zeros(5, np.float32)
    probe(out, dev.array(uvw), tex)
    np.testing.assert_allclose(out.numpy(), [0, 7, 3.5, 0, 0.5], atol=1e-2)


def test_var_snapshots_element_updates_and_cast_method(dev):
    @tack.kernel
    def snap(y: tack.Array):
        for i in tack.parallel(y.size):
            acc = 0
            before = 0
            for k in range(3):
                before = acc                   # a snapshot of acc at this point
                acc += k + 1
            step: float = 0.5
            y[i] += (acc * 10 + before).cast(np.float32) + step    # a load, the add, a store
            y[i] *= 2
    y = dev.array(np.arange(3, dtype=np.float32))
    snap(y)
    assert y.numpy().tolist() == [127, 129, 131]


def test_trace_time_python_constants_and_iteration(dev):
    gain = 2.0
    taps = [(0, 0.5), (1, 0.25), (2, 0.25)]

    @tack.kernel
    def filt(out: tack.Array, x: tack.Array):
        for i in tack.parallel(x.size - 2):
            acc = np.float32(0.0) * x[i]
            for k, w in taps:                      # a Python list: unrolled
                if w < 0.3 and k == 1:
                    continue
                acc = acc + np.float32(w * gain) * x[i + k]
            out[i] = np.float64(acc)               # a NumPy scalar type on a Value casts
            return                                 # the last statement: allowed
    x = np.arange(10, dtype=np.float32)
    out = dev.zeros(8, np.float64)
    filt(out, dev.array(x))
    np.testing.assert_array_equal(out.numpy(), 1.0 * x[:8] + 0.5 * x[2:])
    gain = 100.0                                   # a closure value read at the trace: the next call re-traces
    filt(out, dev.array(x))
    np.testing.assert_array_equal(out.numpy(), 50.0 * x[:8] + 25.0 * x[2:])
    assert "cast.f64" in tack.inspect(filt, "interp", tack.ArraySpec(np.float64, 1),
                                      tack.ArraySpec(np.float32, 1)).typed_ir
