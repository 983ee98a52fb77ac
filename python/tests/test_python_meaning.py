"""A Python kernel means what the same Python means (docs/python.md, "Python
semantics in kernels"): each rule on interp, cpu and opencl, checked against
NumPy or Python computed here, never against another backend. The first ten
tests are the programs a new user wrote that gave wrong answers before."""
import importlib.util
import inspect

import numpy as np
import pytest

import tack

SCALE = 2.0          # a module global a kernel reads (test_a_changed_global_retraces)


# ---- the ten programs ------------------------------------------------------------

@tack.kernel
def ramp(y: tack.Array, n: tack.Scalar):
    for i in tack.parallel(y.size):
        y[i] = i / n


def test_division_of_integers_is_true_division(device):
    if not device.capabilities.supports_f64:
        pytest.skip(f"{device.name} has no float64")
    y = device.zeros(8, np.float64)
    ramp(y, 8)
    np.testing.assert_array_equal(y.numpy(), np.arange(8) / 8)


@tack.kernel
def wrap_index(y: tack.Array, x: tack.Array, period: tack.Scalar):
    for i in tack.parallel(y.size):
        y[i] = (i - 2) % 4 + x[i] % period


def test_remainder_takes_the_sign_of_the_divisor(device):
    x = np.array([-1.5, 1.5, -4.0, 7.25], np.float32)
    y = device.zeros(4, np.float32)
    wrap_index(y, device.array(x), 2.0)
    np.testing.assert_array_equal(y.numpy(), (np.arange(4) - 2) % 4 + x % np.float32(2.0))


@tack.kernel
def last_of(y: tack.Array, x: tack.Array, m: tack.Array):
    for i in tack.parallel(y.size):
        y[i] = x[-1] + m[i % 2, -1] + m.shape[-1]


def test_negative_constant_indices_count_from_the_end(device):
    x = np.arange(5, dtype=np.float32)
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = device.zeros(4, np.float32)
    last_of(y, device.array(x), device.array(m))
    expected = [x[-1] + m[i % 2, -1] + m.shape[-1] for i in range(4)]
    np.testing.assert_array_equal(y.numpy(), expected)


@tack.kernel
def bound_on_one_path(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        if x[i] > 2:
            t = x[i]                         # line A
        y[i] = t                             # line B


def test_a_name_bound_on_some_paths_only_is_an_error(device):
    y = device.zeros(4, np.float32)
    with pytest.raises(tack.UnboundNameError) as e:
        bound_on_one_path(y, device.array(np.arange(4, dtype=np.float32)))
    assert isinstance(e.value, UnboundLocalError)
    lines, first = inspect.getsourcelines(bound_on_one_path.python_function)
    line_a = first + next(k for k, text in enumerate(lines) if "# line A" in text)
    line_b = first + next(k for k, text in enumerate(lines) if "# line B" in text)
    assert f":{line_b}: 't' is read here, but line {line_a} binds it only on some paths" in str(e.value)


@tack.kernel
def blur(out: tack.Array, img: tack.Array):
    for i in tack.parallel(out.size):
        s = 0
        for k in range(3):
            s += img[i + k]
        t = 0
        for k in tack.static_range(3):        # unrolled: the same rule
            t += img[i + k]
        out[i] = s + t


def test_an_integer_accumulator_from_a_python_int_does_not_wrap(device):
    img = np.full(6, 200, np.uint8)
    out = device.zeros(4, np.int64)
    blur(out, device.array(img))
    np.testing.assert_array_equal(out.numpy(), [1200] * 4)


@tack.kernel
def nanoseconds(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        y[i] = int(x[i] * 1e9) + round(x[i])


def test_int_is_64_bits_and_round_ties_to_even(device):
    x = np.array([-3.5, 2.5, 0.5, 1.5], np.float64)
    if not device.capabilities.supports_f64:
        pytest.skip(f"{device.name} has no float64")
    y = device.zeros(4, np.int64)
    nanoseconds(y, device.array(x))
    np.testing.assert_array_equal(y.numpy(), [int(v * 1e9) + round(v) for v in x])


@tack.kernel
def scaled(y: tack.Array):
    for i in tack.parallel(y.size):
        y[i] = SCALE * i


def test_a_changed_global_retraces(device):
    global SCALE
    y = device.zeros(3, np.float32)
    SCALE = 2.0
    scaled(y)
    np.testing.assert_array_equal(y.numpy(), [0, 2, 4])
    SCALE = 5.0
    scaled(y)
    np.testing.assert_array_equal(y.numpy(), [0, 5, 10])
    SCALE = 5.0 * 1.0                     # another object, the same value: no new trace needed
    scaled(y)
    np.testing.assert_array_equal(y.numpy(), [0, 5, 10])


@tack.kernel
def guarded(y: tack.Array, x: tack.Array, n: tack.Scalar):
    for i in tack.parallel(y.size):
        y[i] = x[i] if i < n else 0.0
        if 1 <= i < 5 and x[i - 1] > 0:      # x[i - 1] would be out of range at i = 0 and i = 5
            y[i] += 100.0
        if i == 0 or i > 4 or x[i - 1] < 0:
            y[i] += 1000.0


def test_guards_do_not_evaluate_the_side_not_taken(device):
    x = device.array(np.arange(4, dtype=np.float32))
    y = device.zeros(6, np.float32)
    tack.set_debug(True)                      # any out-of-range read raises at the next wait
    try:
        guarded(y, x, 4)
        got = y.numpy()
    finally:
        tack.set_debug(False)
    np.testing.assert_array_equal(got, [1000, 1, 102, 103, 100, 1000])


@tack.kernel
def small_powers(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        v = x[i]
        y[i] = v ** 2 + v ** 3 - v ** -1 + v ** 0.5 + v ** 0


@tack.kernel
def general_power(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        y[i] = x[i] ** 1.5


def test_small_integer_powers_are_multiplications(device):
    x = np.array([0.5, 1.5, 2.0, 3.0], np.float32)
    y = device.zeros(4, np.float32)
    small_powers(y, device.array(x))
    np.testing.assert_allclose(y.numpy(), x ** 2 + x ** 3 - 1 / x + np.sqrt(x) + 1, rtol=1e-6)
    ir = tack.inspect(small_powers, "interp", tack.ArraySpec(np.float32), tack.ArraySpec(np.float32)).ir
    assert "pow(" not in ir and "sqrt(" in ir
    assert "pow(" in tack.inspect(general_power, "interp", tack.ArraySpec(np.float32),
                                 tack.ArraySpec(np.float32)).ir


def test_unsupported_dtypes_are_refused(device):
    with pytest.raises(tack.TypeError, match="float16"):
        device.array(np.zeros(4, np.float16))


def test_messages_name_python_constructs_and_parameters(device):
    @tack.kernel
    def needs_float(y: tack.Array, x: tack.Array[np.float32]):
        for i in tack.parallel(y.size):
            y[i] = tack.sqrt(y[i])

    with pytest.raises(tack.TypeError) as e:
        needs_float(device.zeros(2, np.float32), device.zeros(2, np.float64))
    assert "argument 'x' (the 2nd)" in str(e.value) and "tack.Array[np.float32]" in str(e.value)
    with pytest.raises(tack.TypeError) as e:
        needs_float(device.zeros(2, np.int32), device.zeros(2, np.float32))
    assert "tack.cast(x, np.float32)" in str(e.value) and "cast<" not in str(e.value)


# ---- the rules one by one ----------------------------------------------------------

@tack.kernel
def floor_pair(q: tack.Array, r: tack.Array, a: tack.Array, b: tack.Array):
    for i in tack.parallel(q.size):
        q[i], r[i] = divmod(a[i], b[i])
        q[i] += a[i] // b[i] - q[i]           # // is the quotient of divmod


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_floor_division_and_divmod_as_python(device, dtype):
    if dtype == np.float64 and not device.capabilities.supports_f64:
        pytest.skip(f"{device.name} has no float64")
    a = np.array([7, -7, 7, -7, 0, 5], dtype)
    b = np.array([2, 2, -2, -2, 3, -3], dtype)
    q, r = device.zeros(6, dtype), device.zeros(6, dtype)
    floor_pair(q, r, device.array(a), device.array(b))
    np.testing.assert_array_equal(q.numpy(), a // b)
    np.testing.assert_array_equal(r.numpy(), a % b)


@tack.kernel
def truth(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        v = x[i]
        n = 0
        while v:                               # while v != 0
            v = v // 2
            n += 1
        if x[i]:
            n += 100
        if not x[i]:
            n += 1000
        y[i] = n + bool(x[i]) * 10000


def test_truthiness_of_traced_numbers(device):
    x = np.array([0, 1, 5, 8], np.int32)
    y = device.zeros(4, np.int32)
    truth(y, device.array(x))

    def python(v):
        n, w = 0, int(v)
        while w:
            w //= 2
            n += 1
        return n + (100 if v else 0) + (0 if v else 1000) + bool(v) * 10000
    np.testing.assert_array_equal(y.numpy(), [python(v) for v in x])


@tack.kernel
def rows(y: tack.Array, m: tack.Array):
    for i in tack.parallel(y.size):
        y[i] = m[i][1] + np.sqrt(m[i][0]) + abs(np.minimum(m[i][0], -1.0))


def test_chained_subscripts_and_numpy_functions(device):
    m = np.arange(8, dtype=np.float32).reshape(4, 2)
    y = device.zeros(4, np.float32)
    rows(y, device.array(m))
    np.testing.assert_allclose(y.numpy(), m[:, 1] + np.sqrt(m[:, 0]) + np.abs(np.minimum(m[:, 0], -1.0)),
                               rtol=1e-6)


def test_keyword_arguments_at_the_call(device):
    x = device.array(np.arange(4, dtype=np.float32))
    y = device.zeros(4, np.float32)
    guarded(x=x, n=4, y=y)
    np.testing.assert_array_equal(y.numpy(), [1000, 1, 102, 103])
    with pytest.raises(tack.TypeError, match="unexpected keyword argument 'z'"):
        guarded(y, x, z=1)
    with pytest.raises(tack.TypeError, match="missing argument 'n'"):
        guarded(y, x)


def test_a_kernel_of_more_parameters_than_the_limit_is_refused_naming_it(device, tmp_path):
    # 33 parameters, in a file of its own (a kernel's source must be in a file).
    names = ", ".join(f"a{i}: tack.Scalar" for i in range(32))
    path = tmp_path / "many_parameters.py"
    path.write_text("import tack\n\n\n@tack.kernel\n"
                    f"def many(y: tack.Array, {names}):\n"
                    "    for i in tack.parallel(y.size):\n"
                    "        y[i] = a0 + a31\n")
    spec = importlib.util.spec_from_file_location("many_parameters", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    y = device.zeros(4, np.float32)
    with pytest.raises(tack.InvalidArgument, match="got 33 arguments; at most 32 are supported"):
        module.many(y, *([1.0] * 32))
    np.testing.assert_array_equal(y.numpy(), np.zeros(4, np.float32))


TAPS = (0.25, 0.5, 0.25)


@tack.kernel
def elif_chain(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        v = x[i]
        if v > 1:
            k = 0
            y[i] = TAPS[k] * v                 # k holds a Python int here: indexes a tuple
        elif v > 0:
            k = 1
            y[i] = TAPS[k] * v
        else:
            k = 2
            y[i] = TAPS[k] * v - 1


def test_a_name_rebound_in_elif_branches_stays_a_python_value(device):
    x = np.array([2.0, 0.5, -1.0, 4.0], np.float32)
    y = device.zeros(4, np.float32)
    elif_chain(y, device.array(x))
    np.testing.assert_array_equal(y.numpy(), np.where(x > 1, 0.25 * x, np.where(x > 0, 0.5 * x, 0.25 * x - 1)))


@tack.kernel
def shape_names(y: tack.Array, m: tack.Array):
    h, w = m.shape
    for i in tack.parallel(y.size):
        y[i] = h * 10 + w


def test_unpacking_a_shape_fixes_the_rank(device):
    y = device.zeros(1, np.int64)
    shape_names(y, device.zeros((3, 4), np.float32))
    assert y.numpy()[0] == 34
    with pytest.raises(tack.InvalidArgument, match="argument 'm' \\(the 2nd\\) has rank 3 here, but this line needs "
                                                  "rank 2: it unpacks the shape into 2 names"):
        shape_names(y, device.zeros((2, 3, 4), np.float32))    # Python's ValueError: too many values to unpack


@tack.kernel
def shifted(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        y[i] = x[i - 1]                        # a traced index: -1 at i = 0 is out of range, not the last


def test_a_traced_negative_index_is_out_of_range_in_debug_mode(device):
    x = device.array(np.arange(4, dtype=np.float32))
    y = device.zeros(4, np.float32)
    tack.set_debug(True)
    try:
        with pytest.raises(tack.IndexError, match="-1"):
            shifted(y, x)
            y.numpy()
    finally:
        tack.set_debug(False)


def test_numpy_reading_a_device_array_gets_a_hint():
    from conftest import make_device
    dev = make_device("opencl")
    a = dev.array(np.arange(3, dtype=np.float32))
    with pytest.raises(BufferError, match=r"a\.numpy\(\)"):
        np.from_dlpack(a)                     # NumPy reads host memory and does not ask where a lives
    np.testing.assert_array_equal(np.from_dlpack(a, device="cpu"), [0, 1, 2])
    # A consumer that takes device memory asks where the array lives first, and gets it in place.
    assert a.__dlpack_device__()[0] != 1
    assert type(a.__dlpack__()).__name__ == "PyCapsule"
    # On a host device NumPy reads it in place.
    h = make_device("cpu").array(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(np.from_dlpack(h), [0, 1, 2])


@tack.kernel
def leaky(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        v = x[i]
        y[i] = v if v > 0 else 0.125 * v       # both sides plain arithmetic: a select, no branch


def test_a_guard_is_a_branch_only_where_a_side_reads_memory():
    spec = (tack.ArraySpec(np.float32), tack.ArraySpec(np.float32))
    plain = tack.inspect(leaky, "interp", *spec).ir
    assert "select(" in plain and "if " not in plain
    read = tack.inspect(guarded, "interp", *spec, 4).ir
    assert "if lt(index0, %2) {" in read and "select(" not in read     # x[i] if i < n else 0.0
