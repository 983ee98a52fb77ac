"""TACK_CPU_MALLOC=1 (docs/environment.md): glibc serves arrays up to 32 MiB from its heap and keeps what is
freed, instead of an mmap per array returned at free. Checked in fresh processes (the setting is made once, when
the first cpu device is), through glibc's own accounting (mallinfo2): mapped bytes while a 16 MiB array lives,
free heap bytes once it is dropped."""
import json
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="TACK_CPU_MALLOC acts on glibc only")

PROGRAM = r"""
import ctypes, gc, json
import numpy as np
import tack

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
dev = tack.device("cpu")
before = libc.mallinfo2()
a = dev.zeros(4 << 20, np.float32)  # 16 MiB
during = libc.mallinfo2()
del a
gc.collect()
after = libc.mallinfo2()
print(json.dumps({"mapped": during.hblkhd - before.hblkhd, "kept": after.fordblks}))
"""

MIB16 = 16 << 20


def run(tmp_path, flag):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TACK_CACHE_DIR": str(tmp_path / "cache")}
    if flag is not None:
        env["TACK_CPU_MALLOC"] = flag
    out = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_without_it_a_large_array_is_a_mapping_of_its_own(tmp_path):
    got = run(tmp_path, None)
    assert got["mapped"] >= MIB16, got


def test_with_it_the_heap_serves_the_array_and_keeps_it(tmp_path):
    got = run(tmp_path, "1")
    assert got["mapped"] < MIB16, got  # not mmap'd on its own
    assert got["kept"] >= MIB16, got  # freed into the heap, not returned to the system


def test_off_spellings_leave_glibc_alone(tmp_path):
    assert run(tmp_path, "0")["mapped"] >= MIB16
