"""`tuner.autotune`: a drop-in for `triton.autotune` with search strategies and a persistent cache.

    @tuner.autotune(configs=[triton.Config({"XBLOCK": 64}), ...], key=["n"],
                    search="coordinate_descent",
                    space=lambda args: ConfigSpace.pointwise([args["n"]]))
    @triton.jit
    def kernel(x_ptr, y_ptr, n, XBLOCK: tl.constexpr): ...

    kernel[grid](x, y, n)

It takes what `triton.autotune` takes (configs, key, reset_to_zero, restore_value, pre_hook,
post_hook, prune_configs_by, do_bench) and adds:
- `search=`: "exhaustive" (the default without a space), "coordinate_descent", "budgeted";
- `space=`: a ConfigSpace, or a function of the call's named arguments returning one, to
  search around the listed configs (or from the space's defaults when there are none);
- the engine's cache: every answer is stored under (kernel source hash, key values, dtypes),
  locally and in the shared Redis, so another process or CI machine does not benchmark again.
Under TRITON_INTERPRET=1 it runs on CPU tensors (timings are then interpreter timings).
"""
from __future__ import annotations

import atexit
import json
import logging
import sys
from typing import Any, Callable, Iterable, Sequence

from tuner import bench
from tuner.engine import Decision, decide
from tuner.settings import settings
from tuner.space import Config, ConfigSpace

log = logging.getLogger("tuner.autotuner")
NAMESPACE = "triton.autotune"


def to_config(cfg: Any) -> Config:
    """A tuner Config from a tuner Config, a triton.Config, or a dict of meta-parameters."""
    if isinstance(cfg, Config):
        return cfg
    if isinstance(cfg, dict):
        kw = dict(cfg)
        return Config(kw, num_warps=kw.pop("num_warps", 4), num_stages=kw.pop("num_stages", 3))
    kwargs = getattr(cfg, "kwargs", None)
    if kwargs is None:
        raise TypeError(f"not a config: {cfg!r} (expected tuner.space.Config or triton.Config)")
    return Config(kwargs, num_warps=getattr(cfg, "num_warps", 4) or 4,
                  num_stages=getattr(cfg, "num_stages", 3) or 3)


class Autotuned:
    """A tuned Triton kernel: launch it as `kernel[grid](*args, **kwargs)`."""

    def __init__(self, fn, configs: Sequence[Any] | None, key: Sequence[str], *,
                 prune_configs_by: dict | None = None, reset_to_zero: Sequence[str] | None = None,
                 restore_value: Sequence[str] | None = None, pre_hook: Callable | None = None,
                 post_hook: Callable | None = None, do_bench: Callable | None = None,
                 search: str | None = None, space: ConfigSpace | Callable | None = None,
                 search_options: dict | None = None, isolate: bool | None = None,
                 isolate_timeout_s: float = 60.0, namespace: str = NAMESPACE):
        self.fn = fn
        self.arg_names = bench.kernel_arg_names(fn)
        self.__name__ = bench.kernel_name(fn)
        self.__module__ = getattr(getattr(bench.unwrap_kernel(fn), "fn", fn), "__module__", None)
        self.keys = list(key or [])
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        for what, names in (("key", self.keys), ("reset_to_zero", self.reset_to_zero),
                            ("restore_value", self.restore_value)):
            unknown = [n for n in names if n not in self.arg_names]
            if unknown:
                raise ValueError(f"{what} names {', '.join(unknown)}, which are not arguments of "
                                 f"{self.__name__} ({', '.join(self.arg_names)})")
        self._config_hooks: dict[Config, Callable] = {}
        self.configs: list[Config] = []
        for c in configs or []:
            cfg = to_config(c)
            if getattr(c, "pre_hook", None) is not None:
                self._config_hooks[cfg] = c.pre_hook
            self.configs.append(cfg)
        if not self.configs and space is None:
            raise ValueError(f"{self.__name__}: give configs=, space=, or both")
        prune = prune_configs_by or {}
        self.early_config_prune = prune.get("early_config_prune")
        self.perf_model = prune.get("perf_model")
        self.top_k = prune.get("top_k", 1.0)
        self.user_pre_hook, self.user_post_hook = pre_hook, post_hook
        self.do_bench = do_bench
        self.search = search
        if search is not None:
            from tuner.search import get_strategy
            get_strategy(search)  # fail at decoration time on a typo
        self.space = space
        self.search_options = dict(search_options or {})
        self.isolate = isolate
        self.isolate_timeout_s = isolate_timeout_s
        self._runner: bench.IsolatedRunner | None = None
        self.namespace = namespace
        self.source_hash = bench.kernel_source_hash(fn)
        self.interpreted = bench.is_interpreted(fn)
        self.cache: dict[tuple, Config] = {}   # tuning key -> config, this process
        self.best_config: Config | None = None
        self.configs_timings: dict[Config, float] = {}
        self.last_decision: Decision | None = None
        self.bench_time = 0.0

    # ---- launching

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)

    def run(self, *args, grid, warmup: bool = False, **kwargs):
        nargs = dict(zip(self.arg_names, args))
        key = self._tuning_key({**nargs, **kwargs})
        config = self.cache.get(key)
        if config is None:
            config = self._tune(key, args, nargs, grid, kwargs)
            self.cache[key] = config
        self.best_config = config
        hook = self._config_hooks.get(config)
        if hook is not None:
            hook({**nargs, **kwargs, **config.kwargs})
        return self.fn.run(*args, grid=grid, warmup=warmup, **kwargs, **self._launch_kwargs(config))

    def warmup(self, *args, grid, **kwargs):
        """Compile every listed config (as triton.autotune's warmup does)."""
        return [self.fn.warmup(*args, grid=grid, **kwargs, **self._launch_kwargs(c))
                for c in self.configs]

    @staticmethod
    def _launch_kwargs(config: Config) -> dict:
        return {**config.kwargs, "num_warps": config.num_warps, "num_stages": config.num_stages}

    def _tuning_key(self, all_args: dict) -> tuple:
        parts: list[Any] = [all_args[k] for k in self.keys if k in all_args]
        parts += [str(v.dtype) for k, v in all_args.items() if k in self.arg_names
                  and hasattr(v, "dtype")]
        return tuple(parts)

    # ---- tuning

    def _problem(self, key: tuple) -> str:
        spelled = json.dumps([v if isinstance(v, (int, float, str, bool)) or v is None else repr(v)
                              for v in key])
        return f"{self.__name__}:{self.source_hash}:{spelled}"

    def _space_for(self, named: dict) -> ConfigSpace | None:
        if self.space is None or isinstance(self.space, ConfigSpace):
            return self.space
        space = self.space(named)
        if not isinstance(space, ConfigSpace):
            raise TypeError(f"{self.__name__}: space(args) returned {type(space).__name__}, "
                            "not a ConfigSpace")
        return space

    def _prune(self, configs: list[Config], named: dict, kwargs: dict) -> list[Config]:
        if self.early_config_prune is not None:
            configs = [to_config(c) for c in self.early_config_prune(configs, named, **kwargs)]
            if not configs:
                raise ValueError(f"{self.__name__}: early_config_prune returned no configs")
        if self.perf_model is not None:
            k = self.top_k
            k = max(1, int(len(configs) * k)) if isinstance(k, float) and k <= 1.0 else int(k)
            est = {c: self.perf_model(**named, **kwargs, **c.all_kwargs()) for c in configs}
            configs = sorted(configs, key=lambda c: est[c])[:k]
        return configs

    def _tune(self, key, args, nargs, grid, kwargs) -> Config:
        named = {**nargs, **kwargs}
        space = self._space_for(named)
        candidates = self._prune(list(self.configs), nargs, kwargs) if self.configs \
            else space.default_candidates()
        conflicts = set(kwargs) & {k for c in candidates for k in c.kwargs}
        if conflicts:
            raise ValueError(f"{self.__name__}: {', '.join(sorted(conflicts))} are tuned by the "
                             "autotuner; do not pass them at launch")
        if len(candidates) == 1 and space is None:
            return candidates[0]
        search = self.search or ("exhaustive" if space is None else None)
        snapshot = None
        if self.user_pre_hook is None and self.restore_value:
            snapshot = bench.Snapshot(nargs[n] for n in self.restore_value)
        measure = self._measurer(args, nargs, grid, kwargs, snapshot)
        extra = {"kernel": self.__name__, "interpret": self.interpreted}
        d = decide(self.namespace, self._problem(key), candidates, measure, space=space,
                   search=search, backend_extra=extra, search_options=self.search_options,
                   features={"kernel": self.__name__, "key": list(map(repr, key))},
                   prepare=self._precompiler(args, grid, kwargs))
        self.last_decision = d
        self.configs_timings = dict(d.timings)
        self.bench_time = d.tuning_seconds
        if d.n_measured:
            self._after_tuning(nargs, snapshot)
        return d.choice

    def _precompiler(self, args, grid, kwargs):
        # under the interpreter warmup compiles nothing, but the path is the same one
        def precompile(candidates):
            bench.compile_all(lambda c: self.fn.warmup(*args, grid=grid, **kwargs,
                                                        **self._launch_kwargs(c)), candidates)
        return precompile

    def _measurer(self, args, nargs, grid, kwargs, snapshot) -> Callable[[Config], float]:
        isolate = settings.isolate if self.isolate is None else self.isolate
        if isolate:
            if self._runner is None:
                self._runner = bench.IsolatedRunner(timeout_s=self.isolate_timeout_s)
                atexit.register(self._runner.close)
            runner = self._runner

            def measure_isolated(config: Config) -> float:
                meta = {**nargs, **kwargs, **config.kwargs}
                concrete = grid(meta) if callable(grid) else grid
                return runner.benchmark(_bench_in_worker, self, config, _to_cpu(args), concrete,
                                        kwargs, self.reset_to_zero, self.restore_value)
            return measure_isolated

        def measure(config: Config) -> float:
            current = {**kwargs, **self._launch_kwargs(config)}
            full = {**nargs, **kwargs, **config.kwargs}
            if not self.interpreted:
                compiled = self.fn.warmup(*args, grid=grid, **current)
                if bench.too_many_spills(compiled):
                    log.debug("%s %s: register spills over %d: inf", self.__name__, config,
                              bench.MAX_SPILLS)
                    return bench.INF
            hook = self._config_hooks.get(config)

            def setup():
                if snapshot is not None:
                    snapshot.restore()
                if self.user_pre_hook is not None:
                    self.user_pre_hook(full)
                else:
                    for name in self.reset_to_zero:
                        if nargs.get(name) is not None:
                            nargs[name].zero_()
                if hook is not None:
                    hook(full)

            def call():
                try:
                    self.fn.run(*args, grid=grid, warmup=False, **current)
                except Exception as e:
                    if self.user_post_hook is not None:
                        self.user_post_hook(full, exception=e)
                    raise
                if self.user_post_hook is not None:
                    self.user_post_hook(full, exception=None)

            if self.do_bench is not None:
                def timed():
                    setup()
                    call()
                return bench.score(self.do_bench(timed, quantiles=(0.5, 0.2, 0.8)))
            return bench.benchmark(call, setup=setup, device="cpu" if self.interpreted else None)
        return measure

    def _after_tuning(self, nargs, snapshot) -> None:
        # leave mutated arguments as the caller gave them before the real launch
        if snapshot is not None:
            snapshot.restore()
        if self.user_pre_hook is not None:
            return
        for name in self.reset_to_zero:
            if nargs.get(name) is not None:
                nargs[name].zero_()

    # ---- pickling by reference, for isolated workers

    def __reduce__(self):
        # by reference: the worker imports the module and finds the kernel under its global
        # name (this tuned object, or the raw kernel it wraps)
        module = sys.modules.get(self.__module__)
        for target in (self, self.fn):
            for name, value in vars(module or object).items():
                if value is target:
                    return (_load_kernel, (self.__module__, name))
        raise TypeError(f"{self.__name__}: isolate=True needs the kernel bound to a module-level "
                        f"name in {self.__module__} so that a worker process can import it")


def _load_kernel(module: str, name: str):
    import importlib
    return getattr(importlib.import_module(module), name)


def _to_cpu(args):
    out = []
    for a in args:
        if hasattr(a, "device") and hasattr(a, "cpu"):
            out.append((a.cpu(), str(a.device)))
        else:
            out.append((a, None))
    return out


def _bench_in_worker(kernel, config: Config, args, grid, kwargs, reset_to_zero,
                     restore_value) -> float:
    """Runs in the isolated worker: launch one config of the raw kernel and time it."""
    real = [a.to(dev) if dev is not None else a for a, dev in args]
    named = dict(zip(kernel.arg_names, real))
    snapshot = bench.Snapshot(named[n] for n in restore_value)

    def setup():
        snapshot.restore()
        for n in reset_to_zero:
            named[n].zero_()

    raw = kernel.fn if isinstance(kernel, Autotuned) else kernel

    def call():
        raw.run(*real, grid=grid, warmup=False, **kwargs, **Autotuned._launch_kwargs(config))
    return bench.benchmark(call, setup=setup, device="cpu" if bench.is_interpreted(raw) else None)


def autotune(configs: Sequence[Any] | None = None, key: Sequence[str] = (), prune_configs_by=None,
             reset_to_zero=None, restore_value=None, pre_hook=None, post_hook=None, warmup=None,
             rep=None, use_cuda_graph=False, do_bench=None, cache_results=None, *,
             search: str | None = None, space: ConfigSpace | Callable | None = None,
             search_options: dict | None = None, isolate: bool | None = None,
             isolate_timeout_s: float = 60.0, namespace: str = NAMESPACE):
    """Decorator: tune a `triton.jit` kernel; see the module docstring.

    warmup/rep/use_cuda_graph/cache_results are accepted for compatibility with
    triton.autotune and ignored: warm-up and repetitions come from TUNER_BENCH_WARMUP /
    TUNER_BENCH_REPS, and results are always cached (TUNER_CACHE=0 turns that off).
    """
    def decorator(fn):
        return Autotuned(fn, configs, key, prune_configs_by=prune_configs_by,
                         reset_to_zero=reset_to_zero, restore_value=restore_value,
                         pre_hook=pre_hook, post_hook=post_hook, do_bench=do_bench,
                         search=search, space=space, search_options=search_options,
                         isolate=isolate, isolate_timeout_s=isolate_timeout_s,
                         namespace=namespace)
    return decorator
