"""What the whole-graph points (layout.py, decode_attention.py) share: a mode that forces a
choice or says "auto", and the answer stored for a problem's signature or measured now and
stored, through the engine like every answer."""
from __future__ import annotations

import logging
import math
from typing import Callable, Optional

log = logging.getLogger("tuner.points")


def check_mode(mode, modes: tuple[str, ...], what: str) -> str:
    """The mode given (None: "auto"); ValueError naming the valid ones otherwise."""
    mode = "auto" if mode is None else mode
    if mode not in modes:
        raise ValueError(f"{what} {mode!r}; expected one of {', '.join(modes)}")
    return mode


def stored_or_measured(namespace: str, signature: str, candidates: tuple[str, ...],
                       timer: Optional[Callable[[], Optional[Callable[[str], float]]]]):
    """(choice, source) for a problem: the answer stored under its signature (source "cache",
    or the heuristic's; read through the engine's `plan`, which measures nothing), else, when
    `timer` is given and gives a measure (choice -> ms), every candidate timed through the
    engine's `decide`, which stores the fastest ("measured"; "cache" where another process
    stored one meanwhile); None when neither answers (the caller's rule does)."""
    try:
        from tuner.engine import plan
        found = plan(namespace, signature, list(candidates)).decision
    except Exception:   # noqa: BLE001 - a cache that fails is a miss: the rule answers
        found = None
    if found is not None and found.source != "exhaustive" and found.choice in candidates:
        return found.choice, found.source
    if timer is None:
        return None
    try:
        measure = timer()
        if measure is None:
            return None
        from tuner.engine import decide
        d = decide(namespace, signature, list(candidates), measure)
    except Exception as e:   # noqa: BLE001 - a measurement that fails leaves it to the rule
        log.debug("%s measurement failed: %s", namespace, e)
        return None
    if d.choice not in candidates or d.time_ms is None or not math.isfinite(d.time_ms):
        return None   # every choice failed to run (nothing was stored)
    return d.choice, "cache" if d.source == "cache" else "measured"
