"""The core hook for arrays of vectors and matrices (issue 29): _core.require_element_shape(array,
rows, cols) makes the traced kernel refuse, at the call and before anything runs, an array whose
trailing dimensions are not the element's shape, naming the kernel, the argument (by its Python
name), the shape given and the one expected. The front end's tack.Array[tack.vec3] is built on it;
here a kernel traced through the _core tracing API uses it on plain 2-D and 3-D arrays."""
import inspect

import numpy as np
import pytest

import tack
from tack import _core


def copy_kernel(name, rows, cols):
    """out[i, ...] = a[i, ...] over the element's components, with a's element shape required."""
    line = inspect.currentframe().f_lineno

    def body(params):
        out, a = params
        _core.require_element_shape(a, rows, cols)
        (i,) = _core.begin_parallel([out.size])
        out.store([i], a.load([i]))
        _core.end_parallel()

    return _core.Kernel(name, [(_core.ArgKind.array, None)] * 2, body, __file__, line, ["out", "points"])


def test_trailing_shape_is_checked_at_the_call():
    cpu = tack.device("interp")
    k = copy_kernel("copy_points", 3, 0)
    out = cpu.zeros(6, np.float32)
    k(out, cpu.array(np.arange(6, dtype=np.float32).reshape(2, 3)))
    assert list(out.numpy()) == [0, 1, 2, 3, 4, 5]
    with pytest.raises(tack.InvalidArgument) as e:
        k(out, cpu.zeros((2, 4), np.float32))
    msg = str(e.value)
    assert "kernel 'copy_points'" in msg, msg
    assert "argument 'points' (the 2nd) holds vec3 elements" in msg, msg
    assert "expected an array of shape (..., 3)" in msg, msg
    assert "got shape (2, 4)" in msg, msg


def test_matrix_elements_and_the_ir():
    cpu = tack.device("interp")
    k = copy_kernel("copy_frames", 3, 3)
    out = cpu.zeros(18, np.float32)
    k(out, cpu.zeros((2, 3, 3), np.float32))
    with pytest.raises(tack.InvalidArgument, match=r"holds mat33 elements: .*got shape \(2, 9\)"):
        k(out, cpu.zeros((2, 9), np.float32))
    ir = tack.inspect(k, "interp", tack.ArraySpec(np.float32), tack.ArraySpec(np.float32, 3)).ir
    assert "%1: Array<element 3x3>" in ir, ir
