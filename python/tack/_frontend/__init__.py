# The pure-Python kernel front end: @tack.kernel functions are parsed once
# (source.py), checked (analysis.validate), and at their first use replayed as
# calls of tack._core's tracing API (tracer.py), so a Python kernel gives the
# same IR as its C++ twin. builtins.py is the kernel language as `tack` exports it.
from .analysis import validate
from .builtins import __all__ as builtin_names
from .source import Source, parse_function
from .tracer import trace_kernel

__all__ = ["Source", "builtin_names", "parse_function", "trace_kernel", "validate"]
