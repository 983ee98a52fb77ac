"""The Python API reference (docs/api, Sphinx autodoc) covers the whole public API, and the package ships
its type information. Public names are those in tack.__all__ if the package defines one, else every name of
the tack module that does not start with an underscore. Each must have a docstring of its own (for a class,
so must its public methods, properties and fields) and an autodoc directive in docs/api/*.rst, so a new
public name without both fails here. The docstrings' examples run as doctests (Sphinx's doctest builder,
when Sphinx is installed); scripts/api_docs.sh also builds the HTML, nitpicky, and runs mypy."""
import inspect
import pathlib
import re
import subprocess
import sys

import pytest

import tack

ROOT = pathlib.Path(__file__).resolve().parents[2]
API_DOCS = ROOT / "docs" / "api"
DIRECTIVE = re.compile(r"^\.\.\s+auto(?:function|class|exception|data|attribute|decorator)::\s+tack\.(\w+)",
                       re.MULTILINE)
NANOBIND = ("nb_func", "nb_method", "nb_bound_method")
# The signature line nanobind begins a docstring with: "sum(self) -> int | float", or "(self) -> tuple" for a
# property it was given no docstring for.
NANOBIND_SIGNATURE = re.compile(r"^\w*\(.*\)( -> .+)?$")


def public_names():
    names = getattr(tack, "__all__", None)
    if names is None:
        names = [n for n in dir(tack) if not n.startswith("_")]
    return sorted(n for n in names if not inspect.ismodule(getattr(tack, n)))


def docstring(obj):
    """The documentation obj carries itself: a class's own docstring (not one inherited from its base), a
    slot's from its class's __slots__ dict, and for nanobind's functions, methods and properties the text
    after the signature lines nanobind puts first."""
    if inspect.isclass(obj):
        text = obj.__dict__.get("__doc__")
    elif isinstance(obj, (classmethod, staticmethod)):
        text = obj.__func__.__doc__
    elif inspect.ismemberdescriptor(obj):
        text = inspect.getdoc(obj)
    else:
        text = getattr(obj, "__doc__", None)
    if not isinstance(text, str):
        return ""
    if type(getattr(obj, "fget", obj)).__name__ in NANOBIND:
        lines = text.splitlines()
        while lines and NANOBIND_SIGNATURE.match(lines[0]):
            del lines[0]
        text = "\n".join(lines)
    return text.strip()


def public_members(cls):
    """(name, the attribute as the class holds it) for each public attribute a class of Tack's defines or
    inherits from another class of Tack's (not object's, Exception's or typing's)."""
    for name in dir(cls):
        if name.startswith("_"):
            continue
        owner = next((c for c in cls.__mro__ if name in c.__dict__), None)
        if owner is not None and owner.__module__.split(".")[0] == "tack":
            yield name, owner.__dict__[name]


PUBLIC = public_names()


def test_the_public_api_is_found():
    # A sanity check of the discovery itself, with names from each area.
    for name in ("device", "Array", "kernel", "parallel", "sqrt", "vec3", "adjoint", "Tape", "Error",
                 "from_dlpack", "Texture", "Inspection", "backend_names"):
        assert name in PUBLIC


@pytest.mark.parametrize("name", PUBLIC)
def test_each_public_name_has_a_docstring(name):
    obj = getattr(tack, name)
    assert docstring(obj), f"tack.{name} has no docstring"
    if inspect.isclass(obj):
        missing = [m for m, attr in public_members(obj) if not docstring(attr)]
        assert not missing, f"tack.{name}: no docstring for {', '.join(missing)}"


def documented():
    """The names docs/api/*.rst gives an autodoc directive (tack.<name>), each with the page it is on."""
    out = {}
    for page in sorted(API_DOCS.glob("*.rst")):
        for name in DIRECTIVE.findall(page.read_text()):
            out.setdefault(name, page.name)
    return out


def test_each_public_name_is_in_the_reference():
    pages = documented()
    missing = [n for n in PUBLIC if n not in pages]
    assert not missing, ("public names with no autodoc directive in docs/api/*.rst (add `.. autofunction:: "
                         f"tack.<name>` or autoclass to the page of their area): {', '.join(missing)}")
    # And the reverse: a directive for a name that is gone (Sphinx would fail to import it).
    stale = sorted(n for n in pages if not n.startswith("_") and n not in PUBLIC)
    assert not stale, f"docs/api names what tack no longer has: {', '.join(stale)}"


def test_the_package_ships_its_type_information():
    # PEP 561: mypy reads an installed package's annotations only where py.typed is beside them, and
    # _core.pyi is the native module's only description. Both must be package data of the wheel.
    here = pathlib.Path(tack.__file__).parent
    for name in ("py.typed", "_core.pyi"):
        assert (here / name).is_file(), f"{name} is not installed beside {tack.__file__}"


def test_the_docstring_examples_run(tmp_path):
    pytest.importorskip("sphinx", reason="Sphinx is not installed (pip install sphinx)")
    # -W: a docstring that is not valid reStructuredText fails too. The doctests are the examples of the
    # docstrings autodoc puts on the pages, run against the installed tack.
    r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "doctest", "-W", "--keep-going", "-q",
                        "-d", str(tmp_path / "doctrees"), str(API_DOCS), str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=300)
    report = (tmp_path / "out" / "output.txt")
    assert r.returncode == 0, r.stdout + r.stderr + (report.read_text() if report.exists() else "")
    assert " 0 failures in tests" in report.read_text()
