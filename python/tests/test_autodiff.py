"""Derivative kernels from Python (docs/autodiff.md): tack.adjoint against the analytic gradient and central
differences in f64, tack.jvp against the adjoint by the dot-product test, on interp, cpu and opencl; the
refusals' tack.NotDifferentiable; the adjoint's IR in tack.inspect."""
import numpy as np
import pytest

import tack


@tack.kernel
def saxpy(y: tack.Array, x: tack.Array, a: tack.Scalar):
    for i in tack.parallel(y.size):
        y[i] = a * x[i] + y[i]


@tack.kernel
def damped(x: tack.Array, out: tack.Array, steps: tack.Scalar):
    for i in tack.parallel(x.size):
        v = x[i]
        for k in range(steps):
            v = tack.sin(v) * v + v * 0.1 * k
        out[i] = v * v


def run_damped(xs, steps):
    out = np.zeros_like(xs)
    for i, v in enumerate(xs):
        for k in range(steps):
            v = np.sin(v) * v + v * 0.1 * k
        out[i] = v * v
    return out


def test_saxpy_adjoint_is_the_transposed_jacobian(device):
    rng = np.random.default_rng(1)
    hx, hy, seed = rng.standard_normal(16), rng.standard_normal(16), rng.standard_normal(16)
    x, y = device.array(hx), device.array(hy)
    saxpy(y, x, 2.5)
    gy, gx = device.array(seed), device.array(np.zeros(16))
    tack.adjoint(saxpy)(y, x, 2.5, gy, gx)
    # y_after = 2.5 x + y_before: d loss/d x = 2.5 seed, d loss/d y_before = seed.
    np.testing.assert_allclose(gx.numpy(), 2.5 * seed, rtol=0, atol=0)
    np.testing.assert_allclose(gy.numpy(), seed, rtol=0, atol=0)


def test_a_loop_carried_value_against_central_differences(device):
    rng = np.random.default_rng(2)
    hx = rng.uniform(-1, 1, 8)
    w = rng.uniform(-1, 1, 8)
    steps = 4
    x, out = device.array(hx), device.array(np.zeros(8))
    damped(x, out, steps)
    np.testing.assert_allclose(out.numpy(), run_damped(hx, steps), rtol=1e-12)
    gx, gout = device.array(np.zeros(8)), device.array(w)
    tack.adjoint(damped)(x, out, steps, gx, gout)
    h = 1e-6
    for i in range(8):
        plus, minus = hx.copy(), hx.copy()
        plus[i] += h
        minus[i] -= h
        fd = (w @ run_damped(plus, steps) - w @ run_damped(minus, steps)) / (2 * h)
        assert gx.numpy()[i] == pytest.approx(fd, rel=1e-6, abs=1e-9)
    np.testing.assert_array_equal(gout.numpy(), np.zeros(8))  # out was overwritten: its gradient is used up

    # Forward mode agrees with reverse mode: <J v, w> == <v, J^T w>.
    v = rng.uniform(-1, 1, 8)
    x2, out2 = device.array(hx), device.array(np.zeros(8))
    tx, tout = device.array(v), device.array(np.zeros(8))
    tack.jvp(damped)(x2, out2, steps, tx, tout)
    np.testing.assert_allclose(out2.numpy(), run_damped(hx, steps), rtol=1e-12)  # it does the primal work too
    assert tout.numpy() @ w == pytest.approx(v @ gx.numpy(), rel=1e-12)


def test_a_construct_without_derivative_names_its_line(interp_device):
    @tack.kernel
    def halving(x: tack.Array, y: tack.Array):
        for i in tack.parallel(x.size):
            v = x[i]
            while v > 1.0:
                v = v * 0.5
            y[i] = v

    x, y = interp_device.array(np.ones(4)), interp_device.array(np.zeros(4))
    with pytest.raises(tack.NotDifferentiable, match=r"kernel 'halving_adjoint' cannot be differentiated: a while "
                                                     r"loop at .*test_autodiff.py:\d+"):
        tack.adjoint(halving)(x, y, interp_device.array(np.zeros(4)), interp_device.array(np.zeros(4)))
    with pytest.raises(tack.InvalidArgument, match="takes a kernel made with @tack.kernel"):
        tack.adjoint(lambda: None)


def test_gradient_arrays_of_another_shape_are_refused(interp_device):
    x, y = interp_device.array(np.zeros(4)), interp_device.array(np.zeros(4))
    with pytest.raises(tack.InvalidArgument, match=r"the 4th argument \(the gradient of the 1st "
                                                   r"argument\) must have its shape \(4,\), got shape \(5,\)"):
        tack.adjoint(saxpy)(y, x, 1.0, interp_device.array(np.zeros(5)), interp_device.array(np.zeros(4)))


def test_inspect_shows_the_adjoint(interp_device):
    x = interp_device.array(np.zeros(4, np.float32))
    r = tack.inspect(tack.adjoint(saxpy), "interp", x, x, 2.0, x, x)
    assert "derivative adjoint" in r.ir
    assert "grad %0" in r.ir and "grad %1" in r.ir
    assert "kernel saxpy_adjoint" in r.typed_ir
    assert "derivative" not in r.typed_ir  # the typed IR is the adjoint's own code


@pytest.fixture
def interp_device():
    return tack.device("interp")


@tack.kernel
def cube_step(out: tack.Array, u: tack.Array):
    for i in tack.parallel(u.size):
        out[i] = u[i] - 0.1 * u[i] * u[i] * u[i]


@tack.kernel
def sum_squares(loss: tack.Array, u: tack.Array):
    for i in tack.parallel(u.size):
        tack.atomic_add(loss, 0, u[i] * u[i])


def cube_loss(u, steps):
    for _ in range(steps):
        u = u - 0.1 * u ** 3
    return np.sum(u * u)


def test_a_tape_through_arrays_used_in_turn_matches_central_differences(device):
    # a is overwritten by the second step after the first read it: the tape keeps a copy for the first adjoint.
    rng = np.random.default_rng(3)
    h0 = rng.uniform(-1, 1, 10)
    a = device.array(h0, requires_grad=True)
    b = device.zeros(10, np.float64)
    loss = device.zeros(1, np.float64)
    assert a.requires_grad and not b.requires_grad
    with tack.Tape() as tape:
        cube_step(b, a)
        cube_step(a, b)
        cube_step(b, a)
        sum_squares(loss, b)
    assert len(tape) == 4 and b.requires_grad and loss.requires_grad
    tape.backward(loss)
    h = 1e-6
    fd = [(cube_loss(h0 + h * e, 3) - cube_loss(h0 - h * e, 3)) / (2 * h) for e in np.eye(10)]
    np.testing.assert_allclose(a.grad.numpy(), fd, rtol=1e-6, atol=1e-9)
    assert loss.numpy()[0] == pytest.approx(cube_loss(h0, 3), rel=1e-12)
    tape.zero()
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros(10))
    tape.backward(grads={loss: device.array(np.array([2.0]))})
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.array(fd), rtol=1e-6, atol=1e-9)
    tape.reset()
    assert len(tape) == 0


def test_what_the_tape_refuses(interp_device):
    with pytest.raises(tack.InvalidArgument, match="only float32 and float64 arrays carry a gradient"):
        interp_device.zeros(4, np.int32, requires_grad=True)
    with pytest.raises(tack.InvalidArgument, match="only float32 and float64 arrays carry a gradient"):
        interp_device.zeros(4, np.int32).grad
    tape = tack.Tape()
    with pytest.raises(tack.InvalidArgument, match="a loss array or grads"):
        tape.backward()
    g = interp_device.zeros(4, np.float32).grad
    assert g.dtype == np.float32 and g.shape == (4,) and not g.numpy().any()


@tack.struct
class Particles:
    pos: tack.Array
    mass: tack.Array
    k: np.float64


@tack.kernel
def energy(p: Particles, e: tack.Array):
    for i in tack.parallel(e.size):
        e[i] = 0.5 * p.k * p.mass[i] * p.pos[i] * p.pos[i]


def test_a_kernel_with_a_struct_parameter(device):
    pos, mass = device.array(np.array([1.0, -2.0, 3.0])), device.array(np.array([2.0, 1.0, 0.5]))
    e = device.zeros(3, np.float64)
    p = Particles(pos=pos, mass=mass, k=4.0)
    energy(p, e)
    # Gradients: one per array field (pos, mass) and array parameter (e), in order.
    gpos, gmass, ge = device.zeros(3, np.float64), device.zeros(3, np.float64), device.array(np.ones(3))
    tack.adjoint(energy)(p, e, gpos, gmass, ge)
    np.testing.assert_allclose(gpos.numpy(), 4.0 * np.array([2.0, 1.0, 0.5]) * np.array([1.0, -2.0, 3.0]))
    np.testing.assert_allclose(gmass.numpy(), 0.5 * 4.0 * np.array([1.0, 4.0, 9.0]))
    assert "kernel energy_adjoint" in tack.inspect(tack.adjoint(energy), "interp", p, e, gpos, gmass, ge).typed_ir
    with tack.Tape() as tape:
        pos.requires_grad = True
        energy(p, e)
    tape.backward(grads={e: device.array(np.ones(3))})
    np.testing.assert_allclose(pos.grad.numpy(), gpos.numpy())
