"""Named fault points: tests make a build die, fail or pause at a chosen stage through TERMX_FAULT.

TERMX_FAULT is a comma-separated list of `kill:<point>` (SIGKILL this process, as a crash would), `fail:<point>`
(raise FaultInjected there, as a bug or a lost resource would) and `sleep:<point>:<seconds>`; a triggered point
is also written to the file TERMX_FAULT_MARK, if set, so a test knows when to act. Unset (always, outside
tests) every point is a no-op.
"""

from __future__ import annotations

import os
import signal
import time


class FaultInjected(RuntimeError):
    """Raised by a `fail:<point>` fault: an error no part of termx expects (not a TermxError)."""


def fault_point(point: str) -> None:
    """Die, fail or pause here if TERMX_FAULT names this point."""
    spec = os.environ.get("TERMX_FAULT")
    if not spec:
        return
    for item in spec.split(","):
        action, _, rest = item.strip().partition(":")
        name, _, arg = rest.partition(":")
        if name != point:
            continue
        mark = os.environ.get("TERMX_FAULT_MARK")
        if mark:
            with open(mark, "a", encoding="utf-8") as f:
                f.write(point + "\n")
        if action == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        elif action == "fail":
            raise FaultInjected(f"fault injected at {point}")
        elif action == "sleep":
            time.sleep(float(arg or 1))
