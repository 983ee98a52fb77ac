# Random numbers in kernels (issue 29, point 5): tack.philox4x32 gives Random123's
# known answers, and tack.Random's u32 and uniform streams are, bit for bit, the
# NumPy reference below (the one docs/python.md shows) on interp, cpu and opencl,
# also when the draws happen inside traced control flow. Normals agree within the
# transcendental tolerance; the distributions pass moment and chi-square checks.
import numpy as np
import pytest

import tack

DEVICES = ("interp", "cpu", "opencl")


@pytest.fixture(params=DEVICES)
def dev(request):
    if request.param not in tack.backend_names():
        pytest.skip(f"{request.param}: not in this build")
    try:
        return tack.device(request.param)
    except tack.BackendUnavailable as e:
        pytest.skip(f"{request.param}: {e}")


# ---- the NumPy reference (docs/python.md, "Random numbers") ----------------------

def philox4x32(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 on uint32 arrays (broadcast together): the four words."""
    c = [np.asarray(x, np.uint64) for x in (c0, c1, c2, c3)]
    k0, k1, m = np.asarray(k0, np.uint64), np.asarray(k1, np.uint64), np.uint64(0xFFFFFFFF)
    for r in range(10):
        rk0 = (k0 + np.uint64(r * 0x9E3779B9)) & m      # the key of round r
        rk1 = (k1 + np.uint64(r * 0xBB67AE85)) & m
        p0, p1 = c[0] * np.uint64(0xD2511F53), c[2] * np.uint64(0xCD9E8D57)
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ rk0, p1 & m, (p0 >> np.uint64(32)) ^ c[3] ^ rk1, p0 & m]
    return [x.astype(np.uint32) for x in c]


def random_words(seed, streams, count):
    """The first `count` words of tack.Random(seed, s) for each s in `streams`: shape (len, count)."""
    s = np.asarray(streams, np.uint64)
    lo, hi = (s & np.uint64(0xFFFFFFFF)), (s >> np.uint64(32))
    blocks = []
    for k in range((count + 3) // 4):
        blocks += philox4x32(k & 0xFFFFFFFF, k >> 32, lo, hi, seed & 0xFFFFFFFF, seed >> 32)
    return np.stack([np.broadcast_to(b, s.shape) for b in blocks], axis=-1)[..., :count]


def uniform_f32(w):
    return (w >> np.uint32(8)).astype(np.float32) * np.float32(2.0 ** -24)


def uniform_f64(a, b):
    return (((a >> np.uint32(5)).astype(np.uint64) << np.uint64(26)) | (b >> np.uint32(6))).astype(np.float64) \
        * 2.0 ** -53


KNOWN = [((0, 0, 0, 0, 0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
         ((0xffffffff,) * 6, (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
         ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0),
          (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1))]


def test_the_numpy_reference_gives_the_known_answers():
    for args, want in KNOWN:
        assert [int(w) for w in philox4x32(*args)] == list(want)


# ---- known answers ---------------------------------------------------------------

@tack.kernel
def philox_rows(out: tack.Array[np.uint32], inp: tack.Array[np.uint32]):
    for i in tack.parallel(out.shape[0]):
        a, b, c, d = tack.philox4x32(inp[i, 0], inp[i, 1], inp[i, 2], inp[i, 3], inp[i, 4], inp[i, 5])
        out[i, 0] = a
        out[i, 1] = b
        out[i, 2] = c
        out[i, 3] = d


@tack.kernel
def philox_constants(out: tack.Array[np.uint32]):
    for i in tack.parallel(1):
        for r in tack.static_range(3):
            c = KNOWN[r][0]                        # constants: the optimizer may fold every round
            words = tack.philox4x32(c[0], c[1], c[2], c[3], c[4], c[5])
            for j in tack.static_range(4):
                out[r, j] = words[j]


def test_philox_known_answers(dev):
    want = np.array([w for _, w in KNOWN], np.uint32)
    out = dev.zeros((3, 4), np.uint32)
    philox_rows(out, dev.array(np.array([a for a, _ in KNOWN], np.uint32)))
    np.testing.assert_array_equal(out.numpy(), want)
    out = dev.zeros((3, 4), np.uint32)
    philox_constants(out)
    np.testing.assert_array_equal(out.numpy(), want)


# ---- streams -----------------------------------------------------------------------

N = 1000
SEED = 0x123456789ABCDEF0


@tack.kernel
def streams(words: tack.Array, u: tack.Array, u64: tack.Array, seed: tack.Scalar):
    for i in tack.parallel(words.shape[0]):
        rng = tack.Random(seed, i)
        for j in tack.static_range(6):
            words[i, j] = rng.next_u32()
        for j in tack.static_range(3):
            u[i, j] = rng.uniform()
        for j in tack.static_range(2):
            u64[i, j] = rng.uniform(np.float64)


def test_streams_are_the_numpy_reference_bit_for_bit(dev):
    words, u, u64 = dev.zeros((N, 6), np.uint32), dev.zeros((N, 3), np.float32), dev.zeros((N, 2), np.float64)
    streams(words, u, u64, np.uint64(SEED))
    ref = random_words(SEED, np.arange(N), 13)
    np.testing.assert_array_equal(words.numpy(), ref[:, :6])
    got_u = u.numpy()
    assert got_u.dtype == np.float32
    np.testing.assert_array_equal(got_u.view(np.uint32), uniform_f32(ref[:, 6:9]).view(np.uint32))
    want_u64 = np.stack([uniform_f64(ref[:, 9], ref[:, 10]), uniform_f64(ref[:, 11], ref[:, 12])], axis=1)
    np.testing.assert_array_equal(u64.numpy().view(np.uint64), want_u64.view(np.uint64))


@tack.func
def two_uniforms(rng):
    a = rng.uniform()
    return a + rng.uniform()


@tack.kernel
def draw_until(count: tack.Array, last: tack.Array, total: tack.Array, seed: tack.Scalar, m: tack.Scalar):
    for i in tack.parallel(count.size):
        rng = tack.Random(seed, i)
        s = two_uniforms(rng)                  # words 0 and 1: known while tracing
        n = 1
        w = rng.next_u32()
        while w >= 0x20000000:                 # how many draws: known only at run time
            w = rng.next_u32()
            n += 1
        if n % 2 == 1:
            w = rng.next_u32()
        else:
            w = rng.next_u32() ^ rng.next_u32()
        for k in range(m):
            s += rng.uniform()
        count[i] = n
        last[i] = w
        total[i] = s


def test_draws_inside_traced_control_flow(dev):
    m = 5
    count, last = dev.zeros(N, np.int32), dev.zeros(N, np.uint32)
    total = dev.zeros(N, np.float32)
    draw_until(count, last, total, np.uint64(SEED), m)
    ref = random_words(SEED, np.arange(N), 200)
    want_n, want_w, want_s = [], [], []
    for i in range(N):
        row = list(ref[i])
        s = uniform_f32(row[0]) + uniform_f32(row[1])
        p = 2
        n, w = 1, row[p]
        while w >= 0x20000000:
            p += 1
            w = row[p]
            n += 1
        p += 1
        if n % 2 == 1:
            w = row[p]
            p += 1
        else:
            w = row[p] ^ row[p + 1]
            p += 2
        for _ in range(m):
            s = np.float32(s + uniform_f32(row[p]))
            p += 1
        want_n.append(n)
        want_w.append(w)
        want_s.append(s)
    np.testing.assert_array_equal(count.numpy(), np.array(want_n, np.int32))
    np.testing.assert_array_equal(last.numpy(), np.array(want_w, np.uint32))
    np.testing.assert_array_equal(total.numpy().view(np.uint32), np.array(want_s, np.float32).view(np.uint32))


@tack.kernel
def normals(z: tack.Array, z64: tack.Array, seed: tack.Scalar):
    for i in tack.parallel(z.size):
        rng = tack.Random(seed, i)
        z[i] = rng.normal()
        z64[i] = rng.normal(np.float64)


def test_normals_are_box_muller_of_the_reference(dev):
    z, z64 = dev.zeros(N, np.float32), dev.zeros(N, np.float64)
    normals(z, z64, np.uint64(SEED))
    w = random_words(SEED, np.arange(N), 6)
    u1 = ((w[:, 0] >> np.uint32(8)) + np.uint32(1)).astype(np.float32) * np.float32(2.0 ** -24)
    want = np.sqrt(np.float32(-2) * np.log(u1)) * np.cos(np.float32(2 * np.pi) * uniform_f32(w[:, 1]))
    a, b = w[:, 2], w[:, 3]
    u1 = ((((a >> np.uint32(5)).astype(np.uint64) << np.uint64(26)) | (b >> np.uint32(6))) + np.uint64(1)) \
        .astype(np.float64) * 2.0 ** -53
    want64 = np.sqrt(-2 * np.log(u1)) * np.cos(2 * np.pi * uniform_f64(w[:, 4], w[:, 5]))
    assert z.numpy().dtype == np.float32 and z64.numpy().dtype == np.float64
    np.testing.assert_allclose(z.numpy(), want, rtol=0, atol=64 * np.finfo(np.float32).eps)
    np.testing.assert_allclose(z64.numpy(), want64, rtol=0, atol=64 * np.finfo(np.float64).eps)


@tack.kernel
def integers(out: tack.Array, lo: tack.Scalar, hi: tack.Scalar):
    for i in tack.parallel(out.size):
        rng = tack.Random(7, i)
        out[i] = rng.integers(lo, hi)


def test_integers_are_in_range_and_the_reference(dev):
    n, lo, hi = 20000, -3, 7
    out = dev.zeros(n, np.int64)
    integers(out, lo, hi)
    w = random_words(7, np.arange(n), 1)[:, 0].astype(np.uint64)
    want = lo + ((w * np.uint64(hi - lo)) >> np.uint64(32)).astype(np.int64)
    got = out.numpy()
    np.testing.assert_array_equal(got, want)
    counts = np.bincount(got - lo, minlength=hi - lo)
    assert got.min() >= lo and got.max() < hi
    assert np.all(np.abs(counts - n / (hi - lo)) < 5 * np.sqrt(n / (hi - lo)))


@tack.kernel
def moments(u: tack.Array, u64: tack.Array, z: tack.Array, z64: tack.Array, seed: tack.Scalar):
    for i in tack.parallel(u.size):
        rng = tack.Random(seed, i)
        u[i] = rng.uniform()
        u64[i] = rng.uniform(np.float64)
        z[i] = rng.normal()
        z64[i] = rng.normal(np.float64)


def test_distributions(dev):
    n = 100_000 if dev.name.startswith("interp") else 1_000_000
    u, u64 = dev.zeros(n, np.float32), dev.zeros(n, np.float64)
    z, z64 = dev.zeros(n, np.float32), dev.zeros(n, np.float64)
    moments(u, u64, z, z64, 2026)
    for x in (u.numpy().astype(np.float64), u64.numpy()):
        assert 0 <= x.min() and x.max() < 1
        assert abs(x.mean() - 0.5) < 5 * np.sqrt(1 / 12 / n)
        assert abs(x.var() - 1 / 12) < 5 * np.sqrt(1 / 180 / n)
        counts = np.bincount((x * 100).astype(np.int64), minlength=100)
        e = n / 100
        assert ((counts - e) ** 2 / e).sum() < 170        # chi-square, 99 dof: the 1e-6 tail
    for x in (z.numpy().astype(np.float64), z64.numpy()):
        assert np.all(np.isfinite(x))
        assert abs(x.mean()) < 5 / np.sqrt(n)
        assert abs(x.var() - 1) < 5 * np.sqrt(2 / n)
        assert abs(np.mean(np.abs(x) < 1) - 0.682689492) < 5 * np.sqrt(0.25 / n)


# ---- refusals ------------------------------------------------------------------------

@tack.kernel
def bad_dtype(out: tack.Array, seed: tack.Scalar):
    for i in tack.parallel(out.size):
        rng = tack.Random(seed, i)
        out[i] = rng.uniform(np.int32)


@tack.kernel
def random_as_var(out: tack.Array, seed: tack.Scalar):
    for i in tack.parallel(out.size):
        rng = 0
        if i > 2:
            rng = tack.Random(seed, i)
        out[i] = 1


def test_refusals(cpu):
    out = cpu.zeros(4, np.float32)
    with pytest.raises(tack.InvalidArgument, match=r"kernel 'bad_dtype' at .*test_random.py:\d+: Random's uniform\(\) "
                                                   r"makes float32 or float64 values, not int32"):
        bad_dtype(out, 1)
    with pytest.raises(tack.TypeError, match=r"'rng' .*Var.* holds a number, not a tack.Random"):
        random_as_var(out, 1)
    with pytest.raises(tack.Error, match="Random"):
        tack.Random(1, 2)          # outside a kernel
