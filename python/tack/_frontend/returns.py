# `return` from inside traced control flow in a @tack.func. A return the
# tracer reaches outside any traced body ends the inlined call at trace time
# (frame.Return), as it always did. Where a return sits inside a traced if or
# loop, the function's result becomes kernel Vars (one per leaf of its
# structure, composite.py) and a "returned" flag Var, declared before the
# first traced statement that holds a return: a return assigns them, sets the
# flag and breaks out of the innermost traced loop around it; the statements
# after one that may have returned run under `if not returned` (in a loop
# body: `if returned: break`). A function with no such return traces exactly
# as before.
from __future__ import annotations

import ast
from typing import Any

from .. import _core
from .._errors import InvalidArgument
from .composite import CompositeVar, NotComposite, describe_structure, flatten, leaf_names
from .infer import Inference

_LOOPS = (ast.For, ast.While)


class ReturnSlot:
    """The Vars of one inlined call's result."""

    __slots__ = ("flag", "value", "structure", "line")

    def __init__(self, flag: Any, value: Any, structure: Any, line: int):
        self.flag, self.value, self.structure, self.line = flag, value, structure, line


def contains_return(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def return_in_loop(node: ast.AST) -> bool:
    """Whether a return sits inside a loop within node (node itself included)."""
    if isinstance(node, _LOOPS):
        return contains_return(node)
    return any(return_in_loop(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt))


class ReturnsMixin:
    """The deferred returns of the Tracer (tracer.py)."""

    def prepare_returns(self, s: ast.stmt, what: str) -> None:
        """Before traced control flow `s` in a @tack.func: the result's Vars,
        where `s` holds a return and they do not exist yet."""
        frame = self.frame
        if frame.role != "func" or frame.ret is not None or not self.in_parallel or not contains_return(s):
            return
        returns = sorted((n for n in ast.walk(frame.src.node) if isinstance(n, ast.Return)),
                         key=lambda n: (n.lineno, n.col_offset))      # in source order
        valued = [r for r in returns if r.value is not None]
        bare = [r for r in returns if r.value is None]
        if valued and bare:
            raise self.error(bare[0], f"'{frame.name}' returns a value at line {valued[0].lineno} and nothing at "
                                      f"line {bare[0].lineno}; every return must give a value of the same "
                                      "structure", "type")
        structure, line = None, s.lineno
        if valued:
            inference = Inference(frame, frame.src.node)
            for r in valued:
                structure = inference.infer(r.value)
                if structure is not None:
                    line = r.lineno
                    break
            else:
                raise self.error(s, f"cannot tell what '{frame.name}' returns before tracing the {what} at line "
                                    f"{s.lineno}, which may return from inside it: make one of its returns a "
                                    "tuple display, a tack.vec3(...) or @tack.func struct constructor, or a name "
                                    f"assigned before line {s.lineno}", "type")
        self.at(s)
        flag = _core.Var(False, name=f"{frame.name}.returned")
        value = None
        if structure is not None:
            names = leaf_names(structure, f"{frame.name}.result")
            value = CompositeVar(structure, [_core.Var(False, name=n) for n in names])
        frame.ret = ReturnSlot(flag, value, structure, line)

    def deferred_return(self, s: ast.Return) -> None:
        """A return reached where the result is kept in Vars."""
        frame = self.frame
        slot = frame.ret
        if s.value is not None:
            v = self.eval(s.value)
            try:
                structure, leaves = flatten(v)
            except NotComposite:
                raise self.error(s, f"'{frame.name}' returns from inside traced control flow, so its result is "
                                    f"kept in kernel variables, which hold numbers, vectors, tuples and structs "
                                    f"of numbers; this return gives {type(v).__name__}", "type") from None
            if structure != slot.structure:
                raise self.error(s, f"'{frame.name}' returns {describe_structure(structure)} here (line "
                                    f"{s.lineno}) but {describe_structure(slot.structure)} at line {slot.line}; "
                                    "every return of a @tack.func must give the same structure", "type")
            self.at(s)
            slot.value.assign(leaves)
        self.at(s)
        slot.flag.assign(True)
        frame.terminated = True
        for kind in reversed(frame.ctl):
            if kind in ("for", "while"):
                _core.break_()
                return
            if kind == "static":
                return

    def after_may_return(self, s: ast.stmt, rest: list) -> bool:
        """Runs after statement s of a block, when a result slot exists and s
        may have returned. True when it ran the rest of the block itself."""
        frame = self.frame
        flag = frame.ret.flag
        line = s.lineno
        if frame.ctl and frame.ctl[-1] in ("for", "while"):
            if return_in_loop(s):        # that return only left the inner loop
                self.at(s)
                _core.if_(flag.value, _core.break_, None)
            return False
        if not rest:
            return False
        self.at(s)
        outcome = {}

        def body() -> None:
            self.run_body(rest, "if", line)
            outcome["terminated"] = self.last_terminated

        _core.if_(_core.logical_not(flag.value), body, None)
        frame.terminated = outcome.get("terminated", False)
        return True

    def finish_returns(self, frame: Any, node: Any) -> Any:
        """The inlined call's result, read from its Vars."""
        slot = frame.ret
        if slot.value is None:
            return None
        if not frame.terminated:
            raise self.error_as(InvalidArgument, node, f"@tack.func '{frame.name}' may reach its end without a "
                                                        f"return, but it returns a value at line {slot.line} "
                                                        "(Python would return None there): end every path with "
                                                        "a return")
        self.at(node)
        return slot.value.read()


def recursion_error(stack: list, func: Any) -> str:
    names = [f.__name__ for f in stack[stack.index(func):]] + [func.__name__]
    return (f"@tack.func '{func.__name__}' is recursive ({' -> '.join(names)}): a @tack.func is inlined where "
            "it is called, so it cannot call itself; write the recursion as a loop")


__all__ = ["ReturnSlot", "ReturnsMixin", "contains_return", "recursion_error"]
