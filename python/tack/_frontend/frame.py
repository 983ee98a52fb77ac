# The scope of one kernel or one inlined @tack.func call (Frame), and the
# exceptions that carry Python's break, continue and return out of bodies run
# at trace time. Below the tracer's mixins, which all use them: calls.py
# opens a Frame per inlined call, control.py catches Break and Continue.
from __future__ import annotations

import ast
import builtins
from typing import Any

from .source import Source


class Break(Exception):
    """Leaves a loop unrolled at trace time (tack.static_range)."""


class Continue(Exception):
    pass


class Return(Exception):
    def __init__(self, value: Any):
        super().__init__()
        self.value = value


class Frame:
    """The scope of one kernel or one inlined @tack.func call."""

    def __init__(self, tracer: Any, src: Source, role: str, name: str, local_values: dict):
        fn = src.fn
        self.src = src
        self.role = role                 # "kernel" or "func"
        self.name = name
        self.globals = fn.__globals__
        self.closure = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        self.locals = local_values
        self.local_names = set(fn.__code__.co_varnames) | set(fn.__code__.co_cellvars)
        self.ctl: list = []              # the enclosing bodies: if/else/for/while (traced), static, parallel
        self.ended: dict = {}            # name -> where it was bound, for names of bodies that have ended
        self.range_indices: dict = {}    # name -> line, for the indices of the range loops being traced
        # Names that are Vars but not bound on every path to here (first bound
        # inside a traced body): name -> the line of that if/for/while.
        self.unbound: dict = {}
        self.bound_in: list = []         # per traced body being run: the names it binds on every path
        self.outer_names: list = []      # per traced body being run: (the names bound before it, its kind, line)
        self.first_bound: dict = {}      # name -> the line that first bound it
        self.ret = None                  # a @tack.func's result Vars, once a return is traced inside control flow
        self.terminated = False          # whether every path through the code traced so far has returned
        self.reads = tracer.reads
        self.analysis = tracer.analysis_of(src, self)

    def lookup_outer(self, name: str) -> tuple:
        """A name that is not a local: closure cell, then globals, then builtins.
        What it finds is noted (guards.py): a later call checks it is unchanged."""
        cell = self.closure.get(name)
        if cell is not None:
            try:
                value = cell.cell_contents
            except ValueError:
                return False, None
            self.reads.note(cell, None, value)
            return True, value
        if name in self.globals:
            value = self.globals[name]
            self.reads.note(self.globals, name, value)
            return True, value
        b = self.globals.get("__builtins__", builtins)
        b = b if isinstance(b, dict) else vars(b)
        return (True, b[name]) if name in b else (False, None)

    def resolve_static(self, node: ast.expr) -> Any:
        """What a dotted name (range, tack.parallel) refers to, without running
        anything; None when it names a local or is not a dotted name."""
        if isinstance(node, ast.Name):
            if node.id in self.local_names:
                return None
            return self.lookup_outer(node.id)[1]
        if isinstance(node, ast.Attribute):
            base = self.resolve_static(node.value)
            return None if base is None else getattr(base, node.attr, None)
        return None
