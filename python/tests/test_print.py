# tack.print and tack.print_if from Python kernels: the lines reach fd 2 at the
# next wait after the launch, in work-item order, with values printed exactly; a format that
# does not match its arguments is refused with the Python line.
import numpy as np
import pytest

import tack


@tack.kernel
def show(x: tack.Array):
    for i in tack.parallel(x.size):
        tack.print("i = {} x = {}", i, x[i])
        tack.print("neg {}", i, cond=x[i] < 0)


@tack.kernel
def show_if(out: tack.Array):
    for i, j in tack.parallel(out.shape[0], out.shape[1]):
        out[i, j] = i * 10 + j
        tack.print_if(j == 1, "{{{}, {}}}", i, j)


def test_print_lines_in_work_item_order(device, capfd):
    x = device.array(np.array([1.5, -2.0, 0.1, -0.0], dtype=np.float32))
    capfd.readouterr()
    show(x)
    tack.sync()
    err = capfd.readouterr().err
    assert err == "i = 0 x = 1.5\ni = 1 x = -2\nneg 1\ni = 2 x = 0.1\ni = 3 x = -0\n"


def test_print_lines_come_out_at_the_next_wait(device, capfd):
    x = device.array(np.array([1.0, -1.0], dtype=np.float32))
    capfd.readouterr()
    show(x)
    show(x)
    assert capfd.readouterr().err == "", "a launch returns before its lines are written"
    x.numpy()
    once = "i = 0 x = 1\ni = 1 x = -1\nneg 1\n"
    assert capfd.readouterr().err == once + once


def test_print_lines_before_an_awaited_sync(device, capfd):
    import asyncio

    x = device.array(np.array([2.0], dtype=np.float32))
    capfd.readouterr()
    show(x)
    asyncio.run(tack.sync_async())
    assert capfd.readouterr().err == "i = 0 x = 2\n"


def test_print_if_two_dimensional_and_braces(device, capfd):
    out = device.array(np.zeros((3, 4), dtype=np.int32))
    capfd.readouterr()
    show_if(out)
    tack.sync()
    assert capfd.readouterr().err == "{0, 1}\n{1, 1}\n{2, 1}\n"


def test_print_format_mismatch_names_the_line():
    @tack.kernel
    def bad(x: tack.Array):
        for i in tack.parallel(x.size):
            tack.print("{} {}", i)

    with pytest.raises(tack.InvalidArgument, match=r"has 2 \{\} but 1 argument was given") as e:
        bad(tack.device("interp").array(np.zeros(2, dtype=np.float32)))
    assert "test_print.py" in str(e.value)


def test_python_print_is_refused_in_a_kernel():
    @tack.kernel
    def uses_print(x: tack.Array):
        for i in tack.parallel(x.size):
            print(i)

    with pytest.raises(tack.TypeError, match="tack.print"):
        uses_print(tack.device("interp").array(np.zeros(2, dtype=np.float32)))
