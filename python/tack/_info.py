"""tack.info() and `python -m tack`: what this installation is and what it finds, for bug reports: the
versions, each backend and why it is unavailable when it is, the devices with their capabilities, the disk
cache. Paste `python -m tack` (or `python -m tack --json`) into an issue."""
import os
import platform
import sys

import numpy as np

from . import _core
from ._errors import BackendUnavailable, Error, InvalidArgument
from ._host import device

# The report lists every variable of Tack's that is set, the misspelt ones too; it reads none of them itself
# (the library reads its own through one table: src/support/env.hpp).
_VARIABLES = "TACK_"
# Backends whose devices are numbered by a "device" option: the others have one device.
_MAX_DEVICES = 16


def _cache_usage(directory):
    """(files, bytes) under the cache directory; (0, 0) where it does not exist yet."""
    files = size = 0
    if directory and os.path.isdir(directory):
        for root, _dirs, names in os.walk(directory):
            for name in names:
                try:
                    size += os.path.getsize(os.path.join(root, name))
                    files += 1
                except OSError:
                    pass  # removed while we walked (another process evicting): not ours to report
    return files, size


def _describe(dev):
    caps = dev.capabilities
    return {
        "name": caps.display_name,
        "about": dict(_core._about(dev)),
        "capabilities": {
            "dtypes": sorted(np.dtype(d).name for d in caps.supported_dtypes),
            "atomic_dtypes": sorted(np.dtype(d).name for d in caps.supported_atomic_dtypes),
            "f64": caps.supports_f64,
            "workgroups": caps.supports_workgroups,
            "device_reductions": caps.supports_device_reductions,
            "memory_spaces": list(caps.device_memory_spaces),
            "exportable_memory": caps.supports_exportable_memory,
            "wrapped_memory": caps.supports_wrapped_memory,
            "options": list(caps.device_options),
        },
    }


def _backend(name):
    try:
        first = device(name)
    except BackendUnavailable as e:
        return {"name": name, "available": False, "reason": str(e), "devices": []}
    except Error as e:  # a driver that loads but fails: still the reason to report
        return {"name": name, "available": False, "reason": f"{type(e).__name__}: {e}", "devices": []}
    devices = [_describe(first)]
    if "device" in first.capabilities.device_options:
        for ordinal in range(1, _MAX_DEVICES):
            try:
                devices.append(_describe(device(name, device=ordinal)))
            except (InvalidArgument, BackendUnavailable):
                break  # past the last device
    return {"name": name, "available": True, "devices": devices}


def info():
    """What this installation of Tack is and what it finds, as a dict that json.dumps takes: the versions
    (Tack, LLVM, Python, NumPy), each backend with its devices and their capabilities or the exact reason it is
    unavailable, the disk cache's directory and size, and the TACK_* variables set. ``python -m tack`` prints it.

    >>> import tack
    >>> report = tack.info()
    >>> [b["available"] for b in report["backends"] if b["name"] == "interp"]
    [True]
    """
    lib = _core._library_info()
    files, size = _cache_usage(lib["cache_directory"])
    names = list(_core.backend_names())
    if "metal" not in names:
        names.append("metal")  # not in this build: tack.device("metal") says why
    return {
        "tack": lib["version"],
        "package": os.path.dirname(os.path.abspath(__file__)),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "platform": platform.platform(),
        "llvm": lib["llvm_version"],
        "cache": {
            "enabled": lib["disk_cache"],
            "directory": lib["cache_directory"],
            "files": files,
            "bytes": size,
            "max_bytes": lib["cache_max_bytes"],
        },
        "backends": [_backend(n) for n in sorted(names)],
        "environment": {k: v for k, v in sorted(os.environ.items()) if k.startswith(_VARIABLES)},
    }


def _mib(n):
    return f"{n / (1 << 20):.1f} MiB"


def format_info(report):
    """The text `python -m tack` prints for a report of info()."""
    lines = [
        f"tack {report['tack']} ({report['package']})",
        f"python {report['python']}, numpy {report['numpy']}, {report['platform']}",
        f"llvm {report['llvm'] or '(not in this build: no cpu backend)'}",
    ]
    c = report["cache"]
    state = "on" if c["enabled"] else "off (TACK_CACHE)"
    cap = _mib(c["max_bytes"]) if c["max_bytes"] else "no cap"
    lines.append(f"disk cache: {state}, {c['directory'] or '(no directory)'}: {c['files']} files, "
                 f"{_mib(c['bytes'])} of {cap}")
    lines.append("backends:")
    for b in report["backends"]:
        if not b["available"]:
            lines.append(f"  {b['name']}: unavailable: {b['reason']}")
            continue
        lines.append(f"  {b['name']}: available, {len(b['devices'])} device(s)")
        for i, d in enumerate(b["devices"]):
            about = ", ".join(f"{k} {v}" for k, v in d["about"].items() if v)
            lines.append(f"    [{i}] {d['name']}: {about}")
            caps = d["capabilities"]
            flags = [k for k in ("f64", "workgroups", "device_reductions", "exportable_memory", "wrapped_memory")
                     if caps[k]]
            lines.append(f"        {', '.join(flags) or 'no optional features'}; "
                         f"{len(caps['dtypes'])} dtypes, atomics on {len(caps['atomic_dtypes'])}")
    if report["environment"]:
        lines.append("environment: " + " ".join(f"{k}={v}" for k, v in report["environment"].items()))
    return "\n".join(lines)
