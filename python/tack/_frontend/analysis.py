# Static passes over a kernel's or @tack.func's AST, run before it is traced:
# `validate` refuses the Python constructs the kernel language has no meaning
# for, and `analyze` decides which locals must be kernel Vars. The rule for the
# latter mirrors what a C++ author would write, so both front ends give the
# same IR (see `analyze`).
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Optional

from .._errors import InvalidArgument
from .source import Source, message

# Constructs refused wherever they appear, with the words used in the error.
_UNSUPPORTED = {
    ast.FunctionDef: "a nested function definition (define it outside the kernel and decorate it with @tack.func)",
    ast.AsyncFunctionDef: "a nested function definition",
    ast.ClassDef: "a class definition",
    ast.Lambda: "a lambda",
    ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression",
    ast.Try: "a 'try' statement",
    ast.With: "a 'with' statement",
    ast.AsyncWith: "an 'async with' statement",
    ast.AsyncFor: "an 'async for' loop",
    ast.Global: "a 'global' statement",
    ast.Nonlocal: "a 'nonlocal' statement",
    ast.Delete: "a 'del' statement",
    ast.Yield: "'yield'",
    ast.YieldFrom: "'yield from'",
    ast.Await: "'await'",
    ast.JoinedStr: "an f-string",
    ast.NamedExpr: "an assignment expression (:=)",
    ast.Import: "an 'import' statement",
    ast.ImportFrom: "an 'import' statement",
    ast.Raise: "a 'raise' statement",
    ast.Starred: "a starred expression (*x)",
    ast.Slice: "a slice (a[i:j]); index one element at a time",
}
for _name, _what in (("TryStar", "a 'try' statement"), ("Match", "a 'match' statement")):
    if hasattr(ast, _name):
        _UNSUPPORTED[getattr(ast, _name)] = _what


def validate(src: Source, who: str, role: str) -> None:
    """Raises tack.InvalidArgument at the first construct a kernel cannot hold."""
    def fail(node: ast.AST, what: str) -> None:
        raise InvalidArgument(message(who, src.file, getattr(node, "lineno", src.line), what))

    for stmt in src.node.body:
        for node in ast.walk(stmt):
            what = _UNSUPPORTED.get(type(node))
            if what is not None:
                fail(node, f"{what} is not supported in a kernel")
            if isinstance(node, (ast.For, ast.While)) and node.orelse:
                fail(node.orelse[0], f"the 'else' of a '{'for' if isinstance(node, ast.For) else 'while'}' "
                                     "loop is not supported in a kernel")
            if isinstance(node, ast.keyword) and node.arg is None:
                fail(node.value, "a '**' argument is not supported in a kernel")
            if role == "@tack.kernel" and isinstance(node, ast.Return) and node.value is not None:
                fail(node, "a kernel returns nothing: write results into an array (only a @tack.func may "
                           "return a value)")


# How the tracer runs each `for` statement; the analysis needs it because only
# traced loops are bodies of their own.
TRACED = "traced"            # for k in range(...): a for_range
PARALLEL = "parallel"        # tack.parallel / tack.workgroups: the kernel's top level
UNROLLED = "unrolled"        # tack.static_range, or a Python tuple/list: unrolled at trace time


@dataclass
class Analysis:
    # For each if/while statement and traced for loop (by id): the names that
    # must be Vars when it is traced, in the order of their first assignment,
    # each with the value of that first assignment (or None).
    needs_var: dict = field(default_factory=dict)
    for_kind: dict = field(default_factory=dict)     # id(For) -> TRACED / PARALLEL / UNROLLED
    terminal_returns: set = field(default_factory=set)
    # Names that accumulate: the target of an augmented assignment (s += v) or
    # of an assignment that reads the name itself (s = s + v).
    accumulators: set = field(default_factory=set)
    # Names whose part is assigned (v.x = ..., m[1, 2] = ..., s.pos[i] = ...): a Var
    # where the name holds a vector or struct of numbers, nothing where it holds an array.
    part_roots: set = field(default_factory=set)


def _target_names(target: ast.AST) -> list:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _part_roots(target: ast.AST) -> list:
    """The names under the subscript and attribute targets of an assignment (v of v.x = ..., v[0] = ...)."""
    targets = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
    roots = []
    for t in targets:
        if not isinstance(t, (ast.Subscript, ast.Attribute)):
            continue
        while isinstance(t, (ast.Subscript, ast.Attribute)):
            t = t.value
        if isinstance(t, ast.Name):
            roots.append(t.id)
    return roots


def is_boolish(node: Optional[ast.AST]) -> bool:
    """Whether an expression obviously gives a bool, so that a Var declared
    ahead of it starts as False rather than 0 (an int Var cannot be a condition)."""
    if isinstance(node, (ast.Compare, ast.BoolOp)):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return True
    if isinstance(node, ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        return name in ("isnan", "isinf", "logical_and", "logical_or", "logical_not")
    return False


def analyze(fn: ast.FunctionDef, classify_for: Callable[[ast.For], str]) -> Analysis:
    """Which locals of `fn` become kernel Vars, and where they are declared.

    A local is a Var when it is assigned inside the body of an `if` on a traced
    condition, of a `for ... in range(...)` or of a `while`, and also read or
    assigned anywhere outside that statement's bodies (its condition included).
    It is declared just before the outermost such statement is traced: with
    its current value if it has one, else as Var(0) (Var(False) when its first
    assignment is plainly a bool); from then on every assignment assigns the
    Var. The bodies of tack.parallel / tack.workgroups are the top level, and
    unrolled loops (tack.static_range) and an `if` on a Python value (decided
    at trace time) add no body. Parameters count as assigned at the top.
    Every other local is a plain Value, as `Value x = ...` in C++, so a kernel
    written in Python and its C++ twin give the same IR.

    This pass cannot tell an `if` on a traced Value from one on a Python value;
    it lists names for every `if`, and the tracer uses the list only for the
    ifs it traces.
    """
    result = Analysis()
    refs: list = []                     # (name, region path)
    counter = [0]
    # id(stmt) -> (its body regions, [(name, first value)] assigned inside, the path it is at)
    candidates: dict = {}
    # region -> id of the `if` whose branch it is, or LOOP for a loop body (traced or unrolled)
    owner: dict = {}
    LOOP = "loop"

    def new_region(path: tuple, of: object) -> tuple:
        counter[0] += 1
        owner[counter[0]] = of
        return path + (counter[0],)

    def exclusive(ref: tuple, at: tuple) -> bool:
        """Whether a use at path `ref` can never see a value assigned by the
        statement at path `at`: they sit in two branches of one if (an `elif`
        and the branch before it), with no loop around both to carry it."""
        common = 0
        while common < min(len(ref), len(at)) and ref[common] == at[common]:
            common += 1
        if common == len(ref) or common == len(at):
            return False
        a, b = owner[ref[common]], owner[at[common]]
        return a == b and a != LOOP and not any(owner[r] == LOOP for r in ref[:common])

    def loads(node: Optional[ast.AST], path: tuple) -> None:
        if node is None:
            return
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                refs.append((n.id, path))

    def stores(target: ast.AST, path: tuple) -> None:
        for n in ast.walk(target):
            if isinstance(n, ast.Name):
                refs.append((n.id, path))
            elif isinstance(n, (ast.Subscript, ast.Attribute)):
                loads(n.value, path)
                if isinstance(n, ast.Subscript):
                    loads(n.slice, path)

    def assigned(stmts: list) -> list:
        order: dict = {}
        for s in stmts:
            for n in ast.walk(s):
                if isinstance(n, ast.Assign):
                    first = n.value if len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) else None
                    for t in n.targets:
                        for name in _target_names(t):
                            order.setdefault(name, first)
                        for name in _part_roots(t):
                            order.setdefault(name, None)
                            result.part_roots.add(name)
                elif isinstance(n, ast.AugAssign) and _part_roots(n.target):
                    for name in _part_roots(n.target):
                        order.setdefault(name, None)
                        result.part_roots.add(name)
                elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Name):
                    if isinstance(n, ast.AnnAssign) and n.value is None:
                        continue
                    order.setdefault(n.target.id, n.value if isinstance(n, ast.AnnAssign) else None)
                elif isinstance(n, ast.For) and result.for_kind.get(id(n)) != TRACED:
                    for name in _target_names(n.target):
                        order.setdefault(name, None)
        return list(order.items())

    for n in ast.walk(fn):
        if isinstance(n, ast.For):
            result.for_kind[id(n)] = classify_for(n)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            result.accumulators.add(n.target.id)
        elif isinstance(n, ast.Assign):
            read = {r.id for r in ast.walk(n.value) if isinstance(r, ast.Name)}
            result.accumulators.update(name for t in n.targets for name in _target_names(t) if name in read)

    def block(stmts: list, path: tuple) -> None:
        for s in stmts:
            stmt(s, path)

    def stmt(s: ast.stmt, path: tuple) -> None:
        if isinstance(s, ast.If):
            loads(s.test, path)
            then, other = new_region(path, id(s)), new_region(path, id(s))
            candidates[id(s)] = ({then[-1], other[-1]}, assigned(s.body + s.orelse), path)
            block(s.body, then)
            block(s.orelse, other)
        elif isinstance(s, ast.For):
            loads(s.iter, path)
            kind = result.for_kind[id(s)]
            if kind == TRACED:
                body = new_region(path, LOOP)       # the index is the body's own, not an assignment
                candidates[id(s)] = ({body[-1]}, assigned(s.body), path)
                block(s.body, body)
            elif kind == UNROLLED:
                # Not a traced body, but its iterations follow one another: a
                # value one leaves is seen by the next.
                body = new_region(path, LOOP)
                stores(s.target, body)
                block(s.body, body)
            else:
                stores(s.target, path)
                block(s.body, path)
        elif isinstance(s, ast.While):
            loads(s.test, path)    # the condition is re-read each iteration, outside the body
            body = new_region(path, LOOP)
            candidates[id(s)] = ({body[-1]}, assigned(s.body), path)
            block(s.body, body)
        elif isinstance(s, ast.Assign):
            loads(s.value, path)
            for t in s.targets:
                stores(t, path)
        elif isinstance(s, ast.AugAssign):
            loads(s.value, path)
            stores(s.target, path)
            if isinstance(s.target, ast.Name):
                refs.append((s.target.id, path))
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                loads(s.value, path)
                stores(s.target, path)
        else:
            loads(s, path)

    for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
        refs.append((a.arg, ()))
    block(fn.body, ())

    paths: dict = {}
    for name, path in refs:
        paths.setdefault(name, []).append(path)
    for sid, (bodies, names, at) in candidates.items():
        result.needs_var[sid] = [(name, first) for name, first in names
                                 if any(not (set(p) & bodies) and not exclusive(p, at) for p in paths.get(name, ()))]

    def terminal(stmts: list) -> None:
        # A kernel's `return` with nothing after it (at any depth) ends nothing.
        if not stmts:
            return
        last = stmts[-1]
        if isinstance(last, ast.Return):
            result.terminal_returns.add(id(last))
        elif isinstance(last, ast.For) and result.for_kind.get(id(last)) == PARALLEL:
            terminal(last.body)
        elif isinstance(last, ast.If):
            terminal(last.body)
            terminal(last.orelse)

    terminal(fn.body)
    return result
