# A @tack.func helper: its parsed, checked source, inlined where a kernel
# calls it (calls.py). Here, below the tracer, rather than beside @tack.kernel
# in tack/_kernel.py, so that calls.py can recognize one without importing
# the module that imports the tracer.
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from .analysis import validate
from .source import parse_function


class Func:
    """A @tack.func helper: inlined where a kernel calls it (its body is traced
    with its parameters bound to the arguments). Called outside a kernel it
    is the plain Python function."""

    def __init__(self, fn: Callable):
        self.source = parse_function(fn, "@tack.func")
        validate(self.source, f"@tack.func '{fn.__name__}'", "@tack.func")
        self.python_function = fn
        self.signature = inspect.signature(fn)
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.python_function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<tack.func '{self.__name__}' defined at {self.source.file}:{self.source.line}>"
