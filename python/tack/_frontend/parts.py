# Fields and components of structs and vectors as assignment targets and
# reads: `r.t = v`, `v.x += 1.0`, `m[1, 2] = s` rebind one leaf of the value a
# name holds (a struct or vector is a value: nothing else that holds it
# changes); where the name is a CompositeVar (composite.py) only that part's
# leaf Vars are assigned or read.
from __future__ import annotations

import ast
import copy
from typing import Any

from .. import _core
from .._errors import Error
from .composite import LEAF, NOT_A_PART, CompositeVar, NotComposite, field_path, flatten, leaf_count, unflatten
from .expressions import describe, is_number
from .structs import is_struct_value, replace as replace_field
from .vectors import Small


class PartsMixin:
    """The part targets of the Tracer (tracer.py)."""

    def part_target(self, target: ast.expr) -> bool:
        """Whether a target is a field or component of a struct / vector held
        by a name (r.t, v.x, r.origin.y, v[0], m[1, 2])."""
        node = target
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        if not isinstance(node, ast.Name):
            return False
        v = self.frame.locals.get(node.id)
        if isinstance(v, CompositeVar):
            return True               # its leaves are all numbers
        for step in self.part_path(target)[1]:
            if isinstance(v, Small):
                return True
            if not is_struct_value(v) or not isinstance(step, ast.Attribute):
                return False          # s.pos[i] = x: a store into the array a struct holds
            v = getattr(v, step.attr, None)
        return isinstance(v, Small) or is_struct_value(v) or is_number(v)

    def part_path(self, target: ast.expr) -> tuple:
        """(root name, [field names / flat component indices]) of a part target."""
        steps = []
        node = target
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            steps.append(node)
            node = node.value
        return node.id, list(reversed(steps))

    def assign_part(self, target: ast.expr, value: Any, node: Any) -> None:
        """r.t = v: the struct (vector) the name holds, with that leaf rebound
        (a struct or vector is a value: nothing else that holds it changes)."""
        root, steps = self.part_path(target)
        self.check_bound(root, target)
        current = self.frame.locals.get(root)
        if isinstance(current, CompositeVar):
            # Only the leaves of that part are assigned: the path is found on a
            # stand-in of the same structure, so no other leaf is read.
            shadow = unflatten(current.structure, [0] * len(current.vars))
            new = self._with_part(shadow, steps, value, target)
            start, count = self.part_leaves(current, shadow, steps, target)
            part = unflatten(*_sub(current.structure, start, count, flatten(shadow)[1]))
            try:
                got = flatten(value.value if isinstance(value, _core.Var) else value)[0]
            except NotComposite:
                got = None
            if got != flatten(part)[0]:
                raise self.error(node, f"'{ast.unparse(target)}' holds {describe(part)}; it cannot take "
                                       f"{describe(value)}", "type")
            self.at(node)
            current.assign(flatten(new)[1][start:start + count], start)   # with a field's cast to its dtype
            return
        frame = self.frame
        if frame.outer_names and root in frame.outer_names[-1][0] and not _numbers_only(frame.locals.get(root)):
            _, kind, line = frame.outer_names[-1]
            raise self.error(node, f"'{ast.unparse(target)}' changes '{root}', bound before the {kind} body at line "
                                   f"{line}; a struct that holds arrays cannot be a kernel variable, so its fields "
                                   "cannot change inside traced control flow (use a local for the changing value)",
                             "type")
        whole = self.eval(ast.Name(root, ast.Load(), lineno=target.lineno, col_offset=0))
        self.assign_name(root, self._with_part(whole, steps, value, target), node)

    def part_leaves(self, current: CompositeVar, shadow: Any, steps: list, target: ast.expr) -> tuple:
        """(first leaf, number of leaves) of the part a chain of steps selects."""
        path, part = [], shadow
        for st in steps:
            key = self._part_key(part, st, target)
            path.append(key)
            part = getattr(part, key) if isinstance(key, str) else part.c[key]
        start, structure = field_path(current.structure, path)
        return start, leaf_count(structure)

    def read_part(self, node: ast.expr) -> Any:
        """`h.t`, `v.x`, `r.origin.y` on a name holding a CompositeVar: only
        the leaves of that part are read. NOT_A_PART where node is not such a chain."""
        steps = []
        root = node
        while isinstance(root, ast.Attribute):
            steps.append(root)
            root = root.value
        if not steps or not isinstance(root, ast.Name):
            return NOT_A_PART
        current = self.frame.locals.get(root.id)
        if not isinstance(current, CompositeVar):
            return NOT_A_PART
        steps.reverse()
        shadow = unflatten(current.structure, [0] * len(current.vars))
        try:
            start, count = self.part_leaves(current, shadow, steps, node)
        except Error:
            return NOT_A_PART            # not a field or component (v.cast, a typo): read as usual
        self.check_bound(root.id, root)
        self.at(node)
        structure, _ = _sub(current.structure, start, count, None)
        return unflatten(structure, [v.value for v in current.vars[start:start + count]])

    def _part_key(self, obj: Any, step: ast.expr, target: ast.expr) -> Any:
        if isinstance(step, ast.Attribute):
            if isinstance(obj, Small):
                names = "xyzw"
                if step.attr not in names[:len(obj.c)] or hasattr(obj, "rows"):
                    raise self.error(target, f"a {obj.type_name()} has no component '{step.attr}'", "type")
                return names.index(step.attr)
            if is_struct_value(obj):
                if step.attr not in [f.name for f in type(obj)._tack_fields_]:
                    raise self.error(target, f"{type(obj).__name__} has no field '{step.attr}'", "type")
                return step.attr
        if isinstance(step, ast.Subscript) and isinstance(obj, Small):
            index = self.index_of(step.slice)
            if hasattr(obj, "rows"):
                if not isinstance(index, tuple):
                    raise self.error(target, "assign a matrix entry with m[i, j] = v", "type")
                obj[index]      # checks the indices
                return index[0] * obj.cols + index[1]
            obj[index]
            return index
        raise self.error(target, f"cannot assign to '{ast.unparse(target)}' in a kernel")

    def _with_part(self, obj: Any, steps: list, value: Any, target: ast.expr) -> Any:
        if not steps:
            return value
        key = self._part_key(obj, steps[0], target)
        if isinstance(key, str):
            inner = self._with_part(getattr(obj, key), steps[1:], value, target)
            return replace_field(obj, key, inner)
        if steps[1:]:
            raise self.error(target, f"cannot assign to '{ast.unparse(target)}' in a kernel")
        if isinstance(value, _core.Var):
            value = value.value
        if not is_number(value):
            raise self.error(target, f"a component of a {obj.type_name()} is a number, not {describe(value)}",
                             "type")
        comps = list(obj.c)
        comps[key] = value
        return obj.of(comps)


def as_load(target: ast.expr) -> ast.expr:
    """A copy of an assignment target that reads it."""
    t = copy.deepcopy(target)
    for n in ast.walk(t):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return t


def _sub(structure: tuple, start: int, count: int, leaves: Any) -> tuple:
    """The structure of the part at leaves [start, start + count) (found by
    field_path), and those leaves."""
    found = _find(structure, start, count, 0)
    return found, (leaves[start:start + count] if leaves is not None else None)


def _find(structure: tuple, start: int, count: int, offset: int) -> Any:
    if offset == start and leaf_count(structure) == count:
        return structure
    kind = structure[0]
    children = structure[1] if kind == "tuple" else structure[2] if kind == "struct" else ()
    if kind == "small":
        return LEAF
    for child in children:
        n = leaf_count(child)
        if offset <= start < offset + n:
            return _find(child, start, count, offset)
        offset += n
    return LEAF


def _numbers_only(value: Any) -> bool:
    try:
        flatten(value)
    except NotComposite:
        return False
    return True
