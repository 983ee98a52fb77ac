#!/usr/bin/env python3
"""Checks that no file under src/, include/ or python/src/ includes a header
from a layer above its own (docs/architecture.md draws the layers), and that
each file's namespaces match its folder: src/backends/cuda/ is
tack::backends::cuda, src/passes/ is tack::passes, and so on (NAMESPACES below).

A layer may include itself and every layer below it, unless REACHES names the
only layers it may include: the Python bindings (python/src, tack._core) reach
the core through the public headers and src/api/frontend.hpp alone. In an
isolated layer the folders are siblings that must not include one another: each
backend stands alone, and the tracing front end, the passes, the interpreter
and the code generators all read the IR without knowing of each other. Beside the layers,
COMPILE_PATH below keeps the passes and the code generators out of the
backends and the GPU runtime: the runtime runs the one compile path and each
backend's row names its emitter. Known debt is in ALLOWED below, each entry
with the reason it is still there; an entry that no longer matches any include
fails the check too, so the list only shrinks.

Usage: check_layers.py [repository root]   (Python 3 standard library only)
"""

import fnmatch
import pathlib
import re
import sys

# Bottom to top: (layer name, folders, isolated).
LAYERS = [
    ("support", ["src/support"], False),
    ("drivers", ["src/drivers"], False),
    ("public", ["include/tack"], False),
    ("ir", ["src/ir"], False),
    ("abi", ["src/abi"], False),
    ("analysis", ["src/analysis"], False),
    ("autodiff", ["src/autodiff"], False),  # IR to IR, run by the pipeline (src/passes/pipeline.cpp)
    ("ir users", ["src/lang", "src/passes", "src/interp", "src/codegen"], True),
    ("runtime", ["src/runtime"], False),
    ("gpu runtime", ["src/runtime/gpu"], False),
    ("backends", ["src/backends/*"], True),
    ("api", ["src/api"], False),
    ("python bindings", ["python/src"], False),
]

# Layers that may include only these layers (and themselves), not everything below them.
REACHES = {
    "python bindings": {"public", "api"},
}

# The compile path's rule, stricter than the layers: a backend or the GPU runtime gets the kernel the pipeline
# lowered and the source its row's emitter makes (runtime/kernels/resolve_variant.cpp), so none of their files
# includes a pass or a code generator. The CPU's compiler plugin (src/backends/cpu/llvm/) is not one of them: it
# is the cpu row's emitter, built over codegen/llvm.
COMPILE_PATH = {
    "users": ["src/backends/*", "src/runtime/gpu"],
    "not_users": ["src/backends/cpu/llvm"],
    "forbidden": ["src/passes", "src/codegen"],
}

# (including file, included file) glob patterns, both relative to the root, and why each is allowed.
ALLOWED = {
}

# The namespaces of each folder, the longest matching folder first: each with its
# nested namespaces, except tack itself (every namespace is nested in tack). Every file
# may also open tack and tack::detail (where it defines the public API) and, for
# declarations only (classes, enums, functions, without bodies), any other tack namespace.
NAMESPACES = [
    ("src/backends/*", ["tack::backends::{name}"]),
    ("src/runtime/gpu", ["tack::runtime"]),
    ("src/codegen/llvm", ["tack::codegen"]),
    ("include/tack", ["tack", "tack::lang", "tack::reflect"]),  # reflect.hpp: aggregates without macros
    ("python/src", ["tack::python"]),
    ("src/*", ["tack::{name}"]),
]
PUBLIC_NAMESPACES = {"tack", "tack::detail"}
NAMESPACE = re.compile(r"\bnamespace\s+(\w+(?:::\w+)*)?\s*\{")
DECLARATION = re.compile(
    r"^\s*(struct|class|enum class)\s+\w+(\s*:\s*[\w:]+)?;"      # a class or enum declared
    r"|^\s*[\w:<>,*&\s]+[\s*&]\w+\([^;{}]*\)\s*(const)?\s*;"  # a function declared
    r"|^\s*namespace\s+\w+\s*\{|^\s*\}|^\s*$")                   # nested namespaces, blank lines
TOP_FOLDERS = ("src", "include", "python/src")

SOURCE_SUFFIXES = {".hpp", ".cpp", ".h", ".mm", ".def", ".inc"}
INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<(tack/[^>]+)>)')


def folder_of(path):
    """The folder (a key of LAYERS' folders, backends expanded) a file belongs to, or None."""
    best = None
    for _, folders, _ in LAYERS:
        for pattern in folders:
            parts = pattern.split("/")
            if len(path.parts) <= len(parts):
                continue
            prefix = "/".join(path.parts[: len(parts)])
            if fnmatch.fnmatch(prefix, pattern) and (best is None or len(prefix) > len(best)):
                best = prefix
    return best


def layer_of(folder):
    for rank, (_, folders, isolated) in enumerate(LAYERS):
        for pattern in folders:
            if fnmatch.fnmatch(folder, pattern):
                return rank, isolated
    raise AssertionError(folder)


def resolve(root, including, name):
    """The included file relative to root: src/ and include/ are the include paths, then the file's own folder."""
    for base in (root / "src", root / "include", (root / including).parent):
        candidate = base / name
        if candidate.is_file():
            return candidate.resolve().relative_to(root)
    return None  # a system or third-party header


def allowed(including, included):
    for (a, b), _ in ALLOWED.items():
        if fnmatch.fnmatch(str(including), a) and fnmatch.fnmatch(str(included), b):
            return (a, b)
    return None


def under(path, folders):
    """Whether the file is inside one of the folders (glob patterns)."""
    return any(fnmatch.fnmatch("/".join(path.parts[: f.count("/") + 1]), f) and len(path.parts) > f.count("/") + 1
               for f in folders)


def breaks_compile_path(including, included):
    return (under(including, COMPILE_PATH["users"]) and not under(including, COMPILE_PATH["not_users"])
            and under(included, COMPILE_PATH["forbidden"]))


def expected_namespaces(rel):
    for pattern, namespaces in NAMESPACES:
        depth = pattern.count("/") + 1
        prefix = "/".join(rel.parts[:depth])
        if len(rel.parts) > depth and fnmatch.fnmatch(prefix, pattern):
            return [n.format(name=rel.parts[depth - 1]) for n in namespaces]
    return None


def code_only(text):
    """text with comments, string and character literals blanked (newlines kept), so braces count."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 is a digit separator
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            out.append(c)
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def namespace_spans(code):
    """(line, full name, body) of each named namespace block, nested ones included (namespace
    tack { namespace runtime { ... } } is tack::runtime); code is code_only's output."""
    spans, stack = [], []  # per open brace: (its namespace's full name or None, where its body starts, line)
    opening = {m.end() - 1: m for m in NAMESPACE.finditer(code)}
    for i, c in enumerate(code):
        if c == "{":
            m = opening.get(i)
            outer = next((name for name, _, _ in reversed(stack) if name is not None), "")
            if m is None:
                stack.append((None, i + 1, 0))  # a class, function or other block
            elif not m.group(1):
                stack.append((outer, i + 1, 0))  # an anonymous namespace: part of the one around it
            else:
                full = f"{outer}::{m.group(1)}" if outer else m.group(1)
                stack.append((full, i + 1, code.count("\n", 0, m.start()) + 1))
        elif c == "}" and stack:
            full, start, line = stack.pop()
            if full and line:
                spans.append((line, full, code[start:i]))
    return sorted(spans)


def namespace_problems(rel, text):
    """Namespaces a file opens that are not its folder's (declarations aside)."""
    wants = expected_namespaces(rel)
    if wants is None:
        return []
    problems = []
    for number, name, body in namespace_spans(code_only(text)):
        if not (name == "tack" or name.startswith("tack::")) or name in PUBLIC_NAMESPACES:
            continue
        if any(name == w or (w != "tack" and name.startswith(w + "::")) for w in wants):
            continue
        if all(DECLARATION.match(line) for line in body.splitlines()):
            continue
        problems.append(f"{rel}:{number}: opens namespace {name}; files in {rel.parent} belong to "
                        f"{' or '.join(wants)}")
    return problems


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent).resolve()
    problems, used = [], set()
    files = sorted(p for top in TOP_FOLDERS for p in (root / top).rglob("*")
                   if p.is_file() and p.suffix in SOURCE_SUFFIXES)
    for path in files:
        rel = path.relative_to(root)
        own = folder_of(rel)
        if own is None:
            problems.append(f"{rel}: its folder is in no layer; add it to LAYERS in {pathlib.Path(__file__).name}")
            continue
        own_rank, _ = layer_of(own)
        text = path.read_text(errors="replace")
        lines = text.splitlines()
        problems += namespace_problems(rel, text)
        for number, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = resolve(root, rel, m.group(1) or m.group(2))
            if target is None:
                continue
            other = folder_of(target)
            if other is None or other == own:
                continue
            if breaks_compile_path(rel, target):
                entry = allowed(rel, target)
                if entry:
                    used.add(entry)
                else:
                    problems.append(f"{rel}:{number}: includes {target}: the backends and the GPU runtime take the "
                                    f"compile path's output and never reach {other} themselves (COMPILE_PATH)")
                continue
            rank, isolated = layer_of(other)
            reaches = REACHES.get(LAYERS[own_rank][0])
            if (rank < own_rank or (rank == own_rank and not isolated)) and (
                    reaches is None or rank == own_rank or LAYERS[rank][0] in reaches):
                continue
            entry = allowed(rel, target)
            if entry:
                used.add(entry)
                continue
            if rank < own_rank:
                why = f"a layer below that it does not reach (it reaches {', '.join(sorted(reaches))} only)"
            elif rank == own_rank:
                why = "a sibling in the isolated layer"
            else:
                why = "a layer above"
            problems.append(f"{rel}:{number}: includes {target} from {why}: "
                            f"{LAYERS[own_rank][0]} ({own}) may not include {LAYERS[rank][0]} ({other})")
    for entry in ALLOWED:
        if entry not in used:
            problems.append(f"allow-list entry {entry} matches no include any more; delete it")
    for p in problems:
        print(p)
    print(f"check_layers: {len(files)} files, {len(problems)} problem(s), "
          f"{len(used)} allow-listed include pattern(s) in use")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
