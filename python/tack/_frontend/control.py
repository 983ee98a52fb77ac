# Python's compound statements in a kernel: `if` on a traced condition becomes
# _core.if_, `for ... in range` _core.for_range, `while` _core.while_,
# `for ... in tack.parallel / tack.workgroups` the kernel's parallel loop, and
# `for ... in tack.static_range` (or over a Python tuple) unrolls at trace time.
# An `if` on a Python value is decided at trace time: only the taken branch is traced.
from __future__ import annotations

import ast
import builtins
import operator
from typing import Any

from .. import _core
from .analysis import PARALLEL, TRACED
from .builtins import parallel, static_range, workgroups
from .expressions import CORE_TYPES, describe, has_value, is_value
from .frame import Break, Continue
from .returns import contains_return


class ControlMixin:
    """The compound statements of the Tracer (tracer.py)."""

    def stmt_If(self, s: ast.If) -> None:
        test = self.eval(s.test)
        if not is_value(test):
            if isinstance(test, CORE_TYPES):
                raise self.error(s, f"the condition of an if is {describe(test)}; compare it (x != 0)", "type")
            self.exec_block(s.body if test else s.orelse)   # decided now, as a C++ `if` on plain values
            return
        test = self.truth(test, s.test)        # `if v:` on a number means v != 0, as in Python
        self.prepare_returns(s, "if")
        self.predeclare(s)
        line = s.lineno
        bound = {"then": set(), "else": set()}
        returned = {"then": False, "else": False}

        def then_body() -> None:
            bound["then"] = self.run_body(s.body, "if", line)
            returned["then"] = self.last_terminated

        def else_body() -> None:
            bound["else"] = self.run_body(s.orelse, "else", line)
            returned["else"] = self.last_terminated

        self.at(s)
        _core.if_(test, then_body, else_body if s.orelse else None)
        self.mark_bound(bound["then"] & bound["else"])   # bound whichever way the if went
        if self.frame.ret is not None and returned["then"] and returned["else"]:
            self.frame.terminated = True                 # both branches returned

    def stmt_While(self, s: ast.While) -> None:
        test = s.test
        forever = isinstance(test, ast.Constant) and test.value is True
        self.prepare_returns(s, "while loop")
        self.predeclare(s)
        line = s.lineno

        def cond() -> Any:
            # Called by the core inside the loop, so the reads it records happen
            # at the top of every iteration (language.md, "Why while_ takes a function").
            self.at(test)
            if forever:
                return _core.literal(True)
            v = self.eval(test)
            if not is_value(v):
                raise self.error(s, "the condition of a while loop must be a traced value (a comparison of "
                                    f"kernel values), got {describe(v)}: a Python condition cannot change "
                                    "while the loop runs; use `while True:` with break, or tack.static_range",
                                 "type")
            return self.truth(v, test)        # `while v:` means while v != 0

        bound = set()

        def body() -> None:
            bound.update(self.run_body(s.body, "while", line))

        self.at(s)
        _core.while_(cond, body)
        if forever:       # its body runs at least up to the first statement that may break
            self.mark_bound(bound & _bound_before_break(s.body))

    def stmt_For(self, s: ast.For) -> None:
        kind = self.frame.analysis.for_kind[id(s)]
        if kind == PARALLEL:
            self.parallel_loop(s)
        elif kind == TRACED:
            self.range_loop(s)
        else:
            self.unrolled_loop(s)

    def loop_args(self, s: ast.For, expected: Any) -> list:
        call = s.iter
        fn = self.eval(call.func)
        if fn is not expected:
            raise self.error(s, f"'{ast.unparse(call.func)}' changed between the analysis of the kernel and its "
                                "trace")
        if call.keywords:
            raise self.error(s, f"{ast.unparse(call.func)}() takes no keyword arguments")
        return [self.eval(a) for a in call.args]

    def parallel_loop(self, s: ast.For) -> None:
        frame = self.frame
        marker = frame.resolve_static(s.iter.func)
        what = "tack.parallel" if marker is parallel else "tack.workgroups"
        if frame.role != "kernel" or self.in_parallel or frame.ctl:
            raise self.error(s, f"{what} must be the kernel's outermost loop, used once (not inside an if, "
                                "another loop or a @tack.func)")
        args = self.loop_args(s, marker)
        if marker is workgroups:
            if len(args) != 1:
                raise self.error(s, f"tack.workgroups takes one argument (the number of groups), got {len(args)}")
            if not isinstance(s.target, ast.Name):
                raise self.error(s, "write `for g in tack.workgroups(n):`; g is the Group")

            def body(group: Any) -> None:
                self.in_parallel = True
                frame.ctl.append("parallel")
                try:
                    self.assign_name(s.target.id, group, s)
                    self.exec_block(s.body)
                finally:
                    frame.ctl.pop()
                    self.in_parallel = False
                self.at(s)

            self.at(s)
            _core.workgroup_for(args[0], body)
            return
        if not 1 <= len(args) <= 4:
            raise self.error(s, f"tack.parallel takes 1 to 4 extents, got {len(args)}")
        targets = s.target.elts if isinstance(s.target, (ast.Tuple, ast.List)) else [s.target]
        if len(targets) != len(args) or not all(isinstance(t, ast.Name) for t in targets):
            raise self.error(s, f"tack.parallel with {len(args)} extent{'s' if len(args) > 1 else ''} gives "
                                f"{len(args)} index{'es' if len(args) > 1 else ''}: write `for "
                                f"{', '.join('ijkl'[:len(args)])} in tack.parallel(...)`")
        indices = _core.begin_parallel(args)
        self.in_parallel = True
        frame.ctl.append("parallel")
        try:
            for t, index in zip(targets, indices):
                self.assign_name(t.id, index, s)
            self.exec_block(s.body)
        finally:
            frame.ctl.pop()
            self.in_parallel = False
        self.at(s)
        _core.end_parallel()

    def range_loop(self, s: ast.For) -> None:
        args = self.loop_args(s, builtins.range)
        if not 1 <= len(args) <= 3:
            raise self.error(s, f"range() takes 1 to 3 arguments, got {len(args)}", "type")
        if not isinstance(s.target, ast.Name):
            raise self.error(s, "a range loop has one index: write `for k in range(...)`")
        lo, hi, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
        if has_value(step):
            raise self.error(s, "the step of a traced range loop must be a Python int known at trace time; for "
                                "a step that is a kernel value, use a while loop", "type")
        try:
            step = operator.index(step)
        except builtins.TypeError:
            raise self.error(s, f"the step of a range loop must be an int, got {describe(step)}", "type") from None
        if step == 0:
            raise self.error(s, "the step of a range loop must not be zero")
        frame, name, line = self.frame, s.target.id, s.lineno
        self.prepare_returns(s, "range loop")
        self.predeclare(s)

        def body(t: Any) -> None:
            # With a step other than 1 the core loop counts trips t = 0, 1, ...
            # and the index is lo + t * step, made at the top of each iteration.
            self.at(s)
            k = t if step == 1 else lo + t * step
            outer, prior = frame.range_indices.get(name), frame.locals.get(name)
            frame.range_indices[name] = line
            try:
                self.run_body(s.body, "for", line, {name: k})
            finally:
                if outer is not None:          # the index of an enclosing loop of the same name
                    frame.range_indices[name], frame.locals[name] = outer, prior
                else:                          # the index is the loop's own: gone after it
                    frame.range_indices.pop(name, None)
                    frame.locals.pop(name, None)
                    frame.ended[name] = (f"it is the index of the range loop at line {line}, which has "
                                         "ended (to keep its last value, assign it to a variable bound "
                                         "before the loop)")

        self.at(s)
        if step == 1:
            _core.for_range(lo, hi, body)
            return
        sign = 1 if step > 0 else -1
        if is_value(lo) or is_value(hi):
            trips = _core.floordiv(hi - lo + (step - sign), step)
        else:
            trips = max(0, (hi - lo + (step - sign)) // step)
        _core.for_range(0, trips, body)

    def unrolled_loop(self, s: ast.For) -> None:
        it = s.iter
        if isinstance(it, ast.Call) and self.frame.resolve_static(it.func) is static_range:
            args = self.loop_args(s, static_range)
            if has_value(args):
                raise self.error(s, "tack.static_range unrolls at trace time and needs Python ints; for bounds "
                                    "that are kernel values use range(...), a traced loop", "type")
            items = range(*args)
        else:
            items = self.eval(it)
            if isinstance(items, CORE_TYPES) or not isinstance(items, (tuple, list, range)):
                raise self.error(s, f"a kernel's for loop runs over range(...), tack.static_range(...), "
                                    f"tack.parallel(...), tack.workgroups(...) or a Python tuple or list, not "
                                    f"{describe(items)}", "type")
        frame = self.frame
        frame.ctl.append("static")
        try:
            self.unrolled_iterations(s, list(items), 0)
        finally:
            frame.ctl.pop()

    def unrolled_iterations(self, s: ast.For, items: list, start: int) -> None:
        frame = self.frame
        for k in range(start, len(items)):
            if k > start and frame.ret is not None and contains_return(s):
                if frame.terminated:
                    return
                # An earlier iteration may have returned: the others run only where it did not.
                def rest(k: int = k) -> None:
                    frame.ctl.append("if")
                    before, frame.terminated = frame.terminated, False
                    try:
                        self.unrolled_iterations(s, items, k)
                    finally:
                        frame.ctl.pop()
                        frame.terminated = before

                self.at(s)
                _core.if_(_core.logical_not(frame.ret.flag.value), rest, None)
                return
            self.assign(s.target, items[k], s)
            try:
                self.exec_block(s.body)
            except Break:
                break
            except Continue:
                continue


def _bound_before_break(stmts: list) -> set:
    """The names a `while True:` body binds at its top level before the first
    statement that may leave the loop: bound whenever the loop ends."""
    names = set()
    for st in stmts:
        if any(isinstance(n, ast.Break) for n in ast.walk(st)):
            break
        targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(
            st, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
    return names
