# Every mistake the Python kernel front end refuses, each with the kernel's
# name and the Python file:line in the message. Kernels are written to small
# module files (so their source can be read), imported, and traced with ir().
import importlib.util
import itertools
import textwrap

import numpy as np
import pytest

import tack

_counter = itertools.count()

HEADER = '''\
import math
import numpy as np
import tack

TABLE = (1.0, 2.0, 3.0)


def plain(v):
    return v


@tack.func
def helper(v):
    if v > 0:
        return v  # HERE:helper
    return -v


@tack.func
def recurse(v):
    return recurse(v)  # HERE:recurse


@tack.func
def ping(v):
    return pong(v)


@tack.func
def pong(v):
    return ping(v)  # HERE:pong


@tack.func
def mixed(v):
    if v > 0:
        return v, v
    return v  # HERE:mixed


@tack.func
def falls_off(v):  # HERE:falls_off
    if v > 0:
        return v


@tack.func
def unknown_result(v):
    if v > 0:  # HERE:unknown_result
        return plain(v)
    return plain(v)


@tack.kernel
def other(y: tack.Array):
    for i in tack.parallel(y.size):
        y[i] = 0.0

'''


def write(tmp_path, source):
    """Writes HEADER + source to a module file; returns (path, text)."""
    text = HEADER + textwrap.dedent(source)
    path = tmp_path / f"kernels_{next(_counter)}.py"
    path.write_text(text)
    return str(path), text


def import_file(path):
    spec = importlib.util.spec_from_file_location(f"kernels_{next(_counter)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load(tmp_path, source):
    path, text = write(tmp_path, source)
    return import_file(path), path, text


def line_of(text, tag="HERE"):
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.rstrip().endswith("# " + tag))


def kernel_source(body):
    return ("@tack.kernel\ndef k(y: tack.Array, x: tack.Array, n: tack.Scalar):\n"
            "    for i in tack.parallel(y.size):\n" + textwrap.indent(textwrap.dedent(body), " " * 8))


def check(excinfo, path, text, *words, tag="HERE"):
    msg = str(excinfo.value)
    assert f"{path}:{line_of(text, tag)}" in msg, msg
    assert msg.startswith("kernel 'k' at ") or msg.startswith("@tack.func"), msg
    for w in words:
        assert w in msg, msg


# ---- refused when the kernel is defined ----------------------------------------------

UNSUPPORTED = {
    "try": ("try:  # HERE\n    y[i] = 1.0\nexcept Exception:\n    pass\n", "'try' statement"),
    "with": ("with open('f') as f:  # HERE\n    pass\n", "'with' statement"),
    "lambda": ("f = lambda v: v  # HERE\n", "lambda"),
    "listcomp": ("t = [v for v in TABLE]  # HERE\n", "list comprehension"),
    "genexp": ("t = sum(v for v in TABLE)  # HERE\n", "generator expression"),
    "global": ("global TABLE  # HERE\n", "'global' statement"),
    "del": ("v = 1\ndel v  # HERE\n", "'del' statement"),
    "fstring": ("s = f'{i}'  # HERE\n", "f-string"),
    "def": ("def inner():  # HERE\n    pass\n", "nested function definition"),
    "class": ("class C:  # HERE\n    pass\n", "class definition"),
    "import": ("import os  # HERE\n", "'import' statement"),
    "raise": ("raise ValueError('x')  # HERE\n", "'raise' statement"),
    "walrus": ("if (v := x[i]) > 0:  # HERE\n    y[i] = v\n", "assignment expression"),
    "slice": ("v = x[1:3]  # HERE\n", "slice"),
    "starred": ("v = tack.max(*TABLE)  # HERE\n", "starred expression"),
    "while_else": ("while x[i] > 0:\n    break\nelse:\n    y[i] = 1.0  # HERE\n", "'else' of a 'while' loop"),
    "for_else": ("for k in range(n):\n    pass\nelse:\n    y[i] = 1.0  # HERE\n", "'else' of a 'for' loop"),
    "return_value": ("return 1.0  # HERE\n", "a kernel returns nothing"),
}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_construct_is_refused_at_definition(tmp_path, name):
    body, words = UNSUPPORTED[name]
    path, text = write(tmp_path, kernel_source(body))
    with pytest.raises(tack.InvalidArgument) as e:
        import_file(path)
    check(e, path, text, words, "not supported" if "return" not in name else "")


ANNOTATIONS = {
    "missing": ("def k(y, x: tack.Array):  # HERE", "parameter 'y' has no annotation"),
    "unknown": ("def k(y: int, x: tack.Array):  # HERE", "parameter 'y' is annotated"),
    "string": ("def k(y: 'tack.Nope', x: tack.Array):  # HERE", "does not evaluate"),
    "default": ("def k(x: tack.Array, y: tack.Array = None):  # HERE", "default value"),
    "varargs": ("def k(x: tack.Array, *rest):  # HERE", "no *args"),
    "bad_dtype": ("def k(y: 'tack.Array[np.complex64]', x: tack.Array):  # HERE", "complex64"),
}


@pytest.mark.parametrize("name", sorted(ANNOTATIONS))
def test_bad_parameters_are_type_errors(tmp_path, name):
    signature, words = ANNOTATIONS[name]
    path, text = write(tmp_path, f"@tack.kernel\n{signature}\n    for i in tack.parallel(x.size):\n        x[i] = 1.0\n")
    with pytest.raises(tack.TypeError) as e:
        import_file(path)
    check(e, path, text, words)


DEVICES = ("interp", "cpu", "opencl")


@pytest.fixture(params=DEVICES)
def dev(request):
    if request.param not in tack.backend_names():
        pytest.skip(f"{request.param}: not in this build")
    try:
        return tack.device(request.param)
    except tack.BackendUnavailable as e:  # no driver or device here; any other error fails the test
        pytest.skip(f"{request.param}: {e}")


def test_fixed_dtypes_refuse_other_dtypes(dev):
    @tack.kernel
    def fill(y: tack.Array[np.float32], v: tack.Scalar[np.int32]):
        for i in tack.parallel(y.size):
            y[i] = tack.cast(v, np.float32)
    y = dev.zeros(4, np.float32)
    fill(y, 7)                                  # a Python int converts to i32
    assert (y.numpy() == 7).all()
    with pytest.raises(tack.TypeError):
        fill(dev.zeros(4, np.float64), 7)
    with pytest.raises(tack.TypeError):
        fill(y, np.float64(1.5))


def test_kernel_without_source_and_lambda():
    namespace = {"tack": tack}
    exec("def k(y: tack.Array):\n    for i in tack.parallel(y.size):\n        y[i] = 1.0\n", namespace)
    with pytest.raises(tack.InvalidArgument, match="cannot read the source"):
        tack.kernel(namespace["k"])
    with pytest.raises(tack.InvalidArgument, match="not a lambda"):
        tack.kernel(lambda y: None)


# ---- refused when the kernel is traced --------------------------------------------------

TRACE_ERRORS = {
    "plain_call": (tack.TypeError, "y[i] = plain(x[i])  # HERE\n", "decorate it with @tack.func"),
    "print": (tack.TypeError, "print(i)  # HERE\n", "cannot be called in a kernel"),
    "len": (tack.TypeError, "y[i] = len(TABLE) + x[i]  # HERE\n", "cannot be called"),
    "math_on_value": (tack.TypeError, "y[i] = math.gamma(x[i])  # HERE\n", "tack's functions"),
    "kernel_call": (tack.TypeError, "other(y)  # HERE\n", "cannot call another kernel"),
    "assign_index": (tack.InvalidArgument, "for k in range(n):\n    k = k + 1  # HERE\n", "index of the range loop"),
    "value_step": (tack.TypeError, "for k in range(0, n, n):  # HERE\n    pass\n", "step"),
    "python_while": (tack.TypeError, "while TABLE:  # HERE\n    pass\n", "condition of a while loop"),
    "parallel_break": (tack.InvalidArgument, "break  # HERE\n", "'break' outside a loop"),
    "static_break": (tack.InvalidArgument, "for s in tack.static_range(3):\n    if x[i] > s:\n"
                                           "        break  # HERE\n", "cannot leave a tack.static_range"),
    "return_middle": (tack.InvalidArgument, "return  # HERE\ny[i] = 1.0\n", "last statement"),
    "index_after_loop": (tack.InvalidArgument, "for k in range(n):\n    pass\ny[i] = k  # HERE\n",
                         "'k' is not defined here"),
    "carried": (tack.InvalidArgument, "for k in range(n):\n    if k > 0:\n        y[k] = prev  # HERE\n"
                                      "    prev = x[k]\n", "read before it is assigned"),
    "undefined": (tack.InvalidArgument, "y[i] = nope  # HERE\n", "name 'nope' is not defined"),
    "table_by_value": (tack.TypeError, "y[i] = TABLE[i]  # HERE\n", "indexed with a traced Value"),
    "unpack_value": (tack.TypeError, "a, b = x[i]  # HERE\n", "cannot unpack"),
    "parallel_expr": (tack.InvalidArgument, "v = tack.parallel(3)  # HERE\n", "iterable of a for loop"),
    "range_expr": (tack.InvalidArgument, "v = range(3)  # HERE\n", "iterable of a for loop"),
    "nested_parallel": (tack.InvalidArgument, "for j in tack.parallel(3):  # HERE\n    pass\n", "outermost"),
    "parallel_targets": None,  # below: needs its own kernel
    "atomic_tuple": (tack.TypeError, "tack.atomic_add(y, (i, 0), 1)  # HERE\n", "flat index"),
    "if_array": (tack.TypeError, "if y:  # HERE\n    pass\n", "condition of an if"),
    "no_attribute": (tack.TypeError, "v = y.nope  # HERE\n", "has no attribute 'nope'"),
    "bare_expression": (tack.InvalidArgument, "x[i] + 1  # HERE\n", "does nothing"),
    "assert_value": (tack.TypeError, "assert x[i] > 0  # HERE\n", "assert on a traced Value"),
    "assert_false": (tack.InvalidArgument, "assert TABLE[0] == 2.0, 'three'  # HERE\n", "three"),
    "is_value": (tack.TypeError, "v = x[i] is None  # HERE\n", "is / in"),
    "var_tuple": (tack.TypeError, "t = 0\nif x[i] > 0:\n    t = (1, 2)  # HERE\ny[i] = t[0]\n", "holds a number"),
    "recursion": (tack.InvalidArgument, "y[i] = recurse(x[i])  # HERE\n", "recursive (recurse -> recurse)"),
    "mutual_recursion": (tack.InvalidArgument, "y[i] = ping(x[i])  # HERE\n", "recursive (ping -> pong -> ping)"),
    "return_structures": (tack.TypeError, "y[i] = mixed(x[i])[0]  # HERE\n", "returns a number here (line"),
    "falls_off": (tack.InvalidArgument, "y[i] = falls_off(x[i])  # HERE\n", "may reach its end without a return"),
    "unknown_result": (tack.TypeError, "y[i] = unknown_result(x[i])  # HERE\n", "cannot tell what"),
    "float_sqrt": (tack.TypeError, "y[i] = tack.sqrt(i)  # HERE\n", "sqrt"),
}


@pytest.mark.parametrize("name", sorted(k for k, v in TRACE_ERRORS.items() if v))
def test_trace_error(tmp_path, name):
    cls, body, words = TRACE_ERRORS[name]
    module, path, text = load(tmp_path, kernel_source(body))
    with pytest.raises(cls) as e:
        if name == "float_sqrt":     # found by the core's type check at the call, with the Python line
            tack.inspect(module.k, "interp", tack.ArraySpec(np.float32, 1), tack.ArraySpec(np.float32, 1), 3)
        else:
            module.k.ir()
    tag = {"recursion": "HERE:recurse", "mutual_recursion": "HERE:pong", "return_structures": "HERE:mixed",
           "falls_off": "HERE:falls_off", "unknown_result": "HERE:unknown_result"}.get(name, "HERE")
    check(e, path, text, words, tag=tag)
    if tag != "HERE":
        assert "in @tack.func" in str(e.value)


def test_parallel_target_count(tmp_path):
    src = ("@tack.kernel\ndef k(y: tack.Array):\n"
           "    for i in tack.parallel(y.shape[0], y.shape[1]):  # HERE\n        y[i] = 1.0\n")
    module, path, text = load(tmp_path, src)
    with pytest.raises(tack.InvalidArgument) as e:
        module.k.ir()
    check(e, path, text, "gives 2 indexes")


def test_a_failed_trace_is_retried_and_lines_stay_exact(tmp_path):
    src = kernel_source("v = x[i]\ny[i] = tack.sqrt(v)  # HERE\n")
    module, path, text = load(tmp_path, src)
    spec = tack.ArraySpec(np.int32, 1)
    for _ in range(2):   # the same message each time: the location is not left over from a trace
        with pytest.raises(tack.TypeError) as e:
            tack.inspect(module.k, "interp", spec, spec, 1)
        check(e, path, text, "sqrt")
    ok = tack.inspect(module.k, "interp", tack.ArraySpec(np.float32, 1), tack.ArraySpec(np.float32, 1), 1.0)
    assert "sqrt" in ok.typed_ir


def test_future_annotations_resolve_in_the_functions_globals(tmp_path):
    path = tmp_path / "future_kernels.py"
    path.write_text("from __future__ import annotations\nimport numpy as np\nimport tack as tk\n\n"
                    "@tk.kernel\ndef k(y: tk.Array[np.float32], n: tk.Scalar, t: tk.Texture3D):\n"
                    "    for i in tk.parallel(n):\n        y[i] = t.sample(0.5, 0.5, 0.5)\n")
    assert "kernel k(%0: Array<f32>, %1: Scalar, %2: Texture3D" in import_file(str(path)).k.ir()
