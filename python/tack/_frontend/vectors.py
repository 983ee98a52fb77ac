# Small vectors, matrices and quaternions (tack.vec2/vec3/vec4, tack.mat22/
# mat33/mat44, tack.quat), lowered to scalars at trace time: each object holds
# its components (traced Values or Python numbers) and each operator is the
# scalar operator per component, exactly as issue 29's vector specification
# (docs/python.md, "Vectors, matrices and quaternions") defines, so the C++
# twin (tack::lang) gives the same IR.
# The same classes are the host-side values: outside a kernel the components
# are Python numbers and the arithmetic is Python's (np.asarray(v) converts).
from __future__ import annotations

import ast
import operator
from typing import Any

import numpy as np

from .. import _core
from .._dtypes import to_dtype
from .._errors import IndexError as TackIndexError, TypeError as TackTypeError

# ast operator -> (Python operator, the Value's method, its reflected method):
# the same calls the tracer makes for two scalars (expressions._BINOPS).
_OPS = {
    ast.Add: (operator.add, "__add__", "__radd__"), ast.Sub: (operator.sub, "__sub__", "__rsub__"),
    ast.Mult: (operator.mul, "__mul__", "__rmul__"), ast.Div: (operator.truediv, "__truediv__", "__rtruediv__"),
}


def scalar_op(op: type, a: Any, b: Any) -> Any:
    """a op b on two scalars, as the tracer computes it: a Value operand's own
    method is called (the left one first), Python numbers fold."""
    python_op, method, reflected = _OPS[op]
    if isinstance(a, _core.Value):
        r = getattr(a, method)(b)
    elif isinstance(b, _core.Value):
        r = getattr(b, reflected)(a)
    else:
        return python_op(a, b)
    if r is NotImplemented:
        raise TackTypeError(f"unsupported operand types for a vector component: {type(a).__name__} and "
                            f"{type(b).__name__}")
    return r


def add(a: Any, b: Any) -> Any:
    return scalar_op(ast.Add, a, b)


def sub(a: Any, b: Any) -> Any:
    return scalar_op(ast.Sub, a, b)


def mul(a: Any, b: Any) -> Any:
    return scalar_op(ast.Mult, a, b)


def div(a: Any, b: Any) -> Any:
    return scalar_op(ast.Div, a, b)


def neg(a: Any) -> Any:
    return operator.neg(a)


def as_dtype(d: Any) -> Any:
    return d if isinstance(d, _core.DType) else to_dtype(d)


def is_scalar(x: Any) -> bool:
    return isinstance(x, (_core.Value, bool, int, float, np.generic))


def _check_component(x: Any, who: str) -> Any:
    if isinstance(x, _core.Var):
        return x.value
    if not is_scalar(x):
        raise TackTypeError(f"{who} takes numbers (traced Values or Python numbers) as components, got "
                            f"{type(x).__name__}")
    return x


class Small:
    """What vectors, matrices and quaternions share: a flat tuple of
    components `c` (row by row for a matrix) and componentwise arithmetic."""

    # A dict: the slot's docstring is what the API reference shows for `c`.
    __slots__ = {"c": "The components as a flat tuple (a matrix's row by row): traced Values in a kernel, "
                      "Python numbers on the host."}
    c: tuple  # for type checkers: the slot above
    shape: tuple = ()
    kind = "small"
    _tack_small_ = True       # what tack.Array[...] recognizes (tack/_types.py)

    @classmethod
    def of(cls, comps: Any) -> "Small":
        """An object of this class from its components, unchecked."""
        obj = object.__new__(cls)
        obj.c = tuple(comps)
        return obj

    @classmethod
    def type_name(cls) -> str:
        """The class's name as messages write it: 'vec3', 'mat22', 'quat'."""
        return cls.__name__

    # ---- componentwise arithmetic (docs/python.md, "Vectors, matrices and quaternions") ----

    def _same(self, other: Any, sym: str) -> None:
        if type(other) is not type(self):
            raise TackTypeError(f"'{sym}' needs two operands of the same shape, got {self.type_name()} and "
                                f"{type(other).type_name()}")

    def _binary(self, other: Any, op: type, sym: str, reflected: bool = False) -> Any:
        if isinstance(other, Small):
            self._same(other, sym)
            return self.of(scalar_op(op, a, b) for a, b in zip(self.c, other.c))
        if isinstance(other, _core.Var):
            other = other.value
        if not is_scalar(other):
            return NotImplemented
        if op in (ast.Add, ast.Sub):
            raise TackTypeError(f"'{sym}' between a {self.type_name()} and a number: add a {self.type_name()} "
                                "(only * and / take a scalar)")
        if reflected:
            if op is ast.Div:
                raise TackTypeError(f"a number / a {self.type_name()} is not defined; divide the components")
            return self.of(scalar_op(op, other, a) for a in self.c)
        return self.of(scalar_op(op, a, other) for a in self.c)

    def __add__(self, other: Any) -> Any:
        return self._binary(other, ast.Add, "+")

    def __radd__(self, other: Any) -> Any:
        return self._binary(other, ast.Add, "+", True)

    def __sub__(self, other: Any) -> Any:
        return self._binary(other, ast.Sub, "-")

    def __rsub__(self, other: Any) -> Any:
        return self._binary(other, ast.Sub, "-", True)

    def __mul__(self, other: Any) -> Any:
        return self._binary(other, ast.Mult, "*")

    def __rmul__(self, other: Any) -> Any:
        return self._binary(other, ast.Mult, "*", True)

    def __truediv__(self, other: Any) -> Any:
        return self._binary(other, ast.Div, "/")

    def __rtruediv__(self, other: Any) -> Any:
        return self._binary(other, ast.Div, "/", True)

    def __neg__(self) -> Any:
        return self.of(neg(a) for a in self.c)

    def __pos__(self) -> Any:
        return self

    def _refuse(self, *_: Any) -> Any:
        raise TackTypeError(f"a {self.type_name()} cannot be compared as a whole; compare its components "
                            "(v.x < w.x)")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __hash__ = None

    def __bool__(self) -> bool:
        raise TackTypeError(f"a {self.type_name()} has no truth value; test its components")

    def cast(self, dtype: Any) -> Any:
        """Each component converted to dtype (tack.cast per component)."""
        d = as_dtype(dtype)
        return self.of(_core.cast(d, a) for a in self.c)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if any(isinstance(a, _core.Value) for a in self.c):
            raise TackTypeError(f"a {self.type_name()} of traced Values cannot become a NumPy array")
        return np.array(self.c, dtype=dtype).reshape(self.shape)

    def __repr__(self) -> str:
        return f"tack.{self.type_name()}({', '.join(repr(a) for a in self.c)})"


class Vec(Small):
    """A vector of N components x, y, z, w (vec2, vec3, vec4)."""

    __slots__ = ()
    n = 0
    kind = "vec"

    def __init__(self, *comps: Any) -> None:
        if len(comps) != self.n:
            raise TackTypeError(f"tack.{self.type_name()} takes {self.n} components, got {len(comps)}")
        self.c = tuple(_check_component(a, f"tack.{self.type_name()}") for a in comps)

    @property
    def shape(self) -> tuple:
        """(N,): the trailing dimension of an array holding these vectors."""
        return (self.n,)

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Any:
        return iter(self.c)

    def __getitem__(self, k: Any) -> Any:
        return self.c[_constant_index(k, self.n, self.type_name())]

    def _comp(self, k: int, name: str) -> Any:
        if k >= self.n:
            raise TackTypeError(f"a {self.type_name()} has no component '{name}'")
        return self.c[k]

    x = property(lambda self: self._comp(0, "x"), doc="Component 0.")
    y = property(lambda self: self._comp(1, "y"), doc="Component 1.")
    z = property(lambda self: self._comp(2, "z"), doc="Component 2 (vec3, vec4, quat; a vec2 raises tack.TypeError).")
    w = property(lambda self: self._comp(3, "w"), doc="Component 3 (vec4, quat: the real part).")

    def __matmul__(self, other: Any) -> Any:
        if isinstance(other, Mat):
            return matmul(self, other)
        return NotImplemented


class vec2(Vec):
    """tack.vec2(x, y): a vector of two components, as tack.vec3;
    tack.Array[tack.vec2] is an array parameter whose last dimension is 2."""
    __slots__ = ()
    n = 2


class vec3(Vec):
    """tack.vec3(x, y, z): a vector of three components. + and - take two
    vectors of one size; * and / a vector and a scalar, or two vectors
    (componentwise); @ a vector and a matrix. Components are read as v.x, v.y,
    v.z or v[k] (k a Python int). The same class works in a kernel, where the
    components are traced Values, and on the host, on Python numbers.
    tack.Array[tack.vec3] is an array parameter whose last dimension is 3.

    >>> v = tack.vec3(1.0, 2.0, 3.0)
    >>> v * 2 + tack.vec3(0.5, 0.5, 0.5)
    tack.vec3(2.5, 4.5, 6.5)
    >>> tack.dot(v, v), v.y, v.shape
    (14.0, 2.0, (3,))
    """
    __slots__ = ()
    n = 3


class vec4(Vec):
    """tack.vec4(x, y, z, w): a vector of four components, as tack.vec3;
    tack.Array[tack.vec4] is an array parameter whose last dimension is 4."""
    __slots__ = ()
    n = 4


class quat(Vec):
    """A quaternion x, y, z, w (w the real part). Added, subtracted and scaled
    componentwise; multiplied with tack.quat_mul."""

    __slots__ = ()
    n = 4
    kind = "quat"

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, quat):
            raise TackTypeError("quat * quat is not defined: the Hamilton product is tack.quat_mul(a, b)")
        return super().__mul__(other)


class Mat(Small):
    """A matrix of R rows and C columns (mat22, mat33, mat44), row by row."""

    __slots__ = ()
    rows = cols = 0
    kind = "mat"

    def __init__(self, *args: Any) -> None:
        r, c = self.rows, self.cols
        who = f"tack.{self.type_name()}"
        row_type = VECTORS[c]
        if len(args) == r and all(isinstance(a, Vec) for a in args):
            for a in args:
                if type(a) is not row_type:
                    raise TackTypeError(f"{who} takes {r} {row_type.__name__} rows, got a {a.type_name()}")
            comps = [x for a in args for x in a.c]
        elif len(args) == r * c:
            comps = [_check_component(a, who) for a in args]
        else:
            raise TackTypeError(f"{who} takes {r * c} values row by row or {r} {row_type.__name__} rows, got "
                                f"{len(args)} arguments")
        self.c = tuple(comps)

    @property
    def shape(self) -> tuple:
        """(R, C): the trailing dimensions of an array holding these matrices."""
        return (self.rows, self.cols)

    def entry(self, i: int, j: int) -> Any:
        """Row i, column j (Python ints), as m[i, j] but unchecked."""
        return self.c[i * self.cols + j]

    def row(self, i: int) -> Vec:
        """Row i as a vector of C components."""
        return VECTORS[self.cols].of(self.c[i * self.cols:(i + 1) * self.cols])

    def col(self, j: int) -> Vec:
        """Column j as a vector of R components."""
        return VECTORS[self.rows].of(self.c[j::self.cols])

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, tuple):
            if len(k) != 2:
                raise TackTypeError(f"a {self.type_name()} is indexed m[i, j] or m[i], got {len(k)} indices")
            i = _constant_index(k[0], self.rows, self.type_name() + " row")
            j = _constant_index(k[1], self.cols, self.type_name() + " column")
            return self.entry(i, j)
        return self.row(_constant_index(k, self.rows, self.type_name() + " row"))

    def __matmul__(self, other: Any) -> Any:
        if isinstance(other, (Vec, Mat)) and not isinstance(other, quat):
            return matmul(self, other)
        return NotImplemented


class mat22(Mat):
    """tack.mat22(m00, m01, m10, m11) or tack.mat22(row0, row1): a 2 x 2
    matrix, made from its entries row by row or from two tack.vec2 rows.
    m[i, j] is an entry and m[i] a row (Python int indices); m @ v, v @ m and
    m @ n multiply; + and - take two matrices, * and / a scalar or a matrix
    (componentwise). tack.Array[tack.mat22] is an array parameter whose last
    two dimensions are (2, 2).

    >>> m = tack.mat22(1, 2, 3, 4)
    >>> m[1, 0], m.row(0), m @ tack.vec2(1, 1)
    (3, tack.vec2(1, 2), tack.vec2(3, 7))
    """
    __slots__ = ()
    rows = cols = 2


class mat33(Mat):
    """tack.mat33(9 entries row by row) or tack.mat33(row0, row1, row2): a 3 x 3 matrix, as tack.mat22."""
    __slots__ = ()
    rows = cols = 3


class mat44(Mat):
    """tack.mat44(16 entries row by row) or tack.mat44(row0, ..., row3): a 4 x 4 matrix, as tack.mat22."""
    __slots__ = ()
    rows = cols = 4


VECTORS = {2: vec2, 3: vec3, 4: vec4}
MATRICES = {2: mat22, 3: mat33, 4: mat44}
ALL_TYPES = (vec2, vec3, vec4, quat, mat22, mat33, mat44)


def element_shape(cls: type) -> tuple:
    """(rows, cols) for require_element_shape: (N, 0) for vecN and quat, (R, C) for a matrix."""
    if issubclass(cls, Mat):
        return cls.rows, cls.cols
    return cls.n, 0


def _constant_index(k: Any, size: int, what: str) -> int:
    if isinstance(k, (_core.Value, _core.Var)):
        raise TackTypeError(f"a {what} index must be a constant known at trace time (a Python int), not a "
                            "traced Value")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TackTypeError(f"a {what} index must be a Python int, got {type(k).__name__}")
    k = int(k)
    if not 0 <= k < size:
        raise TackIndexError(f"index {k} is out of range for a {what} of size {size}")
    return k


def matmul(a: Any, b: Any) -> Any:
    """m @ v: r_i = dot(row_i(m), v); v @ m: r_j = dot(v, col_j(m)); a @ b: r_ij = dot(row_i(a), col_j(b))."""
    if isinstance(a, Mat) and isinstance(b, Vec) and not isinstance(b, quat):
        if a.cols != b.n:
            raise TackTypeError(f"{a.type_name()} @ {b.type_name()}: the shapes do not match")
        return VECTORS[a.rows].of(dot(a.row(i), b) for i in range(a.rows))
    if isinstance(a, Vec) and not isinstance(a, quat) and isinstance(b, Mat):
        if a.n != b.rows:
            raise TackTypeError(f"{a.type_name()} @ {b.type_name()}: the shapes do not match")
        return VECTORS[b.cols].of(dot(a, b.col(j)) for j in range(b.cols))
    if isinstance(a, Mat) and isinstance(b, Mat):
        if a.cols != b.rows:
            raise TackTypeError(f"{a.type_name()} @ {b.type_name()}: the shapes do not match")
        return MATRICES[a.rows].of(dot(a.row(i), b.col(j)) for i in range(a.rows) for j in range(b.cols))
    raise TackTypeError(f"matmul takes a matrix and a vector or two matrices, got {type(a).__name__} and "
                        f"{type(b).__name__}")


def dot(a: Any, b: Any) -> Any:
    """The dot product of two vectors of one size, summed left to right:
    ((a0*b0 + a1*b1) + a2*b2) + a3*b3."""
    if not isinstance(a, Vec) or not isinstance(b, Vec) or a.n != b.n:
        raise TackTypeError(f"tack.dot takes two vectors of the same size, got {_name(a)} and {_name(b)}")
    acc = mul(a.c[0], b.c[0])
    for k in range(1, a.n):
        acc = add(acc, mul(a.c[k], b.c[k]))
    return acc


def _name(x: Any) -> str:
    return x.type_name() if isinstance(x, Small) else type(x).__name__
