# The functions of vectors, matrices and quaternions (tack.dot, tack.cross,
# tack.inverse, tack.quat_rotate, ...), each the formula of issue 29's vector
# specification (docs/python.md, "Vectors, matrices and quaternions") written
# over scalar operators in the spec's operand order and association, and the
# componentwise form of tack's scalar functions (tack.sqrt(v), tack.min(v, w)).
from __future__ import annotations

from typing import Any, Callable

from .. import _core
from .._errors import TypeError as TackTypeError
from .vectors import (MATRICES, Mat, Small, Vec, add, as_dtype, div, dot, is_scalar, matmul, mul, neg, quat, sub,
                      vec3)

__all__ = ["dot", "cross", "length", "length_sq", "normalize", "outer", "transpose", "trace", "diag", "identity",
           "determinant", "inverse", "matmul", "quat_mul", "quat_conjugate", "quat_rotate", "quat_from_axis_angle",
           "quat_to_matrix"]


def _vec(x: Any, who: str, n: Any = None) -> Vec:
    if not isinstance(x, Vec) or (n is not None and x.n != n):
        want = f"a vec{n}" if n else "a vector"
        got = x.type_name() if isinstance(x, Small) else type(x).__name__
        raise TackTypeError(f"tack.{who} takes {want}, got {got}")
    return x


def _mat(x: Any, who: str) -> Mat:
    if not isinstance(x, Mat):
        got = x.type_name() if isinstance(x, Small) else type(x).__name__
        raise TackTypeError(f"tack.{who} takes a matrix, got {got}")
    return x


def _sqrt(x: Any) -> Any:
    return _core.sqrt(x)


def length_sq(a: Any) -> Any:
    """The squared length of vector a: dot(a, a)."""
    _vec(a, "length_sq")
    return dot(a, a)


def length(a: Any) -> Any:
    """The length of vector a: sqrt(dot(a, a))."""
    _vec(a, "length")
    return _sqrt(dot(a, a))


def normalize(a: Any) -> Any:
    """a / length(a), the length computed once (a zero vector gives NaN)."""
    _vec(a, "normalize")
    L = length(a)
    return a.of(div(x, L) for x in a.c)


def cross(a: Any, b: Any) -> Any:
    """The cross product of two vec3s: (a1*b2 - a2*b1, a2*b0 - a0*b2, a0*b1 - a1*b0).

    >>> tack.cross(tack.vec3(1, 0, 0), tack.vec3(0, 1, 0))
    tack.vec3(0, 0, 1)
    """
    a, b = _vec(a, "cross", 3), _vec(b, "cross", 3)
    (a0, a1, a2), (b0, b1, b2) = a.c, b.c
    return vec3.of((sub(mul(a1, b2), mul(a2, b1)), sub(mul(a2, b0), mul(a0, b2)), sub(mul(a0, b1), mul(a1, b0))))


def outer(a: Any, b: Any) -> Any:
    """m_ij = a_i * b_j (square: two vectors of one size)."""
    a, b = _vec(a, "outer"), _vec(b, "outer")
    if a.n != b.n:
        raise TackTypeError(f"tack.outer takes two vectors of the same size, got {a.type_name()} and {b.type_name()}")
    return MATRICES[a.n].of(mul(x, y) for x in a.c for y in b.c)


def transpose(m: Any) -> Any:
    """The transpose of matrix m: t_ij = m_ji."""
    m = _mat(m, "transpose")
    return MATRICES[m.rows].of(m.entry(j, i) for i in range(m.cols) for j in range(m.rows))


def trace(m: Any) -> Any:
    """m00 + m11 + ..., left to right."""
    m = _mat(m, "trace")
    acc = m.entry(0, 0)
    for k in range(1, m.rows):
        acc = add(acc, m.entry(k, k))
    return acc


def diag(v: Any) -> Any:
    """m_ii = v_i, other entries the weak literal 0."""
    v = _vec(v, "diag")
    return MATRICES[v.n].of(v.c[i] if i == j else 0 for i in range(v.n) for j in range(v.n))


def identity(n: int, dtype: Any = None) -> Any:
    """The n x n identity of weak literals 1 and 0; with dtype, each cast to it."""
    if n not in MATRICES:
        raise TackTypeError(f"tack.identity(n) takes n = 2, 3 or 4, got {n!r}")
    entries = [1 if i == j else 0 for i in range(n) for j in range(n)]
    if dtype is not None:
        d = as_dtype(dtype)
        entries = [_core.cast(d, e) for e in entries]
    return MATRICES[n].of(entries)


def _rows(m: Mat) -> list:
    return [[m.entry(i, j) for j in range(m.cols)] for i in range(m.rows)]


def _minor(rows: list, i: int, j: int) -> list:
    return [[x for c, x in enumerate(r) if c != j] for k, r in enumerate(rows) if k != i]


def _det(rows: list) -> Any:
    if len(rows) == 1:
        return rows[0][0]
    acc = None
    for j in range(len(rows)):
        term = mul(rows[0][j], _cofactor(rows, 0, j))
        acc = term if acc is None else add(acc, term)
    return acc


def _cofactor(rows: list, i: int, j: int) -> Any:
    d = _det(_minor(rows, i, j))
    return d if (i + j) % 2 == 0 else neg(d)


def determinant(m: Any) -> Any:
    """sum_j m0j * C0j left to right, C_ij the signed determinant of the minor."""
    return _det(_rows(_mat(m, "determinant")))


def inverse(m: Any) -> Any:
    """inv_ij = C_ji / D, D = determinant(m) computed once, then the entries row by row."""
    m = _mat(m, "inverse")
    rows = _rows(m)
    D = _det(rows)
    return MATRICES[m.rows].of(div(_cofactor(rows, j, i), D) for i in range(m.rows) for j in range(m.cols))


# ---- quaternions ----

def _quat(q: Any, who: str) -> quat:
    if not isinstance(q, quat):
        got = q.type_name() if isinstance(q, Small) else type(q).__name__
        raise TackTypeError(f"tack.{who} takes a quat, got {got}")
    return q


def quat_mul(a: Any, b: Any) -> Any:
    """The Hamilton product a * b of two quaternions (quat * quat is refused)."""
    (ax, ay, az, aw), (bx, by, bz, bw) = _quat(a, "quat_mul").c, _quat(b, "quat_mul").c
    x = sub(add(add(mul(aw, bx), mul(ax, bw)), mul(ay, bz)), mul(az, by))
    y = add(add(sub(mul(aw, by), mul(ax, bz)), mul(ay, bw)), mul(az, bx))
    z = add(sub(add(mul(aw, bz), mul(ax, by)), mul(ay, bx)), mul(az, bw))
    w = sub(sub(sub(mul(aw, bw), mul(ax, bx)), mul(ay, by)), mul(az, bz))
    return quat.of((x, y, z, w))


def quat_conjugate(q: Any) -> Any:
    """(-x, -y, -z, w): for a unit quaternion, the inverse rotation."""
    x, y, z, w = _quat(q, "quat_conjugate").c
    return quat.of((neg(x), neg(y), neg(z), w))


def quat_rotate(q: Any, v: Any) -> Any:
    """t = cross(u, v) * 2; (v + t * q.w) + cross(u, t), u the vector part of q."""
    q, v = _quat(q, "quat_rotate"), _vec(v, "quat_rotate", 3)
    u = vec3.of(q.c[:3])
    t = cross(u, v) * 2
    return (v + t * q.c[3]) + cross(u, t)


def quat_from_axis_angle(axis: Any, angle: Any) -> Any:
    """h = angle * 0.5; (axis * sin(h), cos(h)); the axis of unit length."""
    axis = _vec(axis, "quat_from_axis_angle", 3)
    h = mul(angle, 0.5)
    s = _core.sin(h)
    return quat.of((mul(axis.c[0], s), mul(axis.c[1], s), mul(axis.c[2], s), _core.cos(h)))


def quat_to_matrix(q: Any) -> Any:
    """The rotation matrix of a unit quaternion (the specification's nine entries)."""
    x, y, z, w = _quat(q, "quat_to_matrix").c

    def two(v: Any) -> Any:
        return mul(2, v)

    return MATRICES[3].of((
        sub(1, two(add(mul(y, y), mul(z, z)))), two(sub(mul(x, y), mul(z, w))), two(add(mul(x, z), mul(y, w))),
        two(add(mul(x, y), mul(z, w))), sub(1, two(add(mul(x, x), mul(z, z)))), two(sub(mul(y, z), mul(x, w))),
        two(sub(mul(x, z), mul(y, w))), two(add(mul(y, z), mul(x, w))), sub(1, two(add(mul(x, x), mul(y, y)))),
    ))


# ---- componentwise forms of tack's scalar functions ----

def componentwise(name: str, scalar_fn: Callable) -> Callable:
    """scalar_fn applied per component where an argument is a vector, matrix
    or quaternion (all of one shape; scalars broadcast); else scalar_fn."""
    def fn(*args: Any) -> Any:
        shaped = [a for a in args if isinstance(a, Small)]
        if not shaped:
            return scalar_fn(*args)
        first = shaped[0]
        for a in shaped[1:]:
            if type(a) is not type(first):
                raise TackTypeError(f"tack.{name} takes vectors of one shape, got {first.type_name()} and "
                                    f"{a.type_name()}")
        for a in args:
            if not isinstance(a, Small) and not is_scalar(a) and not isinstance(a, _core.Var):
                raise TackTypeError(f"tack.{name} takes numbers and vectors, got {type(a).__name__}")
        size = len(first.c)
        return first.of(scalar_fn(*[a.c[k] if isinstance(a, Small) else a for a in args]) for k in range(size))

    return fn


def cast_componentwise(x: Any, dtype: Any, scalar_cast: Callable) -> Any:
    if isinstance(x, Small):
        return x.of(scalar_cast(a, dtype) for a in x.c)
    return scalar_cast(x, dtype)
