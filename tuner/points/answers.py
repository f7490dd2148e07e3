"""What the whole-graph points (layout.py, decode_attention.py) share: a mode that forces a
choice or says "auto", and the answer stored for a problem's signature or measured now and
stored, through the engine like every answer.

A compiled graph made under these answers is only right while they stand: `watch()` collects
each answer consulted while it is open ((namespace, signature, candidates, stored choice or
None where the rule answered)), and `still_stand(seen)` tells whether the cache still gives
the same (compiler/graph_front.py keeps them with a cached graph's link, so an answer measured
later, in max-autotune or on another machine, is not hidden behind a graph made before it)."""
from __future__ import annotations

import contextlib
import logging
import math
import threading
from typing import Callable, Optional

log = logging.getLogger("tuner.points")
_WATCHERS = threading.local()


@contextlib.contextmanager
def watch():
    """A list that collects the answers consulted (stored_or_measured) while open, in order,
    each once: [namespace, signature, candidates, stored choice or None]."""
    seen: list = []
    stack = getattr(_WATCHERS, "stack", None)
    if stack is None:
        stack = _WATCHERS.stack = []
    stack.append(seen)
    try:
        yield seen
    finally:   # (by identity: an outer list may equal this one)
        del stack[next(i for i, s in enumerate(stack) if s is seen)]


def _note(namespace, signature, candidates, choice) -> None:
    entry = [namespace, signature, list(candidates), choice]
    for seen in getattr(_WATCHERS, "stack", ()):
        if entry not in seen:
            seen.append(entry)


def stored(namespace: str, signature: str, candidates) -> Optional[tuple[str, str]]:
    """(choice, source) stored for signature (source "cache" or the heuristic's), read through
    the engine's `plan`, which measures nothing; None when nothing is (or the cache fails)."""
    try:
        from tuner.engine import plan
        found = plan(namespace, signature, list(candidates)).decision
    except Exception:   # noqa: BLE001 - a cache that fails is a miss: the rule answers
        return None
    if found is not None and found.source != "exhaustive" and found.choice in candidates:
        return found.choice, found.source
    return None


def still_stand(seen) -> bool:
    """Whether every answer in `seen` (as watch() collected them) is what the cache gives now."""
    try:
        for namespace, signature, candidates, choice in seen:
            now = stored(namespace, signature, tuple(candidates))
            if (now[0] if now is not None else None) != choice:
                return False
    except (TypeError, ValueError):   # an entry of another shape: not trusted
        return False
    return True


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
    found = stored(namespace, signature, candidates)
    if found is None and timer is not None:
        found = _measured(namespace, signature, candidates, timer)
    _note(namespace, signature, candidates, found[0] if found is not None else None)
    return found


def _measured(namespace, signature, candidates, timer):
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
