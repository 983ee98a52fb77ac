"""Kernels defined in a Jupyter / IPython cell: IPython keeps each cell's
source where `inspect` finds it, so @tack.kernel parses it as it parses a
file, and errors name the cell. Run through IPython's own machinery
(InteractiveShell.run_cell), as a notebook kernel runs a cell."""
import pytest

IPython = pytest.importorskip("IPython", reason="IPython is not installed (scripts/install-deps.sh installs it)")
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402


@pytest.fixture
def shell():
    s = InteractiveShell.instance()
    yield s
    s.reset()


def run(shell, code):
    result = shell.run_cell(code, store_history=True)
    return result


def test_a_kernel_defined_in_a_cell_runs(shell):
    r = run(shell, """
import numpy as np
import tack

@tack.kernel
def double(y: tack.Array, x: tack.Array):
    for i in tack.parallel(y.size):
        y[i] = 2 * x[i] if x[i] > 0 else -x[i]

dev = tack.device("cpu")
x = dev.array(np.array([1.0, -2.0, 3.0], np.float32))
y = dev.zeros(3, np.float32)
double(y, x)
got = y.numpy().tolist()
""")
    assert r.success, r.error_in_exec
    assert shell.user_ns["got"] == [2.0, 2.0, 6.0]
    # A later cell calls it again with another dtype: a new variant, the same source.
    r = run(shell, "z = dev.zeros(3, np.float64); double(z, dev.array(np.array([1.0, -2.0, 3.0]))); "
                   "again = z.numpy().tolist()")
    assert r.success, r.error_in_exec
    assert shell.user_ns["again"] == [2.0, 2.0, 6.0]


def test_an_error_in_a_cell_kernel_names_the_cell_and_line(shell):
    r = run(shell, """
import numpy as np
import tack

@tack.kernel
def broken(y: tack.Array):
    for i in tack.parallel(y.size):
        if y[i] > 0:
            t = 1.0
        y[i] = t

try:
    broken(tack.device("cpu").zeros(2, np.float32))
except tack.UnboundNameError as e:
    message = str(e)
""")
    assert r.success, r.error_in_exec
    message = shell.user_ns["message"]
    assert "<ipython-input-" in message and ":9: 't' is read here, but line 8 binds it" in message  # IPython drops the leading blank line
