# An array parameter declared with a vector or matrix element type
# (x: tack.Array[tack.vec3]): the array's trailing dimensions are the
# element's shape, and x[i] loads (x[i] = v stores) the whole element, one
# scalar load or store per component in component order (row by row for a
# matrix), as docs/python.md defines, so the C++ twin gives the same IR.
from __future__ import annotations

from typing import Any

from .. import _core
from .._errors import TypeError as TackTypeError
from .vectors import Mat, Small, add, element_shape, mul


class ElementArray:
    """The traced view of such a parameter: `param` the core ArrayParam."""

    __slots__ = ("param", "cls", "name")

    def __init__(self, param: Any, cls: type, name: str):
        self.param = param
        self.cls = cls
        self.name = name
        require = getattr(_core, "require_element_shape", None)
        if require is not None:
            rows, cols = element_shape(cls)
            require(param, rows, cols)
        # TODO(issue 29): without the core hook (branch `vec`) a wrong trailing shape is not refused at the call.

    @property
    def shape(self) -> Any:
        return self.param.shape

    @property
    def size(self) -> Any:
        raise TackTypeError(f"'{self.name}' is an array of {self.cls.__name__}: its .size counts scalars; count "
                            f"its elements with {self.name}.shape[0]")

    def _suffixes(self) -> list:
        if issubclass(self.cls, Mat):
            return [(r, c) for r in range(self.cls.rows) for c in range(self.cls.cols)]
        return [(k,) for k in range(self.cls.n)]

    def _index(self, index: Any) -> tuple:
        parts = index if isinstance(index, tuple) else (index,)
        for k in parts:
            if isinstance(k, (bool, float)):
                raise TackTypeError(f"an array index must be an integer, got a Python {type(k).__name__}")
        return tuple(parts)

    def load(self, index: Any) -> Any:
        parts = self._index(index)
        return self.cls.of(self.param.load(list(parts + s)) for s in self._suffixes())

    def _check(self, value: Any) -> Small:
        if type(value) is not self.cls:
            got = value.type_name() if isinstance(value, Small) else type(value).__name__
            raise TackTypeError(f"'{self.name}' holds {self.cls.__name__} elements; cannot store a {got}")
        return value

    def store(self, index: Any, value: Any) -> None:
        parts = self._index(index)
        for s, v in zip(self._suffixes(), self._check(value).c):
            self.param.store(list(parts + s), v)

    def update(self, index: Any, op: Any, value: Any) -> None:
        """x[i] op= v: per component, load, operate, store, in component order."""
        parts = self._index(index)
        value = self._check(value)
        for s, v in zip(self._suffixes(), value.c):
            i = list(parts + s)
            self.param.store(i, op(self.param.load(i), v))

    def atomic_add(self, index: Any, value: Any) -> None:
        """One scalar atomic_add per component, at the flat index i * S + k."""
        if isinstance(index, (tuple, list)):
            raise TackTypeError(f"tack.atomic_add on an array of {self.cls.__name__} takes a flat element index")
        value = self._check(value)
        size = len(value.c)
        for k, v in enumerate(value.c):
            _core.atomic("add", self.param, add(mul(index, size), k), v)
