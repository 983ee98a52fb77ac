"""The disk cache's front index from Python (docs/caching.md, "The front index"): a new process finds a CPU
variant by the traced kernel and the call's signature, before type inference, and runs it as the first did."""
import os
import subprocess
import sys

SCRIPT = r"""
import numpy as np, tack
@tack.kernel
def stencil(out: tack.Array, inp: tack.Array, c: tack.Scalar):
    for i, j in tack.parallel(inp.shape[0] - 2, inp.shape[1] - 2):
        out[i + 1, j + 1] = c * (inp[i, j + 1] + inp[i + 2, j + 1]) + inp[i + 1, j + 1]
d = tack.device("cpu")
host = np.arange(42, dtype=np.float32).reshape(6, 7) * 0.5 - 3
out = d.zeros((6, 7), np.float32)
stencil(out, d.array(host), 0.25)
want = np.zeros((6, 7), np.float32)
want[1:-1, 1:-1] = np.float32(0.25) * (host[:-2, 1:-1] + host[2:, 1:-1]) + host[1:-1, 1:-1]
assert np.array_equal(out.numpy(), want), out.numpy() - want
s = tack.compile_stats()
print(s.variants, s.disk_hits, s.front_hits, s.infer_ms)
"""


def run(tmp_path):
    """(variants, disk hits, front hits, inference ms) of a new process that calls the kernel once."""
    script = tmp_path / "stencil.py"  # a file: tack.kernel reads the function's source
    script.write_text(SCRIPT)
    env = dict(os.environ, TACK_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("TACK_CACHE", None)
    env.pop("TACK_DEBUG", None)
    r = subprocess.run([sys.executable, str(script)], env=env, check=True, timeout=120, capture_output=True, text=True)
    variants, hits, fronts, infer = r.stdout.split()[-4:]
    return int(variants), int(hits), int(fronts), float(infer)


def test_a_second_process_finds_the_variant_before_typing(tmp_path):
    variants, hits, fronts, infer = run(tmp_path)
    assert (variants, hits, fronts) == (1, 0, 0) and infer > 0, (variants, hits, fronts, infer)
    variants, hits, fronts, infer = run(tmp_path)
    assert (variants, hits, fronts) == (1, 1, 1), \
        f"the second process should find its variant in the front index: {variants} variants, {hits} hits, {fronts}"
    assert infer == 0, f"a front-index hit types nothing, yet inference took {infer} ms"
