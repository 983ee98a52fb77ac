# The AST interpreter: replays a kernel's Python statements as calls of the
# tack._core tracing API (if_, for_range, while_, begin_parallel, Var, ...),
# the way a C++ kernel's lambdas call tack::lang. Plain Python runs at trace
# time; traced control flow runs each body once, inside the core's callbacks.
# Expressions are in expressions.py, calls in calls.py; the tables at the end
# say which method runs each kind of AST node.
from __future__ import annotations

import ast
import builtins
from typing import Any

from .. import _core
from .._errors import Error, InvalidArgument, TypeError as TackTypeError, UnboundNameError
from .analysis import PARALLEL, TRACED, UNROLLED, analyze, is_boolish
from .builtins import parallel, workgroups
from .calls import CallMixin
from .composite import (CompositeVar, NotComposite, describe_structure, flatten, is_composite, leaf_count, leaf_names,
                        unflatten)
from .control import ControlMixin
from .elements import ElementArray
from .infer import infer_expr
from .returns import ReturnsMixin, contains_return
from .state import Tracing
from .structs import make as make_struct
from .vectors import Small
from .guards import Reads
from .lazy import ShortCircuitMixin
from .parts import PartsMixin, as_load
from .expressions import (_BINOPS, ARRAY_TYPES, CORE_TYPES, ExpressionMixin, describe, has_value, is_number,
                          is_value)
from .frame import Break, Continue, Frame, Return
from .source import Source, message

_TRACED_BODIES = ("if", "else", "for", "while")
_MISSING = object()


def accumulator_start(init: Any) -> Any:
    """A Python int that starts an accumulator, as a strong i32 (i64 when it
    does not fit), the type of C++'s literal; any other value unchanged."""
    if isinstance(init, int) and not isinstance(init, bool):
        wide = not -2**31 <= init < 2**31
        return _core.cast(_core.DType.i64 if wide else _core.DType.i32, init)
    return init


class Tracer(ExpressionMixin, ShortCircuitMixin, CallMixin, ControlMixin, ReturnsMixin, PartsMixin):
    def __init__(self, kernel_name: str):
        self.kernel = kernel_name
        self.frame: Frame = None
        self.loc = (None, 0)
        self.in_parallel = False
        self.depth = 0
        self.inline_stack: list = []       # the @tack.func calls being inlined, outermost first
        self.last_terminated = False       # whether the traced body run last returned on every path
        self._analyses: dict = {}
        self.reads = Reads()

    # ---- errors and locations ----------------------------------------------------

    def error(self, node: Any, what: str, kind: str = "invalid") -> Exception:
        return self.error_as(TackTypeError if kind == "type" else InvalidArgument, node, what)

    def error_as(self, cls: type, node: Any, what: str) -> Exception:
        f = self.frame
        line = getattr(node, "lineno", None) or f.src.line
        if f.role == "func" and not what.startswith("in @tack.func"):
            what = f"in @tack.func '{f.name}': {what}"
        return cls(message(f"kernel '{self.kernel}'", f.src.file, line, what))

    def set_loc(self, file: Any, line: int) -> None:
        if (file, line) != self.loc:
            self.loc = (file, line)
            _core.set_location(file, line)

    def at(self, node: Any) -> None:
        """Every traced call made from now on carries this node's Python line."""
        self.set_loc(self.frame.src.file, node.lineno)

    def analysis_of(self, src: Source, frame: Frame):
        a = self._analyses.get(id(src))
        if a is None:
            def classify(loop: ast.For) -> str:
                it = loop.iter
                target = frame.resolve_static(it.func) if isinstance(it, ast.Call) else None
                if target is builtins.range:
                    return TRACED
                if target is parallel or target is workgroups:
                    return PARALLEL
                return UNROLLED
            a = self._analyses[id(src)] = analyze(src.node, classify)
        return a

    # ---- running statements ------------------------------------------------------

    def run_kernel(self, src: Source, params: list, layout: list = None) -> None:
        names = [a.arg for a in src.node.args.posonlyargs + src.node.args.args]
        self.frame = Frame(self, src, "kernel", self.kernel, {})
        if layout is not None:
            self.set_loc(src.file, src.line)      # where an array of vectors' shape check points
        self.frame.locals.update(zip(names, _parameters(params, layout, names)))
        self.exec_block(src.node.body)

    def eval(self, node: ast.expr) -> Any:
        method = _EXPRESSIONS.get(type(node))
        if method is None:
            raise self.error(node, f"{type(node).__name__} expressions are not supported in a kernel")
        return method(self, node)

    def exec_block(self, stmts: list) -> None:
        frame = self.frame
        for k, s in enumerate(stmts):
            self.exec_stmt(s)
            if frame.ret is None:
                continue            # no return inside traced control flow: as Python runs it
            if frame.terminated:
                return              # every path returned: the rest cannot run
            if contains_return(s) and self.after_may_return(s, stmts[k + 1:]):
                return

    def exec_stmt(self, s: ast.stmt) -> None:
        self.at(s)
        method = _STATEMENTS.get(type(s))
        if method is None:
            raise self.error(s, f"a '{type(s).__name__}' statement is not supported in a kernel")
        try:
            method(self, s)
        except (Break, Continue, Return):
            raise
        except Error as e:
            if str(e).startswith("kernel '"):
                raise
            # A tack error raised without a location (a dtype that is not one,
            # a bad atomic index): give it this statement's.
            raise self.error_as(type(e), s, str(e)) from e
        except builtins.TypeError as e:
            raise self.error(s, str(e), "type") from e
        except Exception as e:
            raise self.error(s, f"{type(e).__name__}: {e}") from e

    def run_body(self, stmts: list, kind: str, line: int, bind: dict = None) -> None:
        """One traced body (an if_ branch, a for_range or while_ body), run inside
        the core's callback. Names first bound in it are dropped when it ends:
        their Values belong to the body, as a C++ lambda's locals do."""
        frame = self.frame
        before = set(frame.locals)
        unbound_before = dict(frame.unbound)
        if bind:
            frame.locals.update(bind)
        frame.ctl.append(kind)
        frame.bound_in.append(set())
        frame.outer_names.append((before, kind, line))
        terminated_before, frame.terminated = frame.terminated, False
        try:
            self.exec_block(stmts)
        finally:
            frame.ctl.pop()
            frame.outer_names.pop()
            bound = frame.bound_in.pop()
            frame.unbound = unbound_before     # what one path bound, the others may not have
            self.last_terminated, frame.terminated = frame.terminated, terminated_before
        for name in [n for n in frame.locals if n not in before]:
            del frame.locals[name]
            frame.ended[name] = (f"it was bound in the {kind} body at line {line}, which has ended (a name "
                                 "assigned inside traced control flow and used after it must be assigned "
                                 "before it too; it then becomes a Var)")
        self.set_loc(frame.src.file, line)
        return bound

    def mark_bound(self, names: set) -> None:
        """Names bound on every path through a statement just traced."""
        frame = self.frame
        for name in names:
            frame.unbound.pop(name, None)
        if frame.bound_in:
            frame.bound_in[-1].update(names)

    def check_bound(self, name: str, node: Any) -> None:
        """Python raises UnboundLocalError where a name is read on a path that
        never bound it; a trace covers every path at once, so a read of a name
        bound on some paths only is refused here, naming both lines."""
        statement_at = self.frame.unbound.get(name)
        if statement_at is None:
            return
        bound_at = self.frame.first_bound.get(name)
        how = f"line {bound_at} binds it" if bound_at else "it is bound"
        raise self.error_as(UnboundNameError, node, f"'{name}' is read here, but {how} only on some paths (inside "
                                                    f"the if/for/while at line {statement_at}); Python would "
                                                    f"raise UnboundLocalError on the others. Bind it before line "
                                                    f"{statement_at} (e.g. {name} = 0.0), or in every branch")

    def new_var(self, init: Any, node: Any, name: str, literal_as_is: bool = False, label: str = None) -> Any:
        """A Var (a CompositeVar for a vector, tuple or struct) for the name
        `name`; `label` is what tack.inspect calls a leaf (`acc.x`)."""
        if is_composite(init):
            try:
                structure, leaves = flatten(init)
            except NotComposite:
                structure = None
            if structure is not None:
                self.at(node)
                return CompositeVar(structure, [self.new_var(x, node, name, literal_as_is, n)
                                                for x, n in zip(leaves, leaf_names(structure, label or name))])
        if not is_number(init):
            raise self.error(node, f"'{name}' is assigned inside a traced if/for/while body and used outside "
                                   f"it, so it is a kernel variable (Var), and a Var holds a number, not "
                                   f"{describe(init)}", "type")
        self.at(node)
        # An accumulator started from a Python int holds at least 32 bits, as
        # C++'s `Var acc = 0` does: a count or a sum over uint8 data must not
        # wrap at 8 bits (docs/semantics.md). Any other Var keeps the literal
        # weak (`x = 0` then `x = 1.5` is a float64), and so does the
        # placeholder of a name not bound yet (literal_as_is).
        if literal_as_is or name not in self.frame.analysis.accumulators:
            return _core.Var(init, name=label or name)
        return _core.Var(accumulator_start(init), name=label or name)

    def predeclare(self, s: ast.stmt) -> None:
        """Declares, just before a traced if/for/while statement, the Vars it
        needs (analysis.analyze) that are not Vars yet: an unbound name as
        Var(0) (Var(False) when the first value assigned to it is plainly a
        bool), a bound one (a parameter, a Value, a number) as Var(its value).
        A Var must exist before the body that assigns it, as in C++."""
        if not self.in_parallel:
            return      # traced control flow outside the parallel loop: the core refuses it
        frame = self.frame
        needed = frame.analysis.needs_var.get(id(s), ())
        # Bound names in the order they were first bound (a C++ author declares
        # `Var x = 0.0f, y = 0.0f;` where Python first assigns them), then the others.
        position = {name: k for k, name in enumerate(frame.locals)}
        needed = sorted(needed, key=lambda nf: (0, position[nf[0]]) if nf[0] in position else (1, 0))
        for name, first in needed:
            if name in frame.range_indices:
                continue      # assigning it is refused where it happens
            current = frame.locals.get(name, _MISSING)
            if isinstance(current, (_core.Var, CompositeVar)):
                continue
            if name in frame.analysis.part_roots and current is not _MISSING and not _parts_are_numbers(current):
                continue      # s.pos[i] = v, y[i] = v: a store into an array, not an assignment of the name
            missing = current is _MISSING
            if missing:
                structure = infer_expr(frame, frame.src.node, first) if first is not None else None
                if structure is not None and structure[0] != "leaf":
                    # False takes the dtype of what is assigned (a bool stays a bool), as 0 would not
                    current = unflatten(structure, [False] * leaf_count(structure))
                else:
                    current = False if is_boolish(first) else 0
            frame.locals[name] = self.new_var(current, s, name, literal_as_is=missing)
            frame.ended.pop(name, None)
            if missing:
                frame.unbound[name] = s.lineno

    def assign_name(self, name: str, value: Any, node: Any) -> None:
        frame = self.frame
        if name in frame.range_indices:
            raise self.error(node, f"'{name}' is the index of the range loop at line {frame.range_indices[name]} "
                                   f"and cannot be assigned (copy it first: j = {name})")
        current = frame.locals.get(name)
        if isinstance(current, CompositeVar):
            try:
                structure, leaves = flatten(value)
            except NotComposite:
                structure = None
            if structure != current.structure:
                raise self.error(node, f"'{name}' is a kernel variable holding {describe_structure(current.structure)}"
                                       f"; it cannot take {describe(value)}", "type")
            self.at(node)
            current.assign(leaves)
        elif isinstance(current, _core.Var):
            if not is_number(value):
                raise self.error(node, f"'{name}' is a kernel variable (Var) and holds a number, not "
                                       f"{describe(value)}", "type")
            self.at(node)
            current.assign(value)
        else:
            frame.locals[name] = value
        frame.ended.pop(name, None)
        frame.first_bound.setdefault(name, getattr(node, "lineno", 0))
        self.mark_bound({name})

    def assign(self, target: ast.expr, value: Any, node: Any) -> None:
        if isinstance(target, ast.Name):
            self.assign_name(target.id, value, node)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, _core.Shape):
                self.at(node)
                value = value.unpack(len(target.elts))    # h, w = a.shape: the call checks a's rank is 2
            if isinstance(value, Small) and not hasattr(value, "rows"):
                value = value.c                           # x, y, z = v
            if isinstance(value, CORE_TYPES) or not isinstance(value, (tuple, list, range)):
                raise self.error(node, f"cannot unpack {describe(value)} into {len(target.elts)} names", "type")
            if len(value) != len(target.elts):
                raise self.error(node, f"cannot unpack {len(value)} values into {len(target.elts)} names", "type")
            for t, v in zip(target.elts, value):
                self.assign(t, v, node)
        elif isinstance(target, ast.Subscript):
            if self.part_target(target):
                self.assign_part(target, value, node)
                return
            obj, index = self.subscript_parts(target)
            self.store(obj, index, value, target)
        elif isinstance(target, ast.Attribute) and self.part_target(target):
            self.assign_part(target, value, node)
        else:
            raise self.error(node, f"cannot assign to '{ast.unparse(target)}' in a kernel")

    def store(self, obj: Any, index: Any, value: Any, node: Any) -> None:
        if isinstance(obj, ARRAY_TYPES):
            self.at(node)
            obj.store(self.array_index(obj, index, node), value)
        elif isinstance(obj, ElementArray):
            self.at(node)
            obj.store(index, value)
        elif isinstance(obj, (list, dict)) and not has_value(index):
            obj[index] = value        # a Python table filled at trace time
        else:
            raise self.error(node, f"cannot store into {describe(obj)}" +
                             (" at a traced index" if has_value(index) else ""), "type")

    # ---- simple statements ---------------------------------------------------------

    def stmt_Pass(self, s: ast.Pass) -> None:
        pass

    def stmt_Expr(self, s: ast.Expr) -> None:
        if isinstance(s.value, ast.Constant):
            return            # a docstring
        if not isinstance(s.value, ast.Call):
            raise self.error(s, f"the expression '{ast.unparse(s.value)}' on its own does nothing; a kernel "
                                "statement is an assignment, a store, control flow or a call")
        self.eval(s.value)

    def stmt_Assign(self, s: ast.Assign) -> None:
        value = self.eval(s.value)
        for t in s.targets:
            self.assign(t, value, s)

    def stmt_AnnAssign(self, s: ast.AnnAssign) -> None:
        if s.value is not None:
            self.assign(s.target, self.eval(s.value), s)

    def stmt_AugAssign(self, s: ast.AugAssign) -> None:
        if type(s.op) not in _BINOPS:
            raise self.error(s, "the operator @= is not supported in a kernel")
        op = type(s.op)
        target = s.target
        if isinstance(target, ast.Name):
            # The operand first, as C++17 sequences x += v in every compiler: unlike
            # an operator's operands, the order is the language's, and an operand
            # that writes (an atomic) must not move past the read of the target.
            rhs = self.eval(s.value)
            current = self.frame.locals.get(target.id, _MISSING)
            if isinstance(current, CompositeVar):
                self.check_bound(target.id, target)
                self.at(s)
                self.assign_name(target.id, self.binop(s, op, current.read(), rhs), s)
                return
            if isinstance(current, _core.Var):
                self.check_bound(target.id, target)
                self.at(s)
                current.assign(self.binop(s, op, current.value, rhs))   # what C++'s Var::operator+= does
                return
            old = self.eval(ast.copy_location(ast.Name(target.id, ast.Load()), target))
            if is_value(rhs) and isinstance(old, int) and not isinstance(old, bool):
                self.at(s)
                old = accumulator_start(old)   # s = 0; s += img[k] (unrolled): at least 32 bits, as a Var's
            self.assign_name(target.id, self.binop(s, op, old, rhs), s)
        elif isinstance(target, (ast.Subscript, ast.Attribute)) and self.part_target(target):
            rhs = self.eval(s.value)
            old = self.eval(ast.copy_location(as_load(target), target))
            self.assign_part(target, self.binop(s, op, old, rhs), s)
        elif isinstance(target, ast.Subscript):
            rhs = self.eval(s.value)          # first, as for a name above
            obj, index = self.subscript_parts(target)
            if isinstance(obj, ElementArray):
                self.at(s)       # per component: a load, the operation, a store
                obj.update(index, lambda a, b: self.binop(s, op, a, b), rhs)
                return
            if isinstance(obj, ARRAY_TYPES):
                self.at(s)       # a[i] += v: a load, the operation, a store (not atomic)
                i = self.array_index(obj, index, s)
                obj.store(i, self.binop(s, op, obj.load(i), rhs))
            else:
                self.store(obj, index, self.binop(s, op, obj[index], rhs), s)
        else:
            raise self.error(s, f"cannot assign to '{ast.unparse(target)}' in a kernel")

    def stmt_Assert(self, s: ast.Assert) -> None:
        test = self.eval(s.test)
        if has_value(test):
            raise self.error(s, "assert on a traced Value: an assert in a kernel checks Python values at trace "
                                "time", "type")
        if not test:
            note = f": {self.eval(s.msg)}" if s.msg is not None else ""
            raise self.error(s, f"assertion failed at trace time: {ast.unparse(s.test)}{note}")

    def stmt_Return(self, s: ast.Return) -> None:
        frame = self.frame
        if frame.role == "kernel":
            if id(s) not in frame.analysis.terminal_returns:
                raise self.error(s, "a 'return' in a kernel may only be its last statement")
            return            # the last statement: nothing follows to skip
        if frame.ret is not None:
            self.deferred_return(s)      # the result lives in Vars (returns.py)
            return
        if any(k in _TRACED_BODIES for k in frame.ctl):
            raise self.error(s, "'return' inside traced control flow, but the result Vars were not declared "
                                "(this return is inside traced control flow outside the parallel loop)")
        raise Return(self.eval(s.value) if s.value is not None else None)

    def leave_loop(self, s: ast.stmt, what: str) -> None:
        crossed_if = False
        for kind in reversed(self.frame.ctl):
            if kind in ("for", "while"):
                self.at(s)
                (_core.break_ if what == "break" else _core.continue_)()
                return
            if kind == "static":
                if crossed_if:
                    raise self.error(s, f"'{what}' inside a traced if cannot leave a tack.static_range loop "
                                        "(it is unrolled at trace time)")
                raise Break() if what == "break" else Continue()
            if kind == "parallel":
                break
            crossed_if = True
        raise self.error(s, f"'{what}' outside a loop: the body of tack.parallel / tack.workgroups is not a "
                            "loop you can leave (use if to skip work)")

    def stmt_Break(self, s: ast.Break) -> None:
        self.leave_loop(s, "break")

    def stmt_Continue(self, s: ast.Continue) -> None:
        self.leave_loop(s, "continue")


# What runs each kind of statement and expression, by the node's exact class:
# a kind not listed here is refused with the message of exec_stmt or eval.
_STATEMENTS = {
    ast.Pass: Tracer.stmt_Pass, ast.Expr: Tracer.stmt_Expr, ast.Assign: Tracer.stmt_Assign,
    ast.AnnAssign: Tracer.stmt_AnnAssign, ast.AugAssign: Tracer.stmt_AugAssign, ast.Assert: Tracer.stmt_Assert,
    ast.Return: Tracer.stmt_Return, ast.Break: Tracer.stmt_Break, ast.Continue: Tracer.stmt_Continue,
    ast.If: Tracer.stmt_If, ast.While: Tracer.stmt_While, ast.For: Tracer.stmt_For,
}
_EXPRESSIONS = {
    ast.Constant: Tracer.expr_Constant, ast.Name: Tracer.expr_Name, ast.Attribute: Tracer.expr_Attribute,
    ast.Subscript: Tracer.expr_Subscript, ast.BinOp: Tracer.expr_BinOp, ast.UnaryOp: Tracer.expr_UnaryOp,
    ast.Compare: Tracer.expr_Compare, ast.Tuple: Tracer.expr_Tuple, ast.List: Tracer.expr_List,
    ast.Set: Tracer.expr_Set, ast.Dict: Tracer.expr_Dict, ast.IfExp: Tracer.expr_IfExp,
    ast.BoolOp: Tracer.expr_BoolOp, ast.Call: Tracer.expr_Call,
}


def _parts_are_numbers(value: Any) -> bool:
    """Whether a value is a vector, tuple or struct of numbers (a Var can hold it leaf by leaf)."""
    if not is_composite(value):
        return False
    try:
        flatten(value)
    except NotComposite:
        return False
    return True


def trace_kernel(kernel_name: str, src: Source, params: list, layout: list = None) -> list:
    """The body given to _core.Kernel: traces the kernel's function. Returns
    what it read from outside (guards.Reads.as_list)."""
    tracer = Tracer(kernel_name)
    try:
        with Tracing():
            tracer.run_kernel(src, params, layout)
    finally:
        _core.set_location(None, 0)
    return tracer.reads.as_list()


def _parameters(params: list, layout: Any, names: list) -> list:
    """The kernel's Python parameters from the core's flat list: an array of
    vectors becomes an ElementArray, a struct parameter the struct of its
    fields' parameters (tack/_kernel.py, the layout)."""
    if layout is None:
        return params
    it = iter(params)

    def build(entry: tuple, name: str) -> Any:
        kind = entry[0]
        if kind == "plain":
            return next(it)
        if kind == "element":
            return ElementArray(next(it), entry[1], name)
        if kind == "small":
            return entry[1].of([next(it) for _ in range(entry[2])])
        cls = entry[1]
        return make_struct(cls, [build(e, f"{name}.{f.name}") for f, e in zip(cls._tack_fields_, entry[2])])

    return [build(e, n) for e, n in zip(layout, names)]
