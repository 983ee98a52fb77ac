"""Per-work-item arrays (tack.local_array, docs/python.md "Per-work-item arrays"):
a sort of 16 values and a 4x4 solve per work-item against NumPy on interp, cpu
and opencl; zero on declaration; len(a) and a @tack.func taking one; the
debug-mode IndexError naming the line; and each refusal naming the line."""
import os
import sys

import numpy as np
import pytest

import tack


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
try:
    from local_sort_solve import sort16   # the example's own kernel (its insertion_sort a @tack.func taking the array)
finally:
    sys.path.pop(0)


def test_sort_of_16_per_work_item_equals_np_sort(device):
    rng = np.random.default_rng(5)
    values = rng.integers(-50, 50, size=(1003, 16)).astype(np.float32)   # ties, and a last partial gang
    out = device.zeros((1003, 16), np.float32)
    sort16(out, device.array(values))
    np.testing.assert_array_equal(out.numpy(), np.sort(values, axis=1))


@tack.kernel
def solve4(x: tack.Array, m: tack.Array, rhs: tack.Array):
    for s in tack.parallel(m.shape[0]):
        a = tack.local_array(np.float32, 16)
        b = tack.local_array(np.float32, 4)
        for k in range(16):
            a[k] = m[s, k]
        for k in range(4):
            b[k] = rhs[s, k]
        for c in range(4):
            p = c
            for r in range(c + 1, 4):
                if abs(a[r * 4 + c]) > abs(a[p * 4 + c]):
                    p = r
            for k in range(4):
                t = a[c * 4 + k]
                a[c * 4 + k] = a[p * 4 + k]
                a[p * 4 + k] = t
            t = b[c]
            b[c] = b[p]
            b[p] = t
            for r in range(c + 1, 4):
                f = a[r * 4 + c] / a[c * 4 + c]
                for k in range(c, 4):
                    a[r * 4 + k] -= f * a[c * 4 + k]
                b[r] -= f * b[c]
        for q in range(4):
            r = 3 - q
            acc = b[r]
            for k in range(r + 1, 4):
                acc -= a[r * 4 + k] * b[k]
            b[r] = acc / a[r * 4 + r]
        for k in range(4):
            x[s, k] = b[k]


def test_4x4_solve_with_pivoting_per_work_item_matches_np_linalg_solve(device):
    rng = np.random.default_rng(9)
    n = 517
    m = (rng.uniform(-1, 1, (n, 4, 4)) + 5 * np.eye(4)).astype(np.float32)
    m = np.stack([np.roll(m[i], i % 4, axis=0) for i in range(n)])   # rows rotated: pivoting needed
    rhs = rng.uniform(-1, 1, (n, 4)).astype(np.float32)
    x = device.zeros((n, 4), np.float32)
    solve4(x, device.array(m.reshape(n, 16)), device.array(rhs))
    want = np.linalg.solve(m.astype(np.float64), rhs.astype(np.float64)[..., None])[..., 0]
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-4, atol=1e-5)


def test_zero_on_declaration_negative_index_and_size(device):
    @tack.kernel
    def fresh(out: tack.Array):
        for i in tack.parallel(out.size):
            a = tack.local_array(np.int32, 8)
            leaked = 0
            for k in range(8):
                leaked += a[k]
            a[i % 8] = i
            a[-1] += 7                      # a[7]: a Python int counts from the end
            out[i] = leaked * 1000 + a[i % 8] + 100 * a.size
    out = device.zeros(50, np.int32)
    fresh(out)
    i = np.arange(50)
    np.testing.assert_array_equal(out.numpy(), i + np.where(i % 8 == 7, 7, 0) + 800)


def test_debug_mode_index_error_names_the_line(device):
    @tack.kernel
    def oob(out: tack.Array):
        for i in tack.parallel(out.size):
            a = tack.local_array(np.float32, 16)
            a[i] = 1.0  # OOB
            out[i] = a[i % 16]
    was = tack.debug()
    tack.set_debug(True)
    try:
        with pytest.raises(tack.IndexError) as e:
            oob(device.zeros(20, np.float32))
            tack.sync()
    finally:
        tack.set_debug(was)
    msg = str(e.value)
    src = open(__file__).read().splitlines()
    want = next(n for n, t in enumerate(src, 1) if t.strip().endswith("# OOB"))
    for part in ("kernel 'oob'", "index 16", "local array 0", "(extent 16)", f"test_local_arrays.py:{want}"):
        assert part in msg, msg


def _refused(error, words, body):
    src = open(__file__).read().splitlines()
    with pytest.raises(error) as e:
        body()
    msg = str(e.value)
    want = next(n for n, t in enumerate(src, 1) if t.strip().endswith(f"# {words[0]}"))
    assert f"test_local_arrays.py:{want}" in msg, msg
    for w in words[1:]:
        assert w in msg, msg


def test_refusals_name_the_line():
    dev = tack.device("interp")
    out = dev.zeros(4, np.float32)

    def zero():
        @tack.kernel
        def k(out: tack.Array):
            for i in tack.parallel(out.size):
                a = tack.local_array(np.float32, 0)  # ZERO
                out[i] = a[0]
        k(out)
    _refused(tack.InvalidArgument, ["ZERO", "a local array needs a positive element count, got 0"], zero)

    def traced_count():
        @tack.kernel
        def k(out: tack.Array):
            for i in tack.parallel(out.size):
                a = tack.local_array(np.float32, i + 1)  # TRACED
                out[i] = a[0]
        k(out)
    _refused(tack.TypeError, ["TRACED", "needs its element count as a Python int known while tracing",
                              "a traced Value"], traced_count)

    def too_big():
        @tack.kernel
        def k(out: tack.Array):
            for i in tack.parallel(out.size):
                a = tack.local_array(np.float64, 4096)  # BIG
                out[i] = a[0]
        k(out)
    _refused(tack.InvalidArgument, ["BIG", "at most 16384 bytes in all"], too_big)

    def atomic():
        @tack.kernel
        def k(out: tack.Array):
            for i in tack.parallel(out.size):
                a = tack.local_array(np.float32, 4)
                out[i] = tack.atomic_add(a, 0, 1.0)  # ATOMIC
        k(out)
    _refused(tack.InvalidArgument, ["ATOMIC", "atomic_add on a local array"], atomic)

    def two_d():
        @tack.kernel
        def k(out: tack.Array):
            for i in tack.parallel(out.size):
                a = tack.local_array(np.float32, 4)
                out[i] = a[i, 0]  # TWO_D
        k(out)
    _refused(tack.InvalidArgument, ["TWO_D", "local arrays are one-dimensional"], two_d)
