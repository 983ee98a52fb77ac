# A Python function's source as an AST with the file's real line numbers, and
# the one error format the front end uses ("kernel 'k' at file.py:12: ..."),
# the same as the C++ core's, so every message reads alike.
from __future__ import annotations

import ast
import inspect
import os
import textwrap
from typing import Any, Callable

from .._errors import InvalidArgument


class Source:
    """The parsed `def` of one Python function, with absolute line numbers."""

    __slots__ = ("fn", "file", "node", "line")

    def __init__(self, fn: Callable, node: ast.FunctionDef, file: str):
        self.fn = fn
        self.node = node
        self.file = file
        self.line = node.lineno


def where(file: str, line: int) -> str:
    return f"{file}:{line}" if line else file


def message(who: str, file: str, line: int, what: str) -> str:
    """The text of an error, laid out as the core lays out its own; `who` is
    "kernel 'saxpy'" (or "@tack.func 'sq'" before any kernel uses it)."""
    return f"{who} at {where(file, line)}: {what}"


def who(role: str, name: str) -> str:
    return f"kernel '{name}'" if role == "@tack.kernel" else f"{role} '{name}'"


def parse_function(fn: Any, role: str) -> Source:
    """Reads and parses `fn`'s source. role ("@tack.kernel", "@tack.func")
    names the decorator in errors. Raises tack.InvalidArgument when there is
    no source to read: a function typed at the interactive prompt, made by
    exec(), or a lambda."""
    name = getattr(fn, "__name__", repr(fn))
    if not inspect.isfunction(fn):
        raise InvalidArgument(f"{role} decorates a Python function (def ...), got {type(fn).__name__} {name!r}")
    code = fn.__code__
    file = inspect.getsourcefile(fn) or code.co_filename
    if not (file.startswith("<") and file.endswith(">")):   # "<ipython-input-3-...>": a notebook cell's, kept as is
        file = os.path.abspath(file)
    if fn.__name__ == "<lambda>":
        raise InvalidArgument(message(who(role, name), file, code.co_firstlineno,
                                      f"{role} needs a function defined with def, not a lambda"))
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise InvalidArgument(message(who(role, name), file, code.co_firstlineno,
                                      f"{role} cannot read the source of '{name}' ({e}); Tack parses a kernel's "
                                      "source, so define it in a file (not at the interactive prompt or "
                                      "with exec)")) from None
    text = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        # A def inside an indented block whose body text is less indented than
        # its first line (a multi-line string) defeats dedent; nest it instead.
        try:
            tree = ast.parse("if True:\n" + "".join(lines))
            tree = ast.Module(body=tree.body[0].body, type_ignores=[])
            first -= 1
        except SyntaxError as e:
            raise InvalidArgument(message(who(role, name), file, first, f"{role} cannot parse the source of '{name}': {e}"))
    ast.increment_lineno(tree, first - 1)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not defs or defs[0].name != fn.__name__:
        raise InvalidArgument(message(who(role, name), file, first, f"{role} could not find 'def {name}' in its source"))
    node = defs[0]
    if isinstance(node, ast.AsyncFunctionDef):
        raise InvalidArgument(message(who(role, name), file, node.lineno, f"{role} cannot be an async def"))
    return Source(fn, node, file)
