# The decorators users write: @tack.kernel makes a tack.Kernel (a _core.Kernel
# whose body replays the function's AST; traced at first use, in C++), and
# @tack.func marks a helper that kernels inline. The Kernel class adds only
# Python niceties: calls go straight to _core.Kernel.__call__, the fast path.
from __future__ import annotations

import weakref
from typing import Any, Callable, Optional

from . import _core
from ._errors import InvalidArgument, TypeError as TackTypeError
from ._frontend.analysis import validate
from ._frontend.func import Func
from ._frontend.structs import is_struct
from ._frontend.guards import changed
from ._frontend.source import Source, message, parse_function
from ._frontend.tracer import trace_kernel
from ._host import precompile_args
from ._bundles import bundles, expand, flatten_args, needs_layout


def _closure(fn: Callable) -> dict:
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:      # a cell not yet filled
            pass
    return out


def _param_list(fn: Callable, src: Source, kname: str) -> list:
    """The (ArgKind, fixed DType or None) of each core parameter, from the
    annotations; their names; and the layout of the Python parameters
    (_bundles.py: a struct parameter is one core parameter per field)."""
    who = f"kernel '{kname}'"
    args = src.node.args

    def fail(node: Any, what: str) -> Exception:
        return TackTypeError(message(who, src.file, getattr(node, "lineno", src.line), what))

    if args.vararg or args.kwarg:
        extra = args.vararg or args.kwarg
        raise fail(extra, f"parameter '{extra.arg}': a kernel takes a fixed list of parameters (no *args or "
                          "**kwargs)")
    if args.kwonlyargs:
        raise fail(args.kwonlyargs[0], f"parameter '{args.kwonlyargs[0].arg}' is keyword-only; kernel "
                                       "arguments are passed by position")
    if args.defaults:
        first = args.posonlyargs + args.args
        p = first[len(first) - len(args.defaults)]
        raise fail(p, f"parameter '{p.arg}' has a default value; kernel parameters have none")
    annotations = getattr(fn, "__annotations__", {})
    closure = _closure(fn)
    hint = "write tack.Array, tack.Scalar or tack.Texture3D (tack.Array[np.float32] fixes the dtype)"
    out, names, layout = [], [], []
    for p in args.posonlyargs + args.args:
        if p.arg not in annotations:
            raise fail(p, f"parameter '{p.arg}' has no annotation: {hint}")
        ann = annotations[p.arg]
        if isinstance(ann, str):           # from __future__ import annotations
            try:
                ann = eval(ann, fn.__globals__, closure)
            except Exception as e:
                raise fail(p, f"parameter '{p.arg}': its annotation {annotations[p.arg]!r} does not evaluate "
                              f"({type(e).__name__}: {e})") from None
        expanded = expand(p.arg, ann, fail)
        if expanded is None:
            raise fail(p, f"parameter '{p.arg}' is annotated {ann!r}, which is not a kernel parameter type: {hint}"
                          " (or a @tack.struct of them)")
        out += expanded[0]
        names += expanded[1]
        layout.append(expanded[2])
    return out, names, layout


class _Body:
    """What the C++ kernel calls to trace: the Python kernel's function, replayed.
    It holds the Kernel by a weak reference only: the C++ kernel keeps this
    callable alive (to trace again when a global changes), and a strong
    reference back would be a cycle through C++ that Python cannot collect."""

    __slots__ = ("kernel",)

    def __init__(self) -> None:
        self.kernel = None

    def __call__(self, params: list) -> None:
        k = self.kernel() if self.kernel is not None else None
        if k is None:
            raise InvalidArgument("this kernel's Python object was deleted before its first call; keep the "
                                  "@tack.kernel object alive while it is used")
        reads = trace_kernel(k.name, k._source, params, k._layout)
        _core._set_global_guards(k, reads, changed)


class Kernel(_core.Kernel):
    """A compute kernel written in Python: call it with arrays and numbers
    (k(y, x, 2.0)); it is traced at its first call, then specialized and
    compiled per argument dtypes and ranks. Made by @tack.kernel."""

    def __init__(self, fn: Callable, name: Optional[str] = None, fp_contract: Optional[bool] = None):
        src = parse_function(fn, "@tack.kernel")
        kname = fn.__name__ if name is None else name
        if not isinstance(kname, str) or not kname:
            raise InvalidArgument(message(f"kernel {kname!r}", src.file, src.line, "a kernel's name must be a "
                                          "non-empty string"))
        validate(src, f"kernel '{kname}'", "@tack.kernel")
        params, flat_names, layout = _param_list(fn, src, kname)
        if bundles(layout) and not isinstance(self, BundledKernel):
            raise InvalidArgument(message(f"kernel '{kname}'", src.file, src.line, "a kernel with a @tack.struct "
                                          "parameter is made with @tack.kernel"))
        if fp_contract is not None and not isinstance(fp_contract, bool):
            raise InvalidArgument(message(f"kernel '{kname}'", src.file, src.line, "fp_contract must be True, "
                                          f"False or None (the process default), got {fp_contract!r}"))
        body = _Body()
        super().__init__(kname, params, body, src.file, src.line, flat_names, fp_contract)
        self._layout = layout if needs_layout(layout) else None
        self._python_names = [a.arg for a in src.node.args.posonlyargs + src.node.args.args]
        body.kernel = weakref.ref(self)
        self._source = src
        self.python_function = fn
        self.__wrapped__ = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self._where = f"{src.file}:{src.line}"

    def precompile(self, device: Any, *args: Any) -> None:
        """Compiles the variant these arguments select on device, without launching (see tack.precompile)."""
        _core._precompile(device, [(self, precompile_args(args))], 1)

    def __repr__(self) -> str:
        return f"<tack.Kernel '{self.name}' defined at {self._where}>"


class BundledKernel(Kernel):
    """A kernel with a @tack.struct parameter: a call passes each struct's
    fields as the core parameters they stand for (_bundles.py)."""

    def _flat_args(self, args: tuple, kwargs: Any = None) -> list:
        return flatten_args(self.name, self._python_names, self._layout, tuple(args), kwargs or {})

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        return _core.Kernel.__call__(self, *self._flat_args(args, kwargs))

    def precompile(self, device: Any, *args: Any) -> None:
        _core._precompile(device, [(self, precompile_args(self._flat_args(args)))], 1)


def _kernel_class(fn: Callable) -> type:
    """BundledKernel where a parameter is a @tack.struct (its annotation read
    as _param_list reads it; an annotation that does not evaluate is left to
    Kernel to report)."""
    annotations = dict(getattr(fn, "__annotations__", {}))
    for name, ann in annotations.items():
        if isinstance(ann, str):
            try:
                ann = eval(ann, fn.__globals__, _closure(fn))
            except Exception:  # noqa: BLE001
                continue
        if name != "return" and is_struct(ann):
            return BundledKernel
    return Kernel


def kernel(fn: Optional[Callable] = None, *, name: Optional[str] = None,
           fp_contract: Optional[bool] = None) -> Any:
    """Makes a tack.Kernel of a Python function: `@tack.kernel` or
    `@tack.kernel(name="saxpy")`. `fp_contract=False`: no float product fuses
    into a sum on any backend (None: TACK_FP_CONTRACT, else allowed as the
    numerical contract does). Parameters are annotated tack.Array,
    tack.Array[dtype], tack.Scalar, tack.Scalar[dtype] or tack.Texture3D; the
    body holds one `for ... in tack.parallel(...)` (or tack.workgroups) loop.
    See docs/python.md for the language.

    >>> @tack.kernel
    ... def saxpy(y: tack.Array, x: tack.Array, a: tack.Scalar):
    ...     for i in tack.parallel(y.size):
    ...         y[i] = a * x[i] + y[i]
    >>> dev = tack.device("cpu")
    >>> y = dev.array(np.ones(4, np.float32))
    >>> saxpy(y, dev.array(np.arange(4, dtype=np.float32)), 2.0)
    >>> y.numpy()
    array([1., 3., 5., 7.], dtype=float32)
    """
    if fn is None:
        return lambda f: _kernel_class(f)(f, name=name, fp_contract=fp_contract)
    return _kernel_class(fn)(fn, name=name, fp_contract=fp_contract)


def func(fn: Callable) -> Func:
    """Marks a helper function for kernels: `@tack.func`. It may take Values
    and Python values and return a value; every call inside a kernel is
    inlined, as a C++ helper taking Values is. Called outside a kernel, it is
    the plain Python function.

    >>> @tack.func
    ... def lerp(a, b, t):
    ...     return a + (b - a) * t
    >>> lerp(1.0, 3.0, 0.25)
    1.5
    """
    return Func(fn)
