# Sphinx configuration of Tack's Python API reference (docs/api/*.rst): autodoc reads
# the docstrings of the installed tack package, and the doctest builder runs their
# examples. Built by scripts/api_docs.sh (HTML into build/api-html, warnings as errors).
import inspect
import re
import types

import tack

project = "Tack"
author = "the Tack authors"
copyright = "the Tack authors"
version = release = tack.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.doctest"]
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path: list = []

# Members in the order the source defines them (the docstrings read best in that order),
# signatures as the source writes them; no type hints from annotations, which would name
# private classes (tack._core.DType, ...) the reader cannot look up.
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_preserve_defaults = True  # dtype=np.float32, not dtype=<class 'numpy.float32'>
autodoc_default_options = {"members": True}

# The examples in the docstrings assume what a user's session has.
doctest_global_setup = "import numpy as np\nimport tack"
doctest_default_flags = 0  # doctest's defaults, plus what an example asks for itself

# Nitpicky (-n): every cross reference must resolve, except to objects outside Tack's
# reference (Python's and NumPy's types, with no intersphinx here: the build is offline).
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|typing|collections\.abc)\..*"),
    (r"py:.*", r"(int|float|bool|str|bytes|object|list|tuple|dict|set|frozenset|type|None|Any|Callable)"),
    (r"py:.*", r"(Exception|ValueError|TypeError|IndexError|RuntimeError|ImportError|UnboundLocalError)"),
    # What the kernel language's functions return: a traced value, described on the language page.
    (r"py:class", r"tack\._core\.Value"),
]

# nanobind writes a property's signature as the first line of its docstring ("(self) -> tuple"); autodoc
# strips a function's signature line but not a property's, so the reference would print it as text.
_NB_PROPERTY_SIGNATURE = re.compile(r"^\(self\)( -> .*)?$")


def _strip_nanobind_signature(app, what, name, obj, options, lines):
    if what in ("property", "attribute") and lines and _NB_PROPERTY_SIGNATURE.match(lines[0]):
        del lines[0]
        while lines and not lines[0].strip():
            del lines[0]


def _inherited_slot_doc(app, what, name, obj, options, lines):
    # A slot documented in a base class's __slots__ dict (tack.vec3.c): autodoc looks in the
    # documented class's own __slots__ only, inspect.getdoc in the class that defines the slot.
    if what == "attribute" and not lines and isinstance(obj, types.MemberDescriptorType):
        lines.extend((inspect.getdoc(obj) or "").splitlines())


def setup(app):
    app.connect("autodoc-process-docstring", _strip_nanobind_signature)
    app.connect("autodoc-process-docstring", _inherited_slot_doc)
