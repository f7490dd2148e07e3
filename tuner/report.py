"""How a decision reads: the autotune report (TUNER_LOGS=autotune), the one-line explanation
(TUNER_LOGS=decisions), and the progress line on a terminal while a decision is measured."""
from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
import time
from typing import Any, Callable

from tuner.decision import OVER_BUDGET, Decision


def format_report(d: Decision, top: int = 5) -> str:
    """A few readable lines: the problem, the top choices with time and % of best, the cost."""
    head = f"autotune {d.namespace} {d.problem}"
    lines = [head]
    if d.source == "heuristic":
        lines.append(f"  heuristic chose {d.choice} (no measurement) in {d.tuning_seconds * 1e3:.1f} ms")
        return "\n".join(lines)
    if d.source == OVER_BUDGET:
        lines.append(f"  tuning time spent: default {d.choice} kept (nothing measured)")
        return "\n".join(lines)
    if d.source == "cache":
        t = "" if d.time_ms is None or not math.isfinite(d.time_ms) else f" {d.time_ms:.4f} ms"
        lines.append(f"  cache hit: {d.choice}{t} (found by {d.found_by}); "
                     f"lookup {d.tuning_seconds * 1e3:.1f} ms")
        return "\n".join(lines)
    if not d.timings:
        lines.append(f"  single candidate {d.choice}: nothing to tune")
        return "\n".join(lines)
    best = d.time_ms if d.time_ms and math.isfinite(d.time_ms) else None
    for i, (choice, t) in enumerate(d.timings[:top]):
        if not math.isfinite(t):
            why = d.errors.get(choice, "")
            lines.append(f"  {i + 1:>2}. {str(choice):<56} failed (inf)"
                         + (f": {why}" if why else ""))
            continue
        pct = f"{100.0 * best / t:6.1f}%" if best and t > 0 else "     -"
        mark = "  <- chosen" if choice == d.choice else ""
        lines.append(f"  {i + 1:>2}. {str(choice):<56} {t:10.4f} ms {pct}{mark}")
    failed = sum(1 for _, t in d.timings if not math.isfinite(t))
    hidden = [(c, d.errors[c]) for c, t in d.timings[top:] if not math.isfinite(t) and c in d.errors]
    if hidden:
        lines.append(f"      failed, not shown: {hidden[0][0]}: {hidden[0][1]}"
                     + (f" (and {len(hidden) - 1} more)" if len(hidden) > 1 else ""))
    more = len(d.timings) - min(top, len(d.timings))
    tail = f"  {d.source}: {d.n_measured} measured"
    if failed:
        tail += f", {failed} failed"
    if more:
        tail += f", {more} more not shown"
    if d.speedup is not None:
        tail += f"; {d.speedup:.2f}x over the default"
    tail += f"; tuning took {d.tuning_seconds:.2f} s"
    if d.stopped_early:
        tail += "; stopped when the tuning time was spent (best so far, not cached)"
    lines.append(tail)
    return "\n".join(lines)


def _ms_text(t: float | None) -> str:
    return "-" if t is None or not math.isfinite(t) else f"{t:.4f} ms"


def explain(d: Decision) -> str:
    """One line saying how a decision was answered and why (TUNER_LOGS=decisions): the source
    (heuristic, cache local/remote, measured by which search), what the heuristic said when
    it did not answer, and the timings."""
    head = f"decision {d.namespace} {d.problem}: {d.choice}"
    if d.source == "heuristic":
        return f"{head} from the heuristic (nothing measured, {d.tuning_seconds * 1e3:.1f} ms)"
    if d.source == OVER_BUDGET:
        return f"{head}: the default, nothing measured (the tuning time was spent)"
    parts = []
    if d.source == "cache":
        layer = f" {d.cache_layer}" if d.cache_layer else ""
        parts.append(f"from the{layer} cache (found by {d.found_by}, {_ms_text(d.time_ms)}; "
                     f"saved {d.saved_seconds:.2f} s of tuning)")
    elif not d.timings:
        parts.append("the only candidate (nothing to tune)")
    else:
        failed = sum(1 for _, t in d.timings if not math.isfinite(t))
        text = f"measured by {d.source}: {d.n_measured} timed"
        if failed:
            first = next((d.errors[c] for c, t in d.timings if c in d.errors), "")
            text += f", {failed} failed" + (f" (first: {first})" if first else "")
        text += f"; best {_ms_text(d.time_ms)}, default {_ms_text(d.default_time_ms)}"
        if d.speedup is not None:
            text += f" ({d.speedup:.2f}x)"
        parts.append(text + f"; {d.tuning_seconds:.2f} s; cache miss"
                     + ("; stopped when the tuning time was spent (best so far)" if d.stopped_early else ""))
    if d.heuristic_note:
        parts.append(f"heuristic: {d.heuristic_note}")
    return head + " " + "; ".join(parts)


# --------------------------------------------------------------------------------------------
# Progress: one line on a terminal while a decision is measured


def _counted(measure: Callable[[Any], float], tick: Callable[[], None]) -> Callable[[Any], float]:
    def measured(choice):
        try:
            return measure(choice)
        finally:
            tick()
    return measured


class _Progress:
    """`tuner: tuning NS PROBLEM: 5/12 measured, ETA 3 s | 4 decisions tuned in 21 s`, written
    to stderr and rewritten with \\r while a search measures, at most EVERY_S apart and only
    once a decision took SHOW_AFTER_S; cleared when the decision ends. Only when stderr is a
    terminal and the CI variable is not set. Decisions still to come are not known here (a
    compiled graph tunes each kernel on its first launch): the line counts those done."""
    EVERY_S = 0.25
    SHOW_AFTER_S = 1.0

    def __init__(self):
        self.done = 0            # decisions measured in this process
        self.seconds = 0.0       # their tuning time
        self._shown = None       # the stream the line is on, while one is
        self._lock = threading.Lock()

    @staticmethod
    def stream():
        err = sys.stderr
        if os.environ.get("CI") or err is None:
            return None
        try:
            return err if err.isatty() else None
        except Exception:
            return None

    def tracking(self, namespace: str, problem: str, total: int | None):
        stream = self.stream()
        if stream is None:
            return contextlib.nullcontext(None)
        return self._tracking(stream, namespace, problem, total)

    @contextlib.contextmanager
    def _tracking(self, stream, namespace, problem, total):
        start = last = time.perf_counter()
        count = 0

        def tick():
            nonlocal count, last
            count += 1
            now = time.perf_counter()
            if now - start < self.SHOW_AFTER_S or now - last < self.EVERY_S:
                return
            last = now
            if total:
                eta = (now - start) / count * max(0, total - count)
                where = f"{count}/{total} measured, ETA {eta:.0f} s"
            else:
                where = f"{count} measured, {now - start:.0f} s"
            line = f"tuner: tuning {namespace} {problem}"[:70] + f": {where}"
            if self.done:
                line += f" | {self.done} decision{'s' * (self.done > 1)} tuned in {self.seconds:.0f} s"
            with self._lock:
                try:
                    stream.write("\r\x1b[K" + line)
                    stream.flush()
                    self._shown = stream
                except Exception:
                    pass
        try:
            yield tick
        finally:
            self.done += 1
            self.seconds += time.perf_counter() - start
            self.clear()

    def clear(self) -> None:
        with self._lock:
            stream, self._shown = self._shown, None
        if stream is not None:
            try:
                stream.write("\r\x1b[K")
                stream.flush()
            except Exception:
                pass


_PROGRESS = _Progress()
