# The Python package's shape, read from its source: every module imports the
# package's modules at its top (none inside a function, which is how an import
# circle hides), the package-internal import graph has no cycle, and the tracer
# runs each AST node kind from one table whose entries match its methods (a
# kind it does not list is refused, naming it). And the public classes carry
# their Python methods in their own bodies: no module puts attributes on
# _core's types, and every device and array _core makes is a tack.Device or
# tack.Array.
import ast
import enum
import pathlib
import re
import types

import numpy as np
import pytest

import tack
from tack._frontend import tracer

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "tack"


def modules():
    """Each module of the package: its dotted name, whether it is a package's
    __init__, and its parsed source."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("tack",) + path.relative_to(PACKAGE).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        yield name, is_package, ast.parse(path.read_text(), str(path))


def imported(name, is_package, node):
    """The package's modules an import statement names (a `from . import x`
    names x when x is a module, else the package)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "tack"]
    if node.level == 0:
        base = node.module or ""
        if base.split(".")[0] != "tack":
            return []
    else:
        here = name.split(".") if is_package else name.split(".")[:-1]
        base = ".".join(here[:len(here) - (node.level - 1)] + ([node.module] if node.module else []))
    return [base] + [f"{base}.{a.name}" for a in node.names if a.name != "*"]


def local_imports(tree):
    """Import statements inside a function or class body, in source order."""
    found = {}
    for scope in ast.walk(tree):
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            for node in ast.walk(scope):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    found[id(node)] = node          # a method is inside its class too: once
    return sorted(found.values(), key=lambda node: node.lineno)


def test_the_package_has_modules_to_check():
    names = {name for name, _, _ in modules()}
    assert {"tack", "tack._kernel", "tack._frontend", "tack._frontend.tracer"} <= names


def test_no_module_imports_the_package_inside_a_function():
    found = []
    for name, is_package, tree in modules():
        for node in local_imports(tree):
            relative = isinstance(node, ast.ImportFrom) and node.level > 0
            if relative or imported(name, is_package, node):
                found.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "function-local imports of the package's modules:\n" + "\n".join(found)


def test_the_package_import_graph_has_no_cycle():
    trees = {name: (is_package, tree) for name, is_package, tree in modules()}
    graph = {}
    for name, (is_package, tree) in trees.items():
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in imported(name, is_package, node):
                    # Importing a.b.c runs a/__init__ and a/b/__init__ first;
                    # the importer's own packages are already being imported.
                    parts = target.split(".")
                    for k in range(1, len(parts) + 1):
                        prefix = ".".join(parts[:k])
                        if prefix in trees and prefix != name and not name.startswith(prefix + "."):
                            edges.add(prefix)
        graph[name] = sorted(edges)

    state = {}          # name -> "open" while on the path, "done" after

    def visit(name, path):
        state[name] = "open"
        for target in graph[name]:
            if state.get(target) == "open":
                cycle = path[path.index(target):] + [target]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, path + [target])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


@pytest.mark.parametrize("table, prefix", [(tracer._STATEMENTS, "stmt_"), (tracer._EXPRESSIONS, "expr_")])
def test_each_node_kind_the_tracer_runs_is_in_its_table(table, prefix):
    methods = {name: getattr(tracer.Tracer, name) for name in dir(tracer.Tracer) if name.startswith(prefix)}
    assert {getattr(ast, name[len(prefix):]): fn for name, fn in methods.items()} == table


@pytest.mark.parametrize("node, run, words", [
    (ast.Global(names=["x"], lineno=3), "exec_stmt", "at f.py:3: a 'Global' statement is not supported in a kernel"),
    (ast.Slice(lineno=4), "eval", "at f.py:4: Slice expressions are not supported in a kernel"),
])
def test_a_node_kind_outside_the_tables_is_refused_by_its_name(node, run, words):
    # validate() refuses these before tracing; the tracer's own refusal is the
    # backstop for a kind it does not list, reached here directly.
    t = tracer.Tracer("k")
    t.frame = types.SimpleNamespace(src=types.SimpleNamespace(file="f.py", line=1), role="kernel", name="k")
    try:
        with pytest.raises(tack.InvalidArgument, match=re.escape(f"kernel 'k' {words}")):
            getattr(t, run)(node)
    finally:
        tack._core.set_location(None, 0)


def core_type_attributes(tree):
    """Assignments and setattr calls that put an attribute on a _core type: `_core.X.y = ...`
    (also augmented or annotated) and `setattr(_core.X, ...)`, as (line, source)."""
    def on_core_type(node):
        return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                and isinstance(node.value.value, ast.Name) and node.value.value.id == "_core")

    found = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
              and node.args and isinstance(node.args[0], ast.Attribute)
              and isinstance(node.args[0].value, ast.Name) and node.args[0].value.id == "_core"):
            found.append((node.lineno, ast.unparse(node)))
        found += [(node.lineno, ast.unparse(node)) for t in targets if on_core_type(t)]
    return found


def test_no_module_puts_attributes_on_core_types():
    found = [f"{name}:{line}: {src}" for name, _, tree in modules() for line, src in core_type_attributes(tree)]
    assert not found, ("attributes put on _core's types (define them in the Python class's body):\n" +
                       "\n".join(found))


def python_made(value):
    """Whether a class attribute is a function written in Python (or a property, classmethod or
    staticmethod of one), rather than one of nanobind's C++ functions."""
    for attr in ("fget", "__func__"):
        value = getattr(value, attr, value)
    return isinstance(value, types.FunctionType)


@pytest.mark.parametrize("name", sorted(n for n, v in vars(tack._core).items()
                                        if isinstance(v, type) and not issubclass(v, enum.Enum)))
def test_core_types_hold_only_their_cpp_methods(name):  # (nanobind makes enums Python enum.Enum classes)
    cls = getattr(tack._core, name)
    assert not [n for n, v in vars(cls).items() if python_made(v)], f"_core.{name} holds Python functions"


@pytest.mark.parametrize("cls, methods", [
    (tack.Array, {"dtype", "numpy", "numpy_async", "read_range", "__array__", "__dlpack__", "__dlpack_device__",
                  "__repr__", "__len__", "__class_getitem__"}),
    (tack.Device, {"array", "zeros", "empty", "empty_exportable", "capabilities", "synchronize_async"}),
    (tack.Kernel, {"precompile", "__repr__"}),
])
def test_public_classes_define_their_methods_in_their_class_body(cls, methods):
    assert cls.__module__.startswith("tack.") and tack._core.__name__ not in cls.__module__
    own = {n: v for n, v in vars(cls).items() if python_made(v)}
    assert methods <= set(own), f"tack.{cls.__name__} lacks {sorted(methods - set(own))} in its own body"
    for n, v in own.items():
        for attr in ("fget", "__func__"):
            v = getattr(v, attr, v)
        assert v.__qualname__ == f"{cls.__name__}.{n}", f"tack.{cls.__name__}.{n} is {v.__qualname__}, " \
                                                         "a function defined elsewhere"


def test_every_device_and_array_the_core_makes_is_of_the_public_class():
    dev = tack.device("interp")
    a = dev.array(np.arange(8, dtype=np.float32))
    host = np.zeros(8, np.float32)
    made = [dev.zeros(4), dev.empty(4), a, a.device, tack.from_dlpack(host),
            tack.array_from_ptr(dev, host.ctypes.data, np.float32, 8, keep_alive=host),
            tack.texture3d(dev.zeros(8), (2, 2, 2)).device]
    assert [type(x) for x in made] == [tack.Array] * 3 + [tack.Device] + [tack.Array] * 2 + [tack.Device]
