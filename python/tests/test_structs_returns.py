"""@tack.struct and @tack.func results (issue 29, points 2 and 4, Python side):
structs built, read, rebound and kept in Vars in kernels, passed to and
returned from functions, and bundling arrays and scalars as one kernel
parameter; functions that return from inside traced ifs and loops, with
tuples, vectors and structs as results; checked against NumPy on interp, cpu
and opencl, with each refusal naming the kernel, the line and what."""
import numpy as np
import pytest

import tack

F32 = np.float32


@tack.struct
class Ray:
    origin: tack.vec3
    direction: tack.vec3


@tack.struct
class Sphere:
    center: tack.vec3
    radius: np.float32


@tack.struct
class Hit:
    t: np.float32
    normal: tack.vec3
    count: np.int32 = 0          # a default, as in a dataclass


@tack.func
def intersect(ray, sphere):
    """(hit, t): the nearest t >= 0 where the ray meets the sphere."""
    oc = ray.origin - sphere.center
    b = tack.dot(oc, ray.direction)
    c = tack.dot(oc, oc) - sphere.radius * sphere.radius
    disc = b * b - c
    if disc < 0:
        return False, 0.0
    root = tack.sqrt(disc)
    t = -b - root
    if t < 0:
        t = -b + root
        if t < 0:
            return False, 0.0
    return True, t


@tack.kernel
def ray_sphere(hit: tack.Array, ts: tack.Array, origins: tack.Array[tack.vec3], dirs: tack.Array[tack.vec3],
               radius: tack.Scalar):
    for i in tack.parallel(hit.size):
        ray = Ray(origin=origins[i], direction=dirs[i])
        h, t = intersect(ray, Sphere(tack.vec3(0.0, 0.0, 4.0), radius))
        hit[i] = tack.select(h, 1, 0)
        ts[i] = t


def np_intersect(o, d, center, r):
    oc = o - center
    b = (oc * d).sum(1)
    c = (oc * oc).sum(1) - r * r
    disc = b * b - c
    root = np.sqrt(np.maximum(disc, 0))
    t0, t1 = -b - root, -b + root
    t = np.where(t0 >= 0, t0, t1)
    hit = (disc >= 0) & (t >= 0)
    return hit, np.where(hit, t, 0)


def test_ray_sphere_with_early_returns(device):
    n = 256
    rng = np.random.default_rng(1)
    o = rng.uniform(-1, 1, (n, 3)).astype(F32)
    o[: n // 4, 2] = 4.0                     # some rays start inside the sphere
    d = rng.normal(size=(n, 3)).astype(F32)
    d[:, 2] = np.abs(d[:, 2]) * 2
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    hit, ts = device.zeros(n, np.int32), device.zeros(n, F32)
    ray_sphere(hit, ts, device.array(o), device.array(d), 1.5)
    want_hit, want_t = np_intersect(o.astype(np.float64), d.astype(np.float64), np.array([0, 0, 4.0]), 1.5)
    np.testing.assert_array_equal(hit.numpy(), want_hit.astype(np.int32))
    assert 0 < want_hit.sum() < n
    np.testing.assert_allclose(ts.numpy(), want_t, rtol=1e-4, atol=1e-5)


@tack.func
def first_above(x, row, n, limit):
    """The first column k of a row with x > limit, searching nested loops; -1 if none."""
    for blk in range(n // 4):
        for k in range(4):
            if x[row, blk * 4 + k] > limit:
                return blk * 4 + k
    return -1


@tack.func
def clipped(v, lo):
    """A vector returned from inside a traced if."""
    if tack.length(v) < lo:
        return tack.vec3(0.0, 0.0, 0.0)
    for k in tack.static_range(3):
        if v[k] < 0:
            return v * 0.5
    return v


@tack.func
def store_positive(y, i, v):
    """A procedure with a bare early return."""
    if v <= 0:
        return
    y[i] = v


@tack.kernel
def search(found: tack.Array[np.int64], vecs: tack.Array[tack.vec3], pos: tack.Array, x: tack.Array,
           limit: tack.Scalar):
    for i in tack.parallel(found.size):
        found[i] = first_above(x, i, x.shape[1], limit)
        vecs[i] = clipped(tack.vec3(x[i, 0], x[i, 1], x[i, 2]), 1.0)
        store_positive(pos, i, x[i, 3])


def test_returns_from_loops_static_loops_and_bare_returns(device):
    n, m = 64, 16
    x = np.random.default_rng(2).normal(size=(n, m)).astype(F32)
    found, vecs = device.zeros(n, np.int64), device.zeros((n, 3), F32)
    pos = device.array(np.full(n, -7.0, F32))
    search(found, vecs, pos, device.array(x), 1.2)
    above = x > 1.2
    np.testing.assert_array_equal(found.numpy(), np.where(above.any(1), above.argmax(1), -1))
    v = x[:, :3]
    want = np.where((np.linalg.norm(v, axis=1) < 1)[:, None], 0, np.where((v < 0).any(1)[:, None], v * 0.5, v))
    np.testing.assert_allclose(vecs.numpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(pos.numpy(), np.where(x[:, 3] > 0, x[:, 3], -7.0))


@tack.func
def bounce(h, normal):
    """A struct argument, a struct result built from inside a traced if."""
    if h.t > 1.0:
        return Hit(h.t * 0.5, normal, count=h.count + 1)
    return Hit(t=h.t, normal=-normal, count=h.count)


@tack.kernel
def struct_vars(out: tack.Array, n: tack.Scalar, x: tack.Array):
    for i in tack.parallel(out.shape[0]):
        h = Hit(x[i], tack.vec3(0.0, 1.0, 0.0))        # t cast to f32, count the default 0 as i32
        for k in range(n):                               # h is a Var: a struct of 5 leaves
            h = bounce(h, h.normal)
            h.t += 0.25                                  # a field rebound
        out[i, 0] = h.t
        out[i, 1] = h.normal.y
        out[i, 2] = tack.cast(h.count, np.float32)


def test_structs_as_vars_arguments_and_results(device):
    n = 32
    x = np.linspace(0, 4, n).astype(F32)
    out = device.zeros((n, 3), F32)
    struct_vars(out, 3, device.array(x))
    t, ny, count = x.astype(np.float64).copy(), np.ones(n), np.zeros(n)
    for _ in range(3):
        big = t > 1
        t = np.where(big, t * 0.5, t) + 0.25
        ny = np.where(big, ny, -ny)
        count += big
    np.testing.assert_allclose(out.numpy(), np.stack([t, ny, count], 1), rtol=1e-6)


@tack.kernel
def field_cast(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        h = Hit(x[i], tack.vec3(0.0, 0.0, 0.0), x[i])
        y[i] = h.t + tack.cast(h.count, np.float64)


def test_a_dtype_field_casts():
    f64 = tack.ArraySpec(np.float64, 1)
    ir = tack.inspect(field_cast, "interp", f64, f64).typed_ir
    assert "cast.f32(" in ir and "cast.i32(" in ir, ir
    h = Hit(2.0, tack.vec3(1.0, 0.0, 0.0), 3.0)         # outside a kernel: a plain object, NumPy casts
    assert type(h.t) is np.float32 and type(h.count) is np.int32 and h.normal.x == 1.0
    h.t = 5.0
    assert h.t == 5.0 and "Hit(t=5.0" in repr(h)


@tack.struct
class State:
    pos: tack.Array[tack.vec3]
    vel: tack.Array
    scale: tack.Array[np.float32]
    dt: np.float32
    steps: tack.Scalar


@tack.kernel
def advance(s: State, out: tack.Array):
    for i in tack.parallel(s.vel.shape[0]):
        p = s.pos[i]
        for k in range(s.steps):
            p += tack.vec3(s.vel[i, 0], s.vel[i, 1], s.vel[i, 2]) * s.dt
        s.pos[i] = p * s.scale[0]
        out[i] = s.dt


def test_a_struct_bundles_arrays_and_scalars_as_one_parameter(device):
    n = 16
    pos = np.random.default_rng(3).normal(size=(n, 3)).astype(F32)
    vel = np.random.default_rng(4).normal(size=(n, 3)).astype(F32)
    p, out = device.array(pos), device.zeros(n, F32)
    state = State(pos=p, vel=device.array(vel), scale=device.array(np.array([2.0], F32)), dt=0.5, steps=3)
    advance(state, out)
    want = pos.copy()
    for _ in range(3):
        want = want + vel * F32(0.5)
    np.testing.assert_allclose(p.numpy(), want * 2, rtol=1e-6)
    np.testing.assert_array_equal(out.numpy(), 0.5)
    advance(s=state, out=out)                          # by keyword too
    # One core parameter per field; pos is a tack.Array[tack.vec3], whose elements the core checks at each call.
    assert advance.ir().startswith("kernel advance(%0: Array<element 3>, %1: Array, %2: Array<f32>, "
                                   "%3: Scalar<f32>, %4: Scalar, %5: Array)")
    with pytest.raises(tack.TypeError, match="s.scale"):         # the core names a field as s.field
        advance(State(pos=p, vel=p, scale=device.array(np.ones(1)), dt=0.5, steps=1), out)


def test_struct_parameter_refusals(cpu):
    n = 4
    a, out = cpu.zeros((n, 3), F32), cpu.zeros(n, F32)
    scale = cpu.array(np.ones(1, F32))
    with pytest.raises(tack.InvalidArgument, match=r"kernel 'advance': parameter 's' \(State\): field 'vel' is "
                                                   "missing"):
        advance(State(pos=a, vel=None, scale=scale, dt=0.1, steps=1), out)
    with pytest.raises(tack.TypeError, match=r"kernel 'advance': parameter 's' \(State\): field 'vel'"):
        advance(State(pos=a, vel=2.0, scale=scale, dt=0.1, steps=1), out)
    with pytest.raises(tack.TypeError, match=r"kernel 'advance': parameter 's' \(State\): field 'steps'"):
        advance(State(pos=a, vel=a, scale=scale, dt=0.1, steps=a), out)
    with pytest.raises(tack.TypeError, match="kernel 'advance': parameter 's' is a State"):
        advance(a, out)
    with pytest.raises(tack.TypeError, match="missing field 'dt'"):
        State(pos=a, vel=a, scale=scale, steps=1)


SQUARE = True


@tack.func
def sq(v):
    if SQUARE:                        # a Python condition: decided at trace time
        return v * v
    return v


@tack.kernel
def via_func(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        y[i] = sq(x[i]) + 1.0


@tack.kernel
def written_out(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        v = x[i]
        y[i] = v * v + 1.0


def test_a_function_without_traced_returns_traces_as_before():
    f = tack.ArraySpec(np.float32, 1)
    a = tack.inspect(via_func, "interp", f, f).typed_ir
    b = tack.inspect(written_out, "interp", f, f).typed_ir
    assert a.replace("via_func", "k") == b.replace("written_out", "k")
    assert "var" not in a


# ---- refusals in kernels, naming the kernel and the line ----------------------------

STRUCT_HEADER = '''
@tack.struct
class P:
    x: np.float32
    v: tack.vec3


@tack.struct
class WithArray:
    a: tack.Array
    k: np.float32


@tack.func
def two_or_one(v):
    if v > 0:
        return v, v
    return (v, v, v)  # HERE:two_or_one

'''

REFUSALS = {
    "no_field": ("p = P(x[i], tack.vec3(0.0, 0.0, 0.0))\ny[i] = p.nope  # HERE\n", tack.TypeError,
                 "P has no field 'nope'"),
    "field_type": ("p = P(x[i], x[i])  # HERE\n", tack.TypeError, "field 'P.v' holds a vec3"),
    "missing": ("p = P(x=x[i])  # HERE\n", tack.TypeError, "missing field 'v'"),
    "unknown_kw": ("p = P(x[i], tack.vec3(0.0, 0.0, 0.0), w=1.0)  # HERE\n", tack.TypeError, "no field 'w'"),
    "assign_field_type": ("p = P(x[i], tack.vec3(0.0, 0.0, 0.0))\np.v = 1.0  # HERE\n", tack.TypeError,
                          "holds a vec3"),
    "tuple_lengths": ("a = two_or_one(x[i])  # HERE\n", tack.TypeError, "a tuple of 3"),
    "array_struct_in_loop": ("w = WithArray(y, 1.0)\nfor j in range(n):\n    w.k = 2.0  # HERE\ny[i] = w.k\n",
                             tack.TypeError, "a struct that holds arrays cannot be a kernel variable"),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_name_the_kernel_and_line(tmp_path, name):
    from test_frontend_errors import check, kernel_source, load
    body, cls, words = REFUSALS[name]
    module, path, text = load(tmp_path, STRUCT_HEADER + kernel_source(body))
    with pytest.raises(cls) as e:
        module.k.ir()
    check(e, path, text, words, tag="HERE:two_or_one" if name == "tuple_lengths" else "HERE")


@tack.func
def countdown(v):
    """Returns from inside a while loop inside an if; the caller calls it from a traced loop."""
    k = 0
    while k < 10:
        if v < 0.0:
            return tack.vec2(v, 1.0)
        v = v - 1.0
        k += 1
    return tack.vec2(v, 2.0)


@tack.func
def either_side(v):
    """A function returning another function's result: its structure read through the call."""
    if v > 100.0:
        return countdown(-v)
    return countdown(v)


@tack.kernel
def nested_returns(y: tack.Array[tack.vec2], z: tack.Array[tack.vec3], x: tack.Array):
    for i in tack.parallel(x.size):
        acc = tack.vec2(0.0, 0.0)
        for j in range(3):
            acc += either_side(x[i] + tack.cast(j, np.float32))
        y[i] = acc
        if x[i] > 2.0:                       # w is first bound in the branches: a vec3 Var
            w = tack.vec3(1.0, 2.0, 3.0)
        else:
            w = tack.vec3(x[i], x[i], x[i])
        z[i] = w if x[i] < 100.0 else z[i]   # a lazy form on vectors: z[i] read only where taken


def test_nested_returns_and_vector_vars_first_bound_in_branches(device):
    x = np.array([0.5, 3.5, 200.0, 12.0], F32)
    y, z = device.zeros((4, 2), F32), device.array(np.full((4, 3), 9.0, F32))
    nested_returns(y, z, device.array(x))

    def countdown_np(v):
        for _ in range(10):
            if v < 0:
                return np.array([v, 1.0])
            v -= 1
        return np.array([v, 2.0])

    want = [sum(countdown_np(-(xi + j) if xi + j > 100 else xi + j) for j in range(3)) for xi in x]
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(z.numpy(), [[0.5] * 3, [1, 2, 3], [9, 9, 9], [1, 2, 3]])


@tack.struct
class Camera:
    eye: tack.vec3          # three scalar parameters
    scale: np.float32


@tack.kernel
def through_camera(out: tack.Array[tack.vec3], c: Camera):
    for i in tack.parallel(out.shape[0]):
        out[i] = c.eye * c.scale + tack.vec3(0.0, 0.0, tack.cast(i, np.float32))


def test_a_struct_parameter_with_a_vector_field(device):
    out = device.zeros((3, 3), F32)
    through_camera(out, Camera(tack.vec3(1.0, 2.0, 3.0), 2.0))
    np.testing.assert_array_equal(out.numpy(), [[2, 4, 6], [2, 4, 7], [2, 4, 8]])
    with pytest.raises(tack.TypeError, match="field 'Camera.eye' holds a vec3"):
        Camera(tack.vec2(1.0, 2.0), 2.0)


@tack.struct
class Flagged:
    ok: np.bool_             # holds the truth of its value
    t: np.float32


@tack.kernel
def flagged(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        if x[i] > 0:                         # s is first bound in the branches: one Var per field
            s = Flagged(x[i] - 1.0, x[i])
        else:
            s = Flagged(False, 0.0)
        y[i] = tack.select(s.ok, s.t, -1.0)


def test_a_struct_first_bound_in_branches_with_a_bool_field(device):
    y = device.zeros(4, F32)
    flagged(y, device.array(np.array([2.0, 1.0, -1.0, 0.5], F32)))
    np.testing.assert_array_equal(y.numpy(), [2.0, -1.0, -1.0, 0.5])
