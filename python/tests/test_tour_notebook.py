"""examples/python/tour.ipynb, the notebook tour of Tack, runs from top to bottom in a headless Jupyter kernel
and shows what it says it shows; and it is stored clean, without outputs.

The kernel is ipykernel's own "python3" run by this test's Python (the venv's), not a kernelspec found
elsewhere on the machine, and the test checks from inside the kernel that it imports the tack installed here.
Every cell has a time limit, and nbclient raises CellExecutionError at the first cell that fails."""
import json
import os
import pathlib
import sys

import pytest

import tack

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"
NOTEBOOK = EXAMPLES / "tour.ipynb"
CELL_TIMEOUT_S = 120  # the slowest cell (the cavity) takes seconds on two slow cores; compiles included


def test_the_notebook_is_stored_without_outputs():
    nb = json.loads(NOTEBOOK.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, "the notebook has no code cells"
    for c in code:
        assert c["outputs"] == [] and c["execution_count"] is None, f"a cell was stored with its outputs: {c['source']}"
    assert nb["metadata"]["kernelspec"]["name"] == "python3"


def outputs_of(cell):
    """The text a cell printed (stdout, stderr, results) and the MIME types it displayed."""
    text, mimes = [], set()
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            text.append(out["text"])
        elif out["output_type"] in ("execute_result", "display_data"):
            mimes.update(out["data"])
            text.append(out["data"].get("text/plain", ""))
    return "".join(text), mimes


def test_the_tour_runs_in_a_kernel_of_this_python(tmp_path, monkeypatch):
    for module in ("nbformat", "nbclient", "ipykernel", "matplotlib", "tqdm"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install nbclient nbformat ipykernel "
                                           "matplotlib tqdm)")
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    # Which Python and which tack the kernel runs, asked from inside it.
    nb.cells.append(nbformat.v4.new_code_cell("import sys, tack\nprint(sys.executable)\nprint(tack.__file__)"))
    # The kernel inherits this environment: figures through the inline backend (rendered by Agg, no display),
    # the CPU device whatever TACK_DEVICE says, and Jupyter's and IPython's files in tmp_path, not in $HOME.
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    monkeypatch.setenv("TACK_DEVICE", "cpu")
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    # No kernelspec folders but an empty one: "python3" is then ipykernel's built-in spec, which starts
    # sys.executable, never a "python3" kernelspec some other installation put on the machine.
    specs = KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")])
    assert specs.get_kernel_spec("python3").argv[0] == sys.executable
    km = KernelManager(kernel_name="python3", kernel_spec_manager=specs)
    client = NotebookClient(nb, km=km, timeout=CELL_TIMEOUT_S, allow_errors=False,
                            resources={"metadata": {"path": str(EXAMPLES)}})   # the cwd: `import cavity` works
    client.execute()

    cells = [outputs_of(c) for c in nb.cells if c.cell_type == "code"]
    text = "\n".join(t for t, _ in cells)
    executable, tack_file = cells[-1][0].split()
    assert os.path.realpath(executable) == os.path.realpath(sys.executable)
    assert os.path.realpath(tack_file) == os.path.realpath(tack.__file__)
    assert "device: cpu" in text
    assert "y = 2 x + 1 = [ 1.  3.  5.  7.  9. 11. 13. 15.]" in text
    assert "kernel saxpy(" in text and "parallel_for" in text
    assert "steady after" in text and "largest deviation from Ghia et al." in text
    assert any("image/png" in mimes for _, mimes in cells), "no figure was drawn"
    assert "NumPy sees: [ 0.  3.  6.  9. 12. 15.]" in text
    assert "Tack sees: [1. 2. 3. 4.] - sum: 10.0" in text
