"""Launching generated kernels: the chosen config, the grid, and (max-autotune) tuning on the
first call with the real arguments through tuner.engine.decide (the compiler never times
anything itself)."""
from __future__ import annotations

import hashlib
import logging

import torch
import triton

log = logging.getLogger("tuner.compiler")


class Launcher:
    def __init__(self, fn, source, kind, xnumel, default, candidates, out_args, autotune):
        self.fn = fn
        self.source = source
        self.kind = kind
        self.xnumel = xnumel
        self.config = None if autotune else dict(default)
        self.default = dict(default)
        self.candidates = candidates
        self.out_args = out_args     # positions of arguments the kernel writes
        self.decision = None

    def __call__(self, *args):
        if self.config is None:
            self.config = self._tune(args)
        self._launch(self.config, args)

    def _launch(self, cfg, args):
        grid = (triton.cdiv(self.xnumel, cfg["XBLOCK"]),)
        self.fn[grid](*args, **cfg)

    def problem(self):
        h = hashlib.sha256(self.source.encode()).hexdigest()[:24]
        return f"{h}:{self.xnumel}"

    def _tune(self, args):
        try:
            from tuner.bench import benchmark
            from tuner.engine import decide
            from tuner.space import Config
        except Exception as e:  # engine not importable: keep the heuristic config
            log.debug("autotune unavailable (%s): default config", e)
            return self.default

        def to_cfg(c):
            kw = {k: v for k, v in c.items() if k not in ("num_warps", "num_stages")}
            return Config(kw, num_warps=c.get("num_warps", 4), num_stages=c.get("num_stages", 1))

        cands = [self.default] + [c for c in self.candidates if c != self.default]
        configs = [to_cfg(c) for c in cands]
        scratch = list(args)
        for i in self.out_args:
            scratch[i] = args[i].clone()

        def measure(cfg):
            launch = dict(cfg.kwargs, num_warps=cfg.num_warps, num_stages=cfg.num_stages)
            try:
                return benchmark(lambda: self._launch(launch, scratch),
                                 device="cuda" if torch.cuda.is_available() else "cpu")
            except Exception as e:   # a config that does not compile or run scores infinity
                log.debug("config %s failed: %s", launch, e)
                return float("inf")

        d = decide(f"triton.{self.kind}", self.problem(), configs, measure,
                   features={"xnumel": self.xnumel, "kind": self.kind})
        self.decision = d
        c = d.choice
        return dict(c.kwargs, num_warps=c.num_warps, num_stages=c.num_stages)


def reinterpret(t, size, stride, offset):
    return torch.as_strided(t, size, stride, t.storage_offset() + offset)


def ensure_layout(t, size, stride):
    """An extern's output in the layout its meta function promised (copy when it differs)."""
    if t is None:   # an optional output the op did not produce (e.g. SDPA's logsumexp)
        return t
    if tuple(t.stride()) == tuple(stride) or t.numel() <= 1:
        return t
    out = torch.empty_strided(size, stride, dtype=t.dtype, device=t.device)
    out.copy_(t)
    return out
