# Evaluating a kernel's Python expressions at trace time: names, constants,
# operators, comparisons, subscripts and attributes. Python values fold as
# Python does (they are trace-time constants, like plain C++ in a C++ kernel);
# anything touching a traced Value becomes a call of the tack._core operators,
# which record it. Calls live in calls.py.
#
# Evaluation order. Operands are evaluated as Python evaluates them, left to
# right. Reading an array element or a Var records a `let` where it happens, so
# the IR as traced shows that order; but the core puts the reads between two
# writes in one canonical order when the trace ends (src/lang/canonical_order.hpp),
# so a kernel gives the IR of its C++ twin whichever compiler built that, and
# shares its compiled variants and disk-cache entries. An operand that writes
# (an atomic) keeps its place among the reads, as it must. `and`, `or`, chained
# comparisons and `a if c else b` evaluate their first operand first: Python
# must know whether it is a Python value to short-circuit.
from __future__ import annotations

import ast
import operator
import types
from typing import Any, Callable

import numpy as np

from .. import _core
from .builtins import dtype_of
from .composite import NOT_A_PART, CompositeVar
from .elements import ElementArray
from .structs import is_struct_value
from .vectors import Small, matmul

CORE_TYPES = (_core.Value, _core.ArrayParam, _core.SharedArray, _core.TextureParam, _core.Group,
              _core.Shape, _core.Var, _core.Random, _core.LocalArray)
ARRAY_TYPES = (_core.ArrayParam, _core.SharedArray, _core.LocalArray)
# The largest |n| for which x ** n is repeated multiplication (docs/python.md).
MAX_MULTIPLIED_POWER = 16

# ast operator -> (Python's operator, the Value method, its reflected method).
# A Value operand's own method is called directly: Python would otherwise try a
# ScalarParam's (a Value subclass) reflected method first, and `x < a` would be
# recorded as `a > x`, unlike the C++ twin.
_BINOPS = {
    ast.Add: (operator.add, "__add__", "__radd__"), ast.Sub: (operator.sub, "__sub__", "__rsub__"),
    ast.Mult: (operator.mul, "__mul__", "__rmul__"), ast.Div: (operator.truediv, "__truediv__", "__rtruediv__"),
    ast.FloorDiv: (operator.floordiv, "__floordiv__", "__rfloordiv__"),
    ast.Mod: (operator.mod, "__mod__", "__rmod__"), ast.Pow: (operator.pow, "__pow__", "__rpow__"),
    ast.LShift: (operator.lshift, "__lshift__", "__rlshift__"),
    ast.RShift: (operator.rshift, "__rshift__", "__rrshift__"), ast.BitOr: (operator.or_, "__or__", "__ror__"),
    ast.BitXor: (operator.xor, "__xor__", "__rxor__"), ast.BitAnd: (operator.and_, "__and__", "__rand__"),
}
# A comparison with the traced Value on the right only is turned around, so
# that the Value's method (not a NumPy scalar's) sees it.
_COMPARE = {
    ast.Eq: (operator.eq, "__eq__", "__eq__"), ast.NotEq: (operator.ne, "__ne__", "__ne__"),
    ast.Lt: (operator.lt, "__lt__", "__gt__"), ast.LtE: (operator.le, "__le__", "__ge__"),
    ast.Gt: (operator.gt, "__gt__", "__lt__"), ast.GtE: (operator.ge, "__ge__", "__le__"),
    ast.Is: (operator.is_, None, None), ast.IsNot: (operator.is_not, None, None),
    ast.In: (lambda a, b: a in b, None, None), ast.NotIn: (lambda a, b: a not in b, None, None),
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}


def _parts(index: Any) -> tuple:
    return index if isinstance(index, tuple) else (index,)


def is_value(x: Any) -> bool:
    return isinstance(x, _core.Value)


def is_number(x: Any) -> bool:
    """What a Var may hold: a traced Value or a Python / NumPy number."""
    return is_value(x) or isinstance(x, (bool, int, float, np.generic))


def has_value(x: Any) -> bool:
    """Whether x is, or (in a tuple, list or dict) holds, a traced object."""
    if isinstance(x, CORE_TYPES) or isinstance(x, (Small, ElementArray)) or is_struct_value(x):
        return True
    if isinstance(x, (tuple, list)):
        return any(has_value(e) for e in x)
    if isinstance(x, dict):
        return any(has_value(e) for e in x.values())
    return False


def describe(x: Any) -> str:
    if isinstance(x, _core.ScalarParam):
        return "a scalar parameter"
    if is_value(x):
        return "a traced Value"
    if isinstance(x, Small):
        return f"a {x.type_name()}"
    if is_struct_value(x):
        return f"a {type(x).__name__} struct"
    if isinstance(x, ElementArray):
        return f"an array of {x.cls.__name__}"
    if isinstance(x, tuple):
        return f"a tuple of {len(x)}"
    names = {_core.ArrayParam: "an array parameter", _core.SharedArray: "a shared array",
             _core.LocalArray: "a local array",
             _core.TextureParam: "a texture parameter", _core.Group: "a workgroup (Group)",
             _core.Shape: "an array's shape", _core.Var: "a Var", _core.Random: "a tack.Random"}
    for t, name in names.items():
        if isinstance(x, t):
            return name
    return f"a Python {type(x).__name__}"


class CoreMethod:
    """A method of a traced object (a Group's, a texture's, a Value's cast),
    looked up in a kernel: calling it is allowed."""

    __slots__ = ("fn", "name")

    def __init__(self, fn: Callable, name: str):
        self.fn = fn
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)


class ExpressionMixin:
    """The expression half of the Tracer (tracer.py): `self.frame`,
    `self.error`, `self.at` and `self.eval` (which dispatches on the node's
    class) come from there."""

    def expr_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def expr_Name(self, node: ast.Name) -> Any:
        frame, name = self.frame, node.id
        if name in frame.locals:
            v = frame.locals[name]
            if isinstance(v, _core.Var):
                self.check_bound(name, node)
                self.at(node)
                return v.value          # each read is a snapshot, as C++'s conversion of a Var
            if isinstance(v, CompositeVar):
                self.check_bound(name, node)
                self.at(node)
                return v.read()         # a snapshot of each leaf
            return v
        if name in frame.ended:
            raise self.error(node, f"'{name}' is not defined here: {frame.ended[name]}")
        if name in frame.local_names:
            raise self.error(node, f"'{name}' is read before it is assigned (a value carried from one "
                                   "iteration of a traced loop to the next must be assigned before the loop)")
        found, v = frame.lookup_outer(name)
        if not found:
            raise self.error(node, f"name '{name}' is not defined")
        return v

    def expr_Attribute(self, node: ast.Attribute) -> Any:
        part = self.read_part(node)      # h.t of a struct held in Vars: only its leaves are read
        if part is not NOT_A_PART:
            return part
        obj = self.eval(node.value)
        attr = node.attr
        if isinstance(obj, CORE_TYPES):
            if is_value(obj) and attr == "cast":
                return CoreMethod(lambda dtype: obj.cast(dtype_of(dtype)), "cast")
            if isinstance(obj, _core.Group) and attr == "shared":
                return CoreMethod(lambda dtype, count: obj.shared(dtype_of(dtype), count), "shared")
            if isinstance(obj, _core.Random) and attr in ("uniform", "normal"):
                draw = getattr(obj, attr)       # rng.uniform(np.float64): the dtype as tack's
                return CoreMethod(lambda dtype=_core.DType.f32: draw(dtype_of(dtype)), attr)
            if attr.startswith("_"):
                raise self.error(node, f"{describe(obj)} has no attribute '{attr}'", "type")
            self.at(node)
            try:
                v = getattr(obj, attr)
            except AttributeError:
                raise self.error(node, f"{describe(obj)} has no attribute '{attr}'", "type") from None
            return CoreMethod(v, attr) if callable(v) else v
        if isinstance(obj, Small):
            if attr == "cast":
                return CoreMethod(obj.cast, "cast")
            if attr not in ("x", "y", "z", "w") or hasattr(obj, "rows"):
                raise self.error(node, f"a {obj.type_name()} has no attribute '{attr}' (components: .x .y .z .w "
                                       "or v[k]; a matrix: m[i, j], m[i])", "type")
            return getattr(obj, attr)
        if is_struct_value(obj):
            if attr not in [f.name for f in type(obj)._tack_fields_]:
                raise self.error(node, f"{type(obj).__name__} has no field '{attr}'", "type")
            return getattr(obj, attr)
        if isinstance(obj, ElementArray):
            if attr not in ("shape", "size"):
                raise self.error(node, f"{describe(obj)} has no attribute '{attr}'", "type")
            self.at(node)
            return getattr(obj, attr)
        value = getattr(obj, attr)
        if isinstance(obj, types.ModuleType):
            self.frame.reads.note(vars(obj), attr, value)   # config.N: checked at each call, as a global is
        return value

    def index_of(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Tuple):
            return tuple(self.eval(e) for e in node.elts)
        return self.eval(node)

    def subscript_parts(self, node: ast.Subscript) -> tuple:
        """The object a subscript indexes and its index. `m[i][j]` on an array
        is `m[i, j]`, as in NumPy: the subscripts of a chain are gathered while
        its base is an array, so no partial row is ever loaded."""
        if isinstance(node.value, ast.Subscript):
            obj, inner = self.subscript_parts(node.value)
            if isinstance(obj, ARRAY_TYPES):
                return obj, _parts(inner) + _parts(self.index_of(node.slice))
            obj = self.element(node.value, obj, inner)
        else:
            obj = self.eval(node.value)
        return obj, self.index_of(node.slice)

    def array_index(self, obj: Any, index: Any, node: ast.AST) -> list:
        """An array's subscripts: a negative Python int counts from the end of
        its dimension (of the flat size for one subscript), as in NumPy."""
        parts = list(_parts(index))
        for d, k in enumerate(parts):
            if isinstance(k, bool) or isinstance(k, float):
                raise self.error(node, f"an array index must be an integer, got a Python {type(k).__name__} "
                                       f"({k!r})", "type")
            if isinstance(k, int) and k < 0:
                if isinstance(obj, _core.LocalArray):
                    extent = obj.count          # known while tracing: a[-1] is a[count - 1]
                else:
                    extent = obj.size if len(parts) == 1 else obj.shape[d]
                parts[d] = extent + k
        return parts

    def element(self, node: ast.Subscript, obj: Any, index: Any) -> Any:
        self.at(node)
        if isinstance(obj, ARRAY_TYPES):
            return obj.load(self.array_index(obj, index, node))
        if isinstance(obj, ElementArray):
            return obj.load(index)
        if isinstance(obj, Small):
            return obj[index]
        if isinstance(obj, _core.Shape):
            if not isinstance(index, int) or isinstance(index, bool):
                raise self.error(node, "a shape is indexed with a Python int (a.shape[0], a.shape[-1])", "type")
            return obj[index]
        if is_value(obj):
            raise self.error(node, "a traced number cannot be indexed (to index a row of a 2-D array, write "
                                   "m[i, j] or m[i][j] directly on the array)", "type")
        if isinstance(obj, CORE_TYPES):
            raise self.error(node, f"{describe(obj)} cannot be indexed", "type")
        if has_value(index):
            raise self.error(node, f"a Python {type(obj).__name__} cannot be indexed with a traced Value: its "
                                   "elements are only known at trace time (index it with a Python int, e.g. "
                                   "the target of tack.static_range, or put the table in an array)", "type")
        return obj[index]

    def expr_Subscript(self, node: ast.Subscript) -> Any:
        obj, index = self.subscript_parts(node)
        return self.element(node, obj, index)

    def expr_BinOp(self, node: ast.BinOp) -> Any:
        left = self.eval(node.left)
        right = self.eval(node.right)
        if isinstance(node.op, ast.MatMult):
            if isinstance(left, Small) and isinstance(right, Small):
                self.at(node)
                return matmul(left, right)
            raise self.error(node, "the operator @ multiplies matrices and vectors (tack.mat33, tack.vec3), not "
                                   f"{describe(left)} and {describe(right)}", "type")
        if type(node.op) not in _BINOPS:
            raise self.error(node, "the operator @ is not supported in a kernel")
        if is_value(left) or is_value(right):
            self.at(node)
        return self.binop(node, type(node.op), left, right)

    def binop(self, node: ast.AST, op: type, left: Any, right: Any) -> Any:
        python_op, method, reflected = _BINOPS[op]
        if isinstance(left, Small) or isinstance(right, Small):
            if op not in (ast.Add, ast.Sub, ast.Mult, ast.Div):
                raise self.error(node, f"the operator in '{ast.unparse(node)}' is not defined on vectors and "
                                       "matrices (+ - * / and @ are)", "type")
            self.at(node)
            result = getattr(left, method)(right) if isinstance(left, Small) else getattr(right, reflected)(left)
            if result is NotImplemented:
                raise self.error(node, f"unsupported operand types in '{ast.unparse(node)}': {describe(left)} and "
                                       f"{describe(right)}", "type")
            return result
        if op is ast.Pow and is_value(left) and not isinstance(right, CORE_TYPES):
            return self.power(node, left, right)
        if is_value(left):
            result = getattr(left, method)(right)
        elif is_value(right):
            # Straight to the Value's reflected method: a NumPy scalar on the
            # left would otherwise take the Value for an object array.
            result = getattr(right, reflected)(left)
        elif isinstance(left, CORE_TYPES) or isinstance(right, CORE_TYPES):
            raise self.error(node, f"no arithmetic on {describe(left if isinstance(left, CORE_TYPES) else right)}"
                                   " (index it first)", "type")
        else:
            return python_op(left, right)
        if result is NotImplemented:
            raise self.error(node, f"unsupported operand types in '{ast.unparse(node)}'", "type")
        return result

    def power(self, node: ast.AST, x: Any, n: Any) -> Any:
        """x ** n for a traced x and a number n known at trace time. A small
        integer n is exact repeated multiplication (x ** 2 is x * x, x ** -2 is
        1 / (x * x), true division), and n = 0.5 is a square root, as NumPy's
        power takes those fast paths; any other n is tack.pow."""
        if isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) and abs(n) <= MAX_MULTIPLIED_POWER:
            n = int(n)
            if n == 0:
                return _core.literal(1)
            product, base, k = None, x, abs(n)
            while k:
                if k & 1:
                    product = base if product is None else product * base
                k >>= 1
                if k:
                    base = base * base
            return product if n > 0 else 1 / product
        if isinstance(n, (float, np.floating)) and n == 0.5:
            return _core.sqrt(x / 1)     # x / 1 is x for a float, float64(x) for an integer (true division)
        return x ** n

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Any:
        v = self.eval(node.operand)
        if isinstance(node.op, ast.Not):
            if is_value(v):
                self.at(node)
                return _core.logical_not(_core.truthy(v))   # Python's truthiness: not v is v == 0
            return not v
        if is_value(v):
            self.at(node)
        return _UNARY[type(node.op)](v)

    def compare(self, node: ast.AST, op: ast.cmpop, left: Any, right: Any) -> Any:
        python_op, method, turned = _COMPARE[type(op)]
        if is_value(left) or is_value(right):
            if method is None:
                raise self.error(node, f"'{ast.unparse(node)}' compares a traced Value with is / in, which only "
                                       "works on Python values", "type")
            self.at(node)
            return getattr(left, method)(right) if is_value(left) else getattr(right, turned)(left)
        return python_op(left, right)

    def expr_Compare(self, node: ast.Compare) -> Any:
        # a < b < c is (a < b) and (b < c), with b evaluated once.
        left = self.eval(node.left)
        result = None
        for op, comparator in zip(node.ops, node.comparators):
            right = self.eval(comparator)
            r = self.compare(node, op, left, right)
            if result is None:
                result = r
            elif is_value(result) or is_value(r):
                self.at(node)
                result = _core.logical_and(result, r)
            else:
                result = r
            if not is_value(result) and not result:
                return result
            left = right
        return result

    def expr_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self.eval(e) for e in node.elts)

    def expr_List(self, node: ast.List) -> list:
        return [self.eval(e) for e in node.elts]

    def expr_Set(self, node: ast.Set) -> set:
        return {self.eval(e) for e in node.elts}

    def expr_Dict(self, node: ast.Dict) -> dict:
        if any(k is None for k in node.keys):
            raise self.error(node, "'**' in a dict display is not supported in a kernel")
        return {self.eval(k): self.eval(v) for k, v in zip(node.keys, node.values)}

