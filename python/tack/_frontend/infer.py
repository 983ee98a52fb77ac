# The structure (composite.py) an expression will have, read from its AST
# before it is traced. A traced body cannot declare a Var its surroundings
# read afterwards, so what a @tack.func returns from inside traced control
# flow (and a composite first assigned inside an if) must be known, as Vars,
# before that body is traced: from a tuple display, a tack.vec3(...) or struct
# constructor, a vector function, or a name already bound (or assigned
# somewhere in the function).
from __future__ import annotations

import ast
import builtins
from typing import Any, Optional

import numpy as np

from .. import _core
from . import vecfuncs
from .builtins import KERNEL_FUNCTIONS
from .composite import LEAF, CompositeVar, NotComposite, flatten, struct_structure
from .elements import ElementArray
from .frame import Frame
from .func import Func
from .structs import is_struct
from .vectors import ALL_TYPES, MATRICES, VECTORS, Mat, Vec, quat, vec3

_SCALAR_RESULT = {vecfuncs.dot, vecfuncs.length, vecfuncs.length_sq, vecfuncs.determinant, vecfuncs.trace}
_SAME_AS_FIRST = {vecfuncs.normalize, vecfuncs.transpose, vecfuncs.inverse, vecfuncs.quat_conjugate}
_NUMBER_BUILTINS = (builtins.abs, builtins.min, builtins.max, builtins.float, builtins.int, builtins.round,
                    builtins.bool)
_MAX_DEPTH = 8


def _small(cls: type) -> tuple:
    return ("small", cls)


class Inference:
    """Infers structures in one function (`fn_node`), with names resolved by
    `env` (name -> structure) first, then `locals_` (name -> current value),
    then the function's own first assignment of the name."""

    def __init__(self, frame: Any, fn_node: ast.FunctionDef, env: Optional[dict] = None, depth: int = 0):
        self.frame = frame
        self.fn_node = fn_node
        self.env = env or {}
        self.locals = frame.locals if env is None else {}
        self.depth = depth
        self.busy: set = set()
        self.assigned: dict = {}
        for n in ast.walk(fn_node):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                self.assigned.setdefault(n.targets[0].id, n.value)
            elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
                self.assigned.setdefault(n.target.id, n.value)

    def of_value(self, v: Any) -> Optional[tuple]:
        if isinstance(v, CompositeVar):
            return v.structure
        if isinstance(v, _core.Var):
            return LEAF
        if isinstance(v, ElementArray):
            return None
        try:
            return flatten(v)[0]
        except NotComposite:
            return None

    def name(self, name: str) -> Optional[tuple]:
        if name in self.env:
            return self.env[name]
        if name in self.locals:
            return self.of_value(self.locals[name])
        if name in self.assigned and name not in self.busy:
            self.busy.add(name)
            try:
                return self.infer(self.assigned[name])
            finally:
                self.busy.discard(name)
        if name not in self.frame.local_names:
            found, v = self.frame.lookup_outer(name)
            if found:
                return self.of_value(v)
        return None

    def static(self, node: ast.expr) -> Any:
        try:
            return self.frame.resolve_static(node)
        except Exception:  # noqa: BLE001 - an attribute that does not resolve: unknown
            return None

    def infer(self, node: Any) -> Optional[tuple]:
        if isinstance(node, ast.Constant):
            return LEAF if isinstance(node.value, (bool, int, float)) else None
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            return LEAF
        if isinstance(node, ast.Tuple):
            parts = [self.infer(e) for e in node.elts]
            return None if any(p is None for p in parts) else ("tuple", tuple(parts))
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp):
            return LEAF if isinstance(node.op, ast.Not) else self.infer(node.operand)
        if isinstance(node, ast.IfExp):
            return self.infer(node.body) or self.infer(node.orelse)
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.Attribute):
            base = self.infer(node.value)
            if base is None:
                return None
            if base[0] == "small":
                return LEAF
            if base[0] == "struct":
                for f, s in zip(base[1]._tack_fields_, base[2]):
                    if f.name == node.attr:
                        return s
            return None
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        return None

    def binop(self, node: ast.BinOp) -> Optional[tuple]:
        left, right = self.infer(node.left), self.infer(node.right)
        if isinstance(node.op, ast.MatMult):
            if left is None or right is None or left[0] != "small" or right[0] != "small":
                return None
            a, b = left[1], right[1]
            if issubclass(a, Mat) and issubclass(b, Mat):
                return _small(a)
            if issubclass(a, Mat):
                return _small(VECTORS[a.rows])
            if issubclass(b, Mat):
                return _small(VECTORS[b.cols])
            return None
        for s in (left, right):
            if s is not None and s != LEAF:
                return s
        return LEAF if left == LEAF and right == LEAF else None

    def subscript(self, node: ast.Subscript) -> Optional[tuple]:
        if isinstance(node.value, ast.Name) and node.value.id in self.locals:
            base = self.locals[node.value.id]
            if isinstance(base, ElementArray):
                return _small(base.cls)
            if isinstance(base, (_core.ArrayParam, _core.SharedArray)):
                return LEAF
        s = self.infer(node.value)
        if s is None:
            return None
        if s[0] == "small":
            cls = s[1]
            if issubclass(cls, Mat) and not isinstance(node.slice, ast.Tuple):
                return _small(VECTORS[cls.cols])
            return LEAF
        if s[0] == "tuple" and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
            try:
                return s[1][node.slice.value]
            except IndexError:
                return None
        return None

    def call(self, node: ast.Call) -> Optional[tuple]:
        fn = self.static(node.func)
        args = node.args
        if fn is None:
            return None
        if fn in ALL_TYPES:
            return _small(fn)
        if is_struct(fn):
            return struct_structure(fn)
        if isinstance(fn, Func):
            return self.func(fn, node)
        if _in(fn, _SCALAR_RESULT):
            return LEAF
        if _in(fn, _SAME_AS_FIRST):
            return self.infer(args[0]) if args else None
        if fn is vecfuncs.cross or fn is vecfuncs.quat_rotate:
            return _small(vec3)
        if fn in (vecfuncs.quat_mul, vecfuncs.quat_from_axis_angle):
            return _small(quat)
        if fn is vecfuncs.quat_to_matrix:
            return _small(MATRICES[3])
        if fn in (vecfuncs.outer, vecfuncs.diag):
            s = self.infer(args[0]) if args else None
            return _small(MATRICES[s[1].n]) if s and s[0] == "small" and issubclass(s[1], Vec) else None
        if fn is vecfuncs.identity:
            n = args[0] if args else None
            return _small(MATRICES[n.value]) if isinstance(n, ast.Constant) and n.value in MATRICES else None
        if fn is vecfuncs.matmul and len(args) == 2:
            return self.binop(ast.BinOp(args[0], ast.MatMult(), args[1]))
        if _known(fn) or any(fn is b for b in _NUMBER_BUILTINS) or (isinstance(fn, type) and
                                                                  issubclass(fn, np.generic)):
            name = getattr(fn, "__name__", "")
            parts = args[1:] if name == "select" else args[:1] if name == "cast" else args
            found = [self.infer(a) for a in parts]
            for s in found:
                if s is not None and s != LEAF:
                    return s
            return LEAF if all(s == LEAF for s in found) else None
        return None

    def func(self, fn: Any, node: ast.Call) -> Optional[tuple]:
        if self.depth >= _MAX_DEPTH:
            return None
        try:
            bound = fn.signature.bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError:
            return None
        env = {}
        for name, arg in bound.arguments.items():
            s = self.infer(arg) if isinstance(arg, ast.AST) else None
            if s is not None:
                env[name] = s
        sub = Inference(_CalleeFrame(self.frame, fn), fn.source.node, env, self.depth + 1)
        return sub.returns()

    def returns(self) -> Optional[tuple]:
        """The structure of the first return (in source order) whose value can be inferred."""
        for r in self.return_nodes():
            if r.value is not None:
                s = self.infer(r.value)
                if s is not None:
                    return s
        return None

    def return_nodes(self) -> list:
        return sorted((n for n in ast.walk(self.fn_node) if isinstance(n, ast.Return)),
                      key=lambda n: (n.lineno, n.col_offset))


def _in(fn: Any, group: Any) -> bool:
    try:
        return fn in group
    except TypeError:
        return False


def _known(fn: Any) -> bool:
    return _in(fn, KERNEL_FUNCTIONS)


class _CalleeFrame:
    """Name lookups of a @tack.func being inferred (its globals, no locals)."""

    def __init__(self, caller: Any, fn: Any):
        self.src = fn.source
        self.locals = {}
        pyfn = fn.source.fn
        self.globals = pyfn.__globals__
        self.closure = dict(zip(pyfn.__code__.co_freevars, pyfn.__closure__ or ()))
        self.local_names = set(pyfn.__code__.co_varnames) | set(pyfn.__code__.co_cellvars)
        self.reads = caller.reads
        self.lookup_outer = Frame.lookup_outer.__get__(self)
        self.resolve_static = Frame.resolve_static.__get__(self)


def infer_returns(frame: Any, fn_node: ast.FunctionDef) -> Optional[tuple]:
    return Inference(frame, fn_node).returns()


def infer_expr(frame: Any, fn_node: ast.FunctionDef, node: ast.expr) -> Optional[tuple]:
    return Inference(frame, fn_node).infer(node)
