"""tack.vec2/vec3/vec4, tack.mat22/mat33/mat44 and tack.quat in Python kernels
(issue 29, point 1): lowered to scalar operations at trace time by the
formulas of docs/python.md ("Vectors, matrices and quaternions"), checked
against NumPy on interp, cpu and opencl; arrays of them (tack.Array[tack.vec3]);
and each refusal, naming the kernel and the line."""
import numpy as np
import pytest

import tack
from tack import _core

F32 = np.float32
RTOL = 2e-5


def rng_vectors(n, *shape, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, (n,) + shape).astype(F32)


@tack.kernel
def arithmetic(out: tack.Array[tack.vec3], a: tack.Array[tack.vec3], b: tack.Array[tack.vec3], s: tack.Scalar):
    for i in tack.parallel(out.shape[0]):
        u = a[i]
        w = b[i]
        out[i] = (u + w) * s - u / 4.0 + 2.0 * (-w) - (u * w)


def test_componentwise_arithmetic(device):
    n = 64
    a, b = rng_vectors(n, 3, seed=1), rng_vectors(n, 3, seed=2)
    out = device.zeros((n, 3), F32)
    arithmetic(out, device.array(a), device.array(b), F32(1.5))
    want = (a + b) * F32(1.5) - a / F32(4) + F32(2) * (-b) - a * b
    np.testing.assert_allclose(out.numpy(), want, rtol=RTOL, atol=1e-5)


@tack.kernel
def vector_functions(out: tack.Array, crs: tack.Array[tack.vec3], nrm: tack.Array[tack.vec3],
                     a: tack.Array[tack.vec3], b: tack.Array[tack.vec3]):
    for i in tack.parallel(out.shape[0]):
        u = a[i]
        w = b[i]
        out[i, 0] = tack.dot(u, w)
        out[i, 1] = tack.length(u)
        out[i, 2] = tack.length_sq(w)
        crs[i] = tack.cross(u, w)
        nrm[i] = tack.normalize(u)


def test_vector_functions(device):
    n = 64
    a, b = rng_vectors(n, 3, seed=3), rng_vectors(n, 3, seed=4)
    out, crs, nrm = device.zeros((n, 3), F32), device.zeros((n, 3), F32), device.zeros((n, 3), F32)
    vector_functions(out, crs, nrm, device.array(a), device.array(b))
    got = out.numpy()
    np.testing.assert_allclose(got[:, 0], (a * b).sum(1), rtol=RTOL, atol=1e-5)
    np.testing.assert_allclose(got[:, 1], np.linalg.norm(a, axis=1), rtol=RTOL)
    np.testing.assert_allclose(got[:, 2], (b * b).sum(1), rtol=RTOL)
    np.testing.assert_allclose(crs.numpy(), np.cross(a, b), rtol=RTOL, atol=1e-5)
    np.testing.assert_allclose(nrm.numpy(), a / np.linalg.norm(a, axis=1, keepdims=True), rtol=RTOL, atol=1e-6)


@tack.kernel
def matrix_functions(mv: tack.Array[tack.vec3], vm: tack.Array[tack.vec3], mm: tack.Array[tack.mat33],
                     tr: tack.Array[tack.mat33], inv: tack.Array[tack.mat33], scal: tack.Array,
                     m: tack.Array[tack.mat33], v: tack.Array[tack.vec3]):
    for i in tack.parallel(mv.shape[0]):
        a = m[i]
        x = v[i]
        mv[i] = a @ x
        vm[i] = x @ a
        mm[i] = a @ tack.transpose(a) + tack.outer(x, x) - tack.diag(x) + tack.identity(3)
        tr[i] = tack.transpose(a)
        inv[i] = tack.inverse(a)
        scal[i, 0] = tack.determinant(a)
        scal[i, 1] = tack.trace(a)
        scal[i, 2] = a[1, 2] + a[2].x


def test_matrix_functions(device):
    n = 32
    m, v = rng_vectors(n, 3, 3, seed=5) + 3 * np.eye(3, dtype=F32), rng_vectors(n, 3, seed=6)
    outs = [device.zeros((n, 3), F32), device.zeros((n, 3), F32), device.zeros((n, 3, 3), F32),
            device.zeros((n, 3, 3), F32), device.zeros((n, 3, 3), F32), device.zeros((n, 3), F32)]
    matrix_functions(*outs, device.array(m), device.array(v))
    mv, vm, mm, tr, inv, scal = (o.numpy() for o in outs)
    np.testing.assert_allclose(mv, np.einsum("nij,nj->ni", m, v), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(vm, np.einsum("ni,nij->nj", v, m), rtol=1e-4, atol=1e-5)
    want_mm = (m @ m.transpose(0, 2, 1) + np.einsum("ni,nj->nij", v, v) - np.apply_along_axis(np.diag, 1, v)
               + np.eye(3))
    np.testing.assert_allclose(mm, want_mm, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(tr, m.transpose(0, 2, 1))
    np.testing.assert_allclose(inv, np.linalg.inv(m.astype(np.float64)), rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(scal[:, 0], np.linalg.det(m.astype(np.float64)), rtol=1e-4)
    np.testing.assert_allclose(scal[:, 1], np.trace(m, axis1=1, axis2=2), rtol=1e-5)
    np.testing.assert_allclose(scal[:, 2], m[:, 1, 2] + m[:, 2, 0], rtol=1e-6)


@tack.kernel
def small_matrices(det: tack.Array, inv2: tack.Array[tack.mat22], inv4: tack.Array[tack.mat44],
                   m2: tack.Array[tack.mat22], m4: tack.Array[tack.mat44]):
    for i in tack.parallel(det.shape[0]):
        det[i, 0] = tack.determinant(m2[i])
        det[i, 1] = tack.determinant(m4[i])
        inv2[i] = tack.inverse(m2[i])
        inv4[i] = tack.inverse(m4[i])


def test_2x2_and_4x4_determinant_and_inverse(device):
    n = 16
    m2 = rng_vectors(n, 2, 2, seed=7) + 3 * np.eye(2, dtype=F32)
    m4 = rng_vectors(n, 4, 4, seed=8) + 4 * np.eye(4, dtype=F32)
    det, i2, i4 = device.zeros((n, 2), F32), device.zeros((n, 2, 2), F32), device.zeros((n, 4, 4), F32)
    small_matrices(det, i2, i4, device.array(m2), device.array(m4))
    np.testing.assert_allclose(det.numpy()[:, 0], np.linalg.det(m2.astype(np.float64)), rtol=1e-4)
    np.testing.assert_allclose(det.numpy()[:, 1], np.linalg.det(m4.astype(np.float64)), rtol=1e-4)
    np.testing.assert_allclose(i2.numpy(), np.linalg.inv(m2.astype(np.float64)), rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(i4.numpy(), np.linalg.inv(m4.astype(np.float64)), rtol=1e-3, atol=1e-5)


def np_quat_mul(a, b):
    ax, ay, az, aw = a.T
    bx, by, bz, bw = b.T
    return np.stack([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz], 1)


def np_quat_to_matrix(q):
    x, y, z, w = q.T
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], 1),
                     np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], 1),
                     np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], 1)], 1)


@tack.kernel
def quaternions(prod: tack.Array[tack.quat], rot: tack.Array[tack.vec3], conj: tack.Array[tack.quat],
                mat: tack.Array[tack.mat33], fa: tack.Array[tack.quat], a: tack.Array[tack.quat],
                b: tack.Array[tack.quat], v: tack.Array[tack.vec3], angle: tack.Array):
    for i in tack.parallel(prod.shape[0]):
        q = tack.normalize(a[i])
        prod[i] = tack.quat_mul(q, b[i])
        rot[i] = tack.quat_rotate(q, v[i])
        conj[i] = tack.quat_conjugate(q)
        mat[i] = tack.quat_to_matrix(q)
        fa[i] = tack.quat_from_axis_angle(tack.normalize(v[i]), angle[i])


def test_quaternions(device):
    n = 32
    a, b, v = rng_vectors(n, 4, seed=9), rng_vectors(n, 4, seed=10), rng_vectors(n, 3, seed=11)
    angle = rng_vectors(n, seed=12)
    outs = [device.zeros((n, 4), F32), device.zeros((n, 3), F32), device.zeros((n, 4), F32),
            device.zeros((n, 3, 3), F32), device.zeros((n, 4), F32)]
    quaternions(*outs, device.array(a), device.array(b), device.array(v), device.array(angle))
    prod, rot, conj, mat, fa = (o.numpy() for o in outs)
    q = a / np.linalg.norm(a, axis=1, keepdims=True)
    np.testing.assert_allclose(prod, np_quat_mul(q, b), rtol=1e-4, atol=1e-5)
    R = np_quat_to_matrix(q)
    np.testing.assert_allclose(mat, R, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(rot, np.einsum("nij,nj->ni", R, v), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(conj, q * np.array([-1, -1, -1, 1], F32), rtol=1e-6)
    axis = v / np.linalg.norm(v, axis=1, keepdims=True)
    want = np.concatenate([axis * np.sin(angle / 2)[:, None], np.cos(angle / 2)[:, None]], 1)
    np.testing.assert_allclose(fa, want, rtol=1e-4, atol=1e-6)


@tack.kernel
def componentwise(out: tack.Array[tack.vec3], flags: tack.Array[tack.vec3], a: tack.Array[tack.vec3],
                  b: tack.Array[tack.vec3]):
    for i in tack.parallel(out.shape[0]):
        u = a[i]
        w = b[i]
        c = tack.clamp(tack.max(u, w) - tack.min(u, 0.5), -1.0, 1.0)
        d = tack.select(tack.vec3(u.x < w.x, u.y < w.y, u.z < w.z), tack.floor(u), abs(w))
        out[i] = c + d + tack.sqrt(tack.abs(u)) + tack.cast(tack.cast(u * 10.0, np.int32), np.float32)
        flags[i] = tack.cast(tack.isnan(tack.sqrt(u)), np.float32)


def test_componentwise_functions(device):
    n = 64
    a, b = rng_vectors(n, 3, seed=13), rng_vectors(n, 3, seed=14)
    out, flags = device.zeros((n, 3), F32), device.zeros((n, 3), F32)
    componentwise(out, flags, device.array(a), device.array(b))
    c = np.clip(np.maximum(a, b) - np.minimum(a, F32(0.5)), -1, 1)
    d = np.where(a < b, np.floor(a), np.abs(b))
    want = c + d + np.sqrt(np.abs(a)) + np.trunc(a * F32(10)).astype(F32)
    np.testing.assert_allclose(out.numpy(), want, rtol=RTOL, atol=1e-5)
    np.testing.assert_array_equal(flags.numpy(), (a < 0).astype(F32))


@tack.kernel
def vars_and_components(out: tack.Array[tack.vec3], grid: tack.Array[tack.vec3], a: tack.Array[tack.vec3],
                        n: tack.Scalar):
    for i in tack.parallel(out.shape[0]):
        acc = tack.vec3(0.0, 0.0, 0.0)        # a Var: assigned in the loop, read after it
        for k in range(n):
            acc += a[i] * 0.5
            if acc.x > 3.0:
                acc = tack.vec3(acc.x - 3.0, acc[1], acc.z)
        acc.y = acc.y + 100.0                 # a component rebound
        x, y, z = acc
        out[i] = tack.vec3(z, y, x)
        for j in range(grid.shape[1]):        # an (h, w, 3) array: x[i, j] is one vec3
            grid[i, j] += tack.vec3(1.0, 2.0, 3.0) * tack.cast(j, np.float32)


def test_vectors_as_vars_components_and_2d_arrays(device):
    n, steps = 16, 5
    a = np.abs(rng_vectors(n, 3, seed=15))
    out, grid = device.zeros((n, 3), F32), device.array(np.ones((n, 4, 3), F32))
    vars_and_components(out, grid, device.array(a), steps)
    acc = np.zeros((n, 3), F32)
    for _ in range(steps):
        acc = acc + a * F32(0.5)
        acc[:, 0] = np.where(acc[:, 0] > 3, acc[:, 0] - 3, acc[:, 0])
    acc[:, 1] += 100
    np.testing.assert_allclose(out.numpy(), acc[:, ::-1], rtol=RTOL)
    want = 1 + np.array([1, 2, 3], F32)[None, None, :] * np.arange(4, dtype=F32)[None, :, None]
    np.testing.assert_array_equal(grid.numpy(), np.broadcast_to(want, (n, 4, 3)))


@tack.kernel
def atomic_sum(total: tack.Array[tack.vec3], a: tack.Array[tack.vec3]):
    for i in tack.parallel(a.shape[0]):
        tack.atomic_add(total, 0, a[i])


def test_atomic_add_of_a_vector(device):
    a = np.arange(30, dtype=F32).reshape(10, 3)
    total = device.zeros((1, 3), F32)
    atomic_sum(total, device.array(a))
    np.testing.assert_array_equal(total.numpy()[0], a.sum(0))


@tack.kernel
def dot_only(out: tack.Array, a: tack.Array[tack.vec4], b: tack.Array[tack.vec4]):
    for i in tack.parallel(out.size):
        out[i] = tack.dot(a[i], b[i])


def test_the_formulas_are_the_specs_scalar_operations():
    """dot is ((a0*b0 + a1*b1) + a2*b2) + a3*b3: the association the C++ twin uses."""
    f = tack.ArraySpec(np.float32, 1)
    f2 = tack.ArraySpec(np.float32, 2)
    ir = tack.inspect(dot_only, "interp", f, f2, f2).typed_ir
    assert "add.f32(add.f32(add.f32(mul.f32(" in ir, ir
    assert ir.count("mul.f32(") == 4 and ir.count("load.f32") == 8, ir


def test_host_side_vectors_are_plain_values():
    v = tack.vec3(1.0, 2.0, 3.0)
    w = v * 2 + tack.vec3(1, 1, 1)
    assert (w.x, w.y, w.z) == (3.0, 5.0, 7.0)
    np.testing.assert_array_equal(np.asarray(w), [3.0, 5.0, 7.0])
    assert tack.dot(v, v) == 14.0
    assert tuple(tack.cross(tack.vec3(1, 0, 0), tack.vec3(0, 1, 0))) == (0, 0, 1)
    m = tack.mat22(1.0, 2.0, 3.0, 4.0)
    assert np.asarray(m).shape == (2, 2) and m[1, 0] == 3.0 and tuple(m[1]) == (3.0, 4.0)
    assert tuple(m @ tack.vec2(1.0, 1.0)) == (3.0, 7.0)
    assert tack.determinant(m) == -2.0
    with pytest.raises(tack.TypeError, match="same shape"):
        tack.vec3(1, 2, 3) + tack.vec2(1, 2)
    with pytest.raises(tack.IndexError, match="index 3 is out of range"):
        tack.vec3(1, 2, 3)[3]
    with pytest.raises(tack.TypeError, match="takes 3 components"):
        tack.vec3(1, 2)


# ---- refusals, each naming the kernel and the line ---------------------------------------

REFUSALS = {
    "shapes": ("y[i] = (tack.vec3(x[i], 0.0, 0.0) + tack.vec2(1.0, 2.0)).x  # HERE\n", tack.TypeError,
               "vec3 and vec2"),
    "index": ("y[i] = tack.vec3(x[i], 0.0, 0.0)[3]  # HERE\n", tack.IndexError, "index 3 is out of range"),
    "traced_index": ("y[i] = tack.vec3(x[i], 0.0, 0.0)[i]  # HERE\n", tack.TypeError, "constant"),
    "compare": ("v = tack.vec3(x[i], 0.0, 0.0)\nif v < v:  # HERE\n    y[i] = 1.0\n", tack.TypeError,
                "compared as a whole"),
    "scalar_div": ("y[i] = (1.0 / tack.vec3(x[i], 1.0, 1.0)).x  # HERE\n", tack.TypeError, "a number / a vec3"),
    "var_kind": ("v = tack.vec3(x[i], 0.0, 0.0)\nif x[i] > 0:\n    v = x[i]  # HERE\ny[i] = v.x\n", tack.TypeError,
                 "holding a vec3"),
    "add_scalar": ("y[i] = (tack.vec3(x[i], 0.0, 0.0) + 1.0).x  # HERE\n", tack.TypeError, "only * and /"),
    "no_component": ("y[i] = tack.vec2(x[i], 0.0).z  # HERE\n", tack.TypeError, "no component 'z'"),
    "matmul_shapes": ("y[i] = (tack.identity(3) @ tack.vec2(x[i], 1.0)).x  # HERE\n", tack.TypeError,
                      "shapes do not match"),
    "quat_product": ("q = tack.quat(x[i], 0.0, 0.0, 1.0)\ny[i] = (q * q).x  # HERE\n", tack.TypeError, "quat_mul"),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_name_the_kernel_and_line(tmp_path, name):
    from test_frontend_errors import check, kernel_source, load
    body, cls, words = REFUSALS[name]
    module, path, text = load(tmp_path, kernel_source(body))
    with pytest.raises(cls) as e:
        module.k.ir()
    check(e, path, text, words)


@tack.kernel
def takes_vec3(out: tack.Array[tack.vec3]):
    for i in tack.parallel(out.shape[0]):
        out[i] = tack.vec3(1.0, 2.0, 3.0)


def test_a_wrong_trailing_shape_is_refused_at_the_call(cpu):
    if not hasattr(_core, "require_element_shape"):
        pytest.skip("this build's tack._core has no require_element_shape (the core hook of issue 29, branch "
                    "vec): the trailing shape of an array of vectors is not checked yet")
    with pytest.raises(tack.InvalidArgument) as e:
        takes_vec3(cpu.zeros((8, 4), F32))
    msg = str(e.value)
    assert "takes_vec3" in msg and "out" in msg and "4" in msg and "3" in msg, msg
    takes_vec3(cpu.zeros((8, 3), F32))


def test_each_array_of_vectors_asks_the_core_for_its_element_shape(monkeypatch):
    """The front end's half of the trailing-shape check: one require_element_shape(array, rows, cols)
    per such parameter, before the body, (N, 0) for a vector, (R, C) for a matrix."""
    seen = []
    monkeypatch.setattr(_core, "require_element_shape", lambda a, rows, cols: seen.append((rows, cols)),
                        raising=False)

    @tack.kernel
    def shapes(a: tack.Array[tack.vec2], b: tack.Array, m: tack.Array[tack.mat33], q: tack.Array[tack.quat]):
        for i in tack.parallel(b.size):
            b[i] = a[i].x + m[i][1, 2] + q[i].w

    shapes.ir()
    assert seen == [(2, 0), (3, 3), (4, 0)]


@tack.struct
class Frame3:
    origin: tack.vec3
    t: np.float32


@tack.kernel
def part_assignments(y: tack.Array, x: tack.Array, n: tack.Scalar):
    for i in tack.parallel(y.shape[0]):
        v = tack.vec3(x[i], 0.0, 0.0)
        v[1] = 5.0
        m = tack.identity(3)
        m[1, 2] = x[i]
        r = Frame3(v, 1.0)
        r.origin.z = 7.0
        for j in range(n):          # v, m and r become Vars: their parts are assigned in the loop
            m[0, 0] = m[0, 0] + 1.0
            r.origin.x += 1.0
            v[2] += 2.0
        y[i, 0] = v.y + v.z
        y[i, 1] = m[1, 2] + m[0, 0]
        y[i, 2] = r.origin.x + r.origin.z + r.t


def test_components_entries_and_fields_assigned_in_loops(device):
    y = device.zeros((2, 3), F32)
    part_assignments(y, device.array(np.array([1.0, 2.0], F32)), 3)
    np.testing.assert_array_equal(y.numpy(), [[11, 5, 12], [11, 6, 13]])
