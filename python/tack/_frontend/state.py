# Whether this thread is tracing a kernel now: a @tack.struct field annotated
# with a dtype casts with tack.cast while tracing and with NumPy outside.
from __future__ import annotations

import threading

_state = threading.local()


def tracing() -> bool:
    return getattr(_state, "depth", 0) > 0


class Tracing:
    """`with Tracing():` around one kernel's trace."""

    def __enter__(self) -> None:
        _state.depth = getattr(_state, "depth", 0) + 1

    def __exit__(self, *exc: object) -> None:
        _state.depth -= 1
