"""tack.info() and python -m tack: the report users paste into bug reports, checked against what the
package itself finds (devices, reasons, the cache folder's contents)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tack


def run_main(*args):
    out = subprocess.run([sys.executable, "-m", "tack", *args], capture_output=True, text=True, timeout=120,
                         check=True)
    return out.stdout


def test_json_report_agrees_with_the_package():
    report = json.loads(run_main("--json"))
    assert report["tack"] == tack.__version__
    assert report["package"] == os.path.dirname(tack.__file__)
    assert report["llvm"].startswith("19.")
    names = [b["name"] for b in report["backends"]]
    assert names == sorted(set(tack.backend_names()) | {"metal"})
    for b in report["backends"]:
        try:
            dev = tack.device(b["name"])
        except tack.BackendUnavailable as e:
            assert not b["available"] and b["reason"] == str(e) and b["reason"]
            continue
        assert b["available"] and b["devices"], b
        first = b["devices"][0]
        assert first["name"] == dev.capabilities.display_name
        assert first["about"] == dict(tack._core._about(dev))
        assert first["capabilities"]["f64"] == dev.capabilities.supports_f64
        assert first["capabilities"]["dtypes"] == sorted(np.dtype(d).name for d in dev.capabilities.supported_dtypes)
    by_name = {b["name"]: b for b in report["backends"]}
    assert by_name["cpu"]["available"] and by_name["interp"]["available"]
    assert by_name["cpu"]["devices"][0]["about"]["compiler"] == "LLVM " + report["llvm"]
    if sys.platform != "darwin":
        assert not by_name["metal"]["available"] and "Apple platforms only" in by_name["metal"]["reason"]


def test_cache_folder_and_size_are_the_cache_in_use(tmp_path):
    folder = tmp_path / "cache"
    env = dict(os.environ, TACK_CACHE_DIR=str(folder), TACK_CACHE_MAX_BYTES="64M")
    program = ("import tack, numpy as np\n"
               "@tack.kernel\n"
               "def twice(a: tack.Array):\n"
               "    for i in tack.parallel(a.size):\n"
               "        a[i] = a[i] * 2\n"
               "a = tack.device('cpu').array(np.ones(4, np.float32)); twice(a); tack.sync()\n")
    script = tmp_path / "twice.py"  # a file: Tack parses a kernel's source
    script.write_text(program)
    subprocess.run([sys.executable, str(script)], env=env, check=True, timeout=120)
    files = [os.path.join(r, n) for r, _, names in os.walk(folder) for n in names]
    assert files, "the kernel's compile should have written the disk cache"
    out = subprocess.run([sys.executable, "-m", "tack", "--json"], env=env, capture_output=True, text=True,
                         check=True, timeout=120).stdout
    cache = json.loads(out)["cache"]
    assert cache == {"enabled": True, "directory": str(folder), "files": len(files),
                     "bytes": sum(os.path.getsize(f) for f in files), "max_bytes": 64 << 20}
    assert json.loads(out)["environment"]["TACK_CACHE_DIR"] == str(folder)


def test_text_report_names_every_backend_and_each_reason():
    text = run_main()
    report = tack.info()
    assert text.splitlines()[0].startswith(f"tack {tack.__version__} (")
    for b in report["backends"]:
        line = next((ln for ln in text.splitlines() if ln.startswith(f"  {b['name']}: ")), None)
        assert line is not None, b["name"]
        if b["available"]:
            assert f"{len(b['devices'])} device(s)" in line
        else:
            assert line.endswith(b["reason"])
    assert "disk cache: " in text


def test_bad_argument_is_refused_by_argparse():
    out = subprocess.run([sys.executable, "-m", "tack", "--jsn"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "unrecognized arguments: --jsn" in out.stderr


@pytest.mark.skipif(sys.platform == "darwin", reason="metal is built on Apple platforms")
def test_metal_off_apple_is_unavailable_not_unknown():
    with pytest.raises(tack.BackendUnavailable, match="Apple platforms only"):
        tack.device("metal")
