#!/usr/bin/env python3
"""Checks that no file under src/ or include/ includes a header from a layer
above its own (docs/architecture.md draws the layers), and that each file's
namespaces match its folder: src/backends/cuda/ is tack::backends::cuda,
src/passes/ is tack::passes, and so on (NAMESPACES below).

A layer may include itself and every layer below it. In an isolated layer the
folders are siblings that must not include one another: each backend stands
alone, and the tracing front end, the passes, the interpreter and the code
generators all read the IR without knowing of each other. Beside the layers,
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
    ("ir users", ["src/lang", "src/passes", "src/interp", "src/codegen"], True),
    ("runtime", ["src/runtime"], False),
    ("gpu runtime", ["src/runtime/gpu"], False),
    ("backends", ["src/backends/*"], True),
    ("api", ["src/api"], False),
]

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

# The namespace of each folder, the longest matching folder first; a file may also open
# tack and tack::detail (where it defines the public API) and, for forward declarations
# only, any other tack namespace.
NAMESPACES = [
    ("src/backends/*", "tack::backends::{name}"),
    ("src/runtime/gpu", "tack::runtime"),
    ("src/codegen/llvm", "tack::codegen"),
    ("src/api", "tack"),
    ("include/tack", "tack"),
    ("src/*", "tack::{name}"),
]
PUBLIC_NAMESPACES = {"tack", "tack::detail"}
NAMESPACE = re.compile(r"^namespace (tack(?:::\w+)*) \{")
FORWARD_DECLARATION = re.compile(r"^\s*(struct|class|enum class)\s+\w+(\s*:\s*[\w:]+)?;|^\s*$|^\s*//")

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


def expected_namespace(rel):
    for pattern, namespace in NAMESPACES:
        depth = pattern.count("/") + 1
        prefix = "/".join(rel.parts[:depth])
        if len(rel.parts) > depth and fnmatch.fnmatch(prefix, pattern):
            return namespace.format(name=rel.parts[depth - 1])
    return None


def namespace_problems(rel, lines):
    """Namespaces a file opens that are not its folder's (forward declarations aside)."""
    want = expected_namespace(rel)
    if want is None:
        return []
    problems = []
    for number, line in enumerate(lines, 1):
        m = NAMESPACE.match(line)
        if not m:
            continue
        name = m.group(1)
        if name in PUBLIC_NAMESPACES or name == want or name.startswith(want + "::"):
            continue
        body = []
        for later in lines[number:]:
            if later.startswith("}"):
                break
            body.append(later)
        if all(FORWARD_DECLARATION.match(b) for b in body):
            continue
        problems.append(f"{rel}:{number}: opens namespace {name}; files in {rel.parent} belong to {want}")
    return problems


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent).resolve()
    problems, used = [], set()
    files = sorted(p for top in ("src", "include") for p in (root / top).rglob("*")
                   if p.is_file() and p.suffix in SOURCE_SUFFIXES)
    for path in files:
        rel = path.relative_to(root)
        own = folder_of(rel)
        if own is None:
            problems.append(f"{rel}: its folder is in no layer; add it to LAYERS in {pathlib.Path(__file__).name}")
            continue
        own_rank, _ = layer_of(own)
        lines = path.read_text(errors="replace").splitlines()
        problems += namespace_problems(rel, lines)
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
            if rank < own_rank or (rank == own_rank and not isolated):
                continue
            entry = allowed(rel, target)
            if entry:
                used.add(entry)
                continue
            why = "a sibling in the isolated layer" if rank == own_rank else "a layer above"
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
