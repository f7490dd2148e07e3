"""`tuner.autotune`: a drop-in for `triton.autotune` with search strategies and a persistent cache.

    @tuner.autotune(configs=[triton.Config({"XBLOCK": 64}), ...], key=["n"],
                    search="coordinate_descent",
                    space=lambda args: ConfigSpace.pointwise([args["n"]]))
    @triton.jit
    def kernel(x_ptr, y_ptr, n, XBLOCK: tl.constexpr): ...

    kernel[grid](x, y, n)

It takes what `triton.autotune` takes (configs, key, prune_configs_by, reset_to_zero,
restore_value, pre_hook, post_hook, warmup, rep, use_cuda_graph, do_bench, cache_results) and
behaves as it does:
- arguments are bound by name as the kernel's signature binds them (positional, keyword and
  defaults) for the key, the hooks, restore_value and reset_to_zero; the prune callbacks get
  what triton's get (positional arguments by name, keyword arguments as **kwargs);
- the user's config objects are kept: `configs`, what early_config_prune / perf_model
  receive, `best_config`, the keys of `configs_timings` and the `cache` values are the
  `triton.Config` objects passed in, every field (num_ctas, maxnreg, ir_override, pre_hook)
  included; the project's own Config is used inside only;
- an exception while benchmarking a config propagates, except out-of-resources and compile
  errors (the interpreter's errors included), which score infinity; pruning every config
  raises triton's AutotunerError; the user pre_hook is called with reset_only=True after
  tuning; triton.knobs.autotuning.listener and .print are honoured where Triton has them;
- warmup/rep (ms) and use_cuda_graph choose the timer as in triton (on the CPU, warmup/rep
  become repetition counts from a first timed run); do_bench replaces the timer.
It adds:
- `search=`: "exhaustive" (the default without a space), "coordinate_descent", "budgeted";
- `space=`: a ConfigSpace, or a function of the call's named arguments returning one, to
  search around the listed configs (or from the space's defaults when there are none);
- the engine's cache: every answer is stored under (kernel source hash, key values, dtypes),
  locally and in the shared Redis, so another process or CI machine does not benchmark again
  (unless cache_results=False is given explicitly; TUNER_CACHE=0 turns it off for all).
Under TRITON_INTERPRET=1 it runs on CPU tensors (timings are then interpreter timings).
"""
from __future__ import annotations

import atexit
import functools
import inspect
import json
import logging
import math
import sys
import time
import warnings
from typing import Any, Callable, Sequence

from tuner import bench
from tuner.decision import Decision
from tuner.engine import HISTORY, decide
from tuner.report import format_report
from tuner.settings import settings
from tuner.space import LAUNCH_FIELDS, Config, ConfigSpace

log = logging.getLogger("tuner.autotuner")
NAMESPACE = "triton.autotune"
# Internal Configs carry the launch fields of a triton.Config that the project's Config has no
# slot for (num_ctas, maxnreg, ir_override, ...) as meta-parameters under this prefix, so that
# two configs that differ only there stay two candidates (and two cache entries).
LAUNCH_PREFIX = "launch."
VARIANT = LAUNCH_PREFIX + "variant"   # tells apart configs that differ only in pre_hook
_QUANTILES = (0.5, 0.2, 0.8)
_NO_LAUNCH_MSG = ("tuner.autotune: pruning left no config to launch (early_config_prune / "
                  "perf_model must keep at least one)")


class _Abort(BaseException):
    """Carries a user-facing error through the search (which scores Exceptions as inf)."""

    def __init__(self, error: BaseException):
        super().__init__(error)
        self.error = error


def _triton_config_cls():
    try:
        import triton
        return getattr(triton, "Config", None)
    except ImportError:
        return None


def _knobs_autotuning():
    try:
        import triton
    except ImportError:
        return None
    return getattr(getattr(triton, "knobs", None), "autotuning", None)


def _autotuner_error(message: str) -> Exception:
    """triton's AutotunerError (a TritonError) where Triton has it, else a RuntimeError."""
    try:
        from triton.runtime import errors
        cls = getattr(errors, "AutotunerError", None)
        if cls is not None:
            return cls(message)
    except ImportError:
        pass
    return RuntimeError(message)


@functools.lru_cache(maxsize=None)
def _launch_defaults() -> dict:
    """The launch fields a bare triton.Config has (num_ctas=1, ...): not worth encoding."""
    cls = _triton_config_cls()
    if cls is None:
        return {}
    try:
        return {k: v for k, v in cls({}).all_kwargs().items() if k not in LAUNCH_FIELDS}
    except Exception:
        return {}


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def launch_kwargs(cfg: Any) -> dict:
    """Meta-parameters and launch options of a config, as the kernel's launch takes them."""
    if isinstance(cfg, dict):
        return to_config(cfg).all_kwargs()
    return dict(cfg.all_kwargs())


def to_config(cfg: Any) -> Config:
    """The project's Config for a tuner Config, a triton.Config or a dict of meta-parameters.

    A triton.Config's launch fields other than num_warps/num_stages (num_ctas, maxnreg,
    ir_override, ...) that differ from a bare triton.Config's are kept as `launch.<field>`
    entries; values the cache cannot hold are kept as their repr (identity only: launches
    always use the original object)."""
    if isinstance(cfg, Config):
        return cfg
    if isinstance(cfg, dict):
        kw = dict(cfg)
        return Config(kw, num_warps=kw.pop("num_warps", 4), num_stages=kw.pop("num_stages", 3))
    meta = getattr(cfg, "kwargs", None)
    if meta is None or not hasattr(cfg, "all_kwargs"):
        raise TypeError(f"not a config: {cfg!r} (expected tuner.space.Config or triton.Config)")
    kw = {k: v if _scalar(v) else repr(v) for k, v in meta.items()}
    defaults = _launch_defaults()
    fields = {"num_warps": 4, "num_stages": 3}
    for name, value in cfg.all_kwargs().items():
        if name in meta:
            continue
        if name in LAUNCH_FIELDS and _positive_int(value):
            fields[name] = value
        elif name in LAUNCH_FIELDS or defaults.get(name, None) != value:
            kw[LAUNCH_PREFIX + name] = value if _scalar(value) else repr(value)
    return Config(kw, **fields)


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:
        return False


def _arg_defaults(fn) -> dict:
    """The kernel's parameters that have a default, with it (from the Python signature)."""
    base = bench.unwrap_kernel(fn)
    try:
        params = inspect.signature(getattr(base, "fn", base)).parameters
    except (TypeError, ValueError):
        return {}
    return {n: p.default for n, p in params.items() if p.default is not inspect.Parameter.empty}


class Autotuned:
    """A tuned Triton kernel: launch it as `kernel[grid](*args, **kwargs)`."""

    def __init__(self, fn, configs: Sequence[Any] | None, key: Sequence[str], *,
                 prune_configs_by: dict | None = None, reset_to_zero: Sequence[str] | None = None,
                 restore_value: Sequence[str] | None = None, pre_hook: Callable | None = None,
                 post_hook: Callable | None = None, warmup: float | None = None,
                 rep: float | None = None, use_cuda_graph: bool = False,
                 do_bench: Callable | None = None, cache_results: bool | None = None,
                 search: str | None = None, space: ConfigSpace | Callable | None = None,
                 search_options: dict | None = None, isolate: bool | None = None,
                 isolate_timeout_s: float = 60.0, namespace: str = NAMESPACE):
        self.fn = fn
        base = bench.unwrap_kernel(fn)
        self.base_fn = getattr(base, "fn", base)
        self.arg_names = bench.kernel_arg_names(fn)
        self._arg_set = set(self.arg_names)
        self._defaults = _arg_defaults(fn)
        self.__name__ = bench.kernel_name(fn)
        self.__module__ = getattr(self.base_fn, "__module__", None)
        self.keys = list(key or [])
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        for what, names in (("key", self.keys), ("reset_to_zero", self.reset_to_zero),
                            ("restore_value", self.restore_value)):
            unknown = [n for n in names if n not in self._arg_set]
            if unknown:
                raise ValueError(f"{what} names {', '.join(unknown)}, which are not arguments of "
                                 f"{self.__name__} ({', '.join(self.arg_names)})")
        # the user's config objects, as given; the project's Configs are internal only
        self.configs: list[Any] = list(configs or [])
        self._ext: dict[Config, Any] = {}        # internal Config -> the user's object
        self._originals: dict[tuple, Any] = {}   # (name, repr) -> a non-scalar meta value
        for c in self.configs:
            self._to_internal(c)                 # validates, and numbers pre_hook variants
        if not self.configs and space is None:
            raise ValueError(f"{self.__name__}: give configs=, space=, or both")
        # configs found in a space come back as the user's kind of config
        self._make_triton = not self.configs or not all(isinstance(c, Config)
                                                        for c in self.configs)
        prune = prune_configs_by or {}
        self.early_config_prune = prune.get("early_config_prune")
        self.perf_model = prune.get("perf_model")
        self.top_k = self.configs_top_k = prune.get("top_k", 1.0)
        self.user_pre_hook, self.user_post_hook = pre_hook, post_hook
        self.do_bench = do_bench
        self.num_warmups, self.num_reps, self.use_cuda_graph = warmup, rep, bool(use_cuda_graph)
        if warmup is not None or rep is not None or use_cuda_graph:
            warnings.warn("warmup, rep and use_cuda_graph are deprecated in triton.autotune "
                          "(pass do_bench=); they are honoured", DeprecationWarning, stacklevel=3)
        self.cache_results = cache_results
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
        self.cache: dict[tuple, Any] = {}   # tuning key -> the user's config, this process
        self.best_config: Any = None
        self.configs_timings: dict[Any, Any] = {}
        self.last_decision: Decision | None = None
        self.bench_time = 0.0
        self.nargs: dict | None = None

    # ---- the user's configs <-> the project's Configs

    def _to_internal(self, ext: Any) -> Config:
        base = to_config(ext)
        for name, value in (getattr(ext, "kwargs", None) or {}).items():
            if not _scalar(value):
                self._originals[(name, repr(value))] = value
        cfg, n = base, 0
        while cfg in self._ext and not _same(self._ext[cfg], ext):
            n += 1
            cfg = Config({**base.kwargs, VARIANT: n}, num_warps=base.num_warps,
                         num_stages=base.num_stages)
        self._ext.setdefault(cfg, ext)
        return cfg

    def _from_internal(self, cfg: Config) -> Any:
        ext = self._ext.get(cfg)
        if ext is None:  # a config the search found in the space
            ext = self._ext[cfg] = self._make_external(cfg)
        return ext

    def _make_external(self, cfg: Config) -> Any:
        meta, extra = {}, {}
        for name, value in cfg.kwargs.items():
            if name.startswith(LAUNCH_PREFIX):
                if name != VARIANT:
                    extra[name[len(LAUNCH_PREFIX):]] = value
            else:
                meta[name] = self._originals.get((name, value), value)
        cls = _triton_config_cls()
        if not self._make_triton or cls is None:
            return Config(meta, num_warps=cfg.num_warps, num_stages=cfg.num_stages)
        accepted = inspect.signature(cls).parameters
        fields = {"num_warps": cfg.num_warps, "num_stages": cfg.num_stages,
                  **{k: v for k, v in extra.items() if k in accepted}}
        return cls(meta, **fields)

    # ---- launching

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)

    def _bind(self, args: tuple, kwargs: dict) -> dict:
        """The call's arguments by name, as the kernel's signature binds them (positional,
        keyword, then defaults), followed by the other keywords (launch options)."""
        positional = dict(zip(self.arg_names, args))
        twice = [k for k in kwargs if k in positional]
        if twice:
            raise TypeError(f"{self.__name__}() got multiple values for argument '{twice[0]}'")
        named = {}
        for name in self.arg_names:
            if name in positional:
                named[name] = positional[name]
            elif name in kwargs:
                named[name] = kwargs[name]
            elif name in self._defaults:
                named[name] = self._defaults[name]
        named.update((k, v) for k, v in kwargs.items() if k not in named)
        return named

    def run(self, *args, grid, warmup: bool = False, **kwargs):
        named = self._bind(args, kwargs)
        self.nargs = named
        try:
            if len(self.configs) == 1 and self.space is None:
                config = self.configs[0]  # nothing to tune (as triton: no key, no pruning)
            else:
                key = self._tuning_key(named)
                config = self.cache.get(key)
                if config is None:
                    config = self._tune(key, args, named, grid, kwargs)
                    self.cache[key] = config
            self.best_config = config
            launch = launch_kwargs(config)
            hook = getattr(config, "pre_hook", None)
            if hook is not None:
                hook({**named, **launch})
            return self.fn.run(*args, grid=grid, warmup=warmup, **kwargs, **launch)
        finally:
            self.nargs = None

    def warmup(self, *args, grid, **kwargs):
        """Compile every config left after pruning (as triton.autotune's warmup does)."""
        nargs = dict(zip(self.arg_names, args))
        configs = self._prune(nargs, {"grid": grid, "warmup": True, **kwargs}) \
            if self.configs else []
        return [self.fn.warmup(*args, grid=grid, **kwargs, **launch_kwargs(c)) for c in configs]

    def _tuning_key(self, named: dict) -> tuple:
        parts: list[Any] = [named[k] for k in self.keys if k in named]
        parts += [str(v.dtype) for k, v in named.items() if k in self._arg_set
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

    def _prune(self, nargs: dict, kwargs: dict) -> list[Any]:
        """The user's configs left by early_config_prune and perf_model/top_k; the callbacks
        get the positional arguments by name and the keyword arguments, as triton's do."""
        configs = list(self.configs)
        if self.early_config_prune is not None:
            configs = list(self.early_config_prune(list(self.configs), nargs, **kwargs) or [])
            if not configs:
                raise _autotuner_error(_NO_LAUNCH_MSG)
        if self.perf_model is not None:
            k = self.top_k
            if isinstance(k, float) and k <= 1.0:
                k = max(1, int(len(configs) * k))
            elif not isinstance(k, int) or isinstance(k, bool):
                raise TypeError("Error while pruning configs, top_k must be either 1) a float "
                                f"<= 1.0 or 2) an int, got {k!r}")
            if len(configs) > k:
                est = [self.perf_model(**nargs, **kwargs, **launch_kwargs(c)) for c in configs]
                order = sorted(range(len(configs)), key=lambda i: est[i])
                configs = [configs[i] for i in order[:k]]
        return configs

    def _tune(self, key, args, named, grid, kwargs) -> Any:
        space = self._space_for(named)
        if self.configs:
            # the prune callbacks see the call as triton's do: the launch's grid and warmup
            # among the keywords
            nargs = dict(zip(self.arg_names, args))
            users = self._prune(nargs, {"grid": grid, "warmup": False, **kwargs})
            candidates = list(dict.fromkeys(self._to_internal(c) for c in users))
        else:
            candidates = space.default_candidates()
        conflicts = set(kwargs) & {k for c in candidates for k in c.kwargs
                                   if not k.startswith(LAUNCH_PREFIX)}
        if conflicts:
            raise ValueError(f"{self.__name__}: {', '.join(sorted(conflicts))} are tuned by the "
                             "autotuner; do not pass them at launch")
        if len(candidates) == 1 and space is None:
            return self._from_internal(candidates[0])  # pruned to one: nothing measured
        search = self.search or ("exhaustive" if space is None else None)
        snapshot = None
        if self.user_pre_hook is None and self.restore_value:
            snapshot = bench.Snapshot(named.get(n) for n in self.restore_value)
        raw: dict[Config, Any] = {}
        measure = self._measurer(args, named, grid, kwargs, snapshot, raw)
        prepare = self._precompiler(args, grid, kwargs)
        error = None
        try:
            if self.cache_results is False:
                d = self._search_uncached(key, candidates, measure, space, search, prepare)
            else:
                extra = {"kernel": self.__name__, "interpret": self.interpreted}
                d = decide(self.namespace, self._problem(key), candidates, measure, space=space,
                           search=search, backend_extra=extra,
                           search_options=self.search_options,
                           features={"kernel": self.__name__, "key": list(map(repr, key))},
                           prepare=prepare)
        except _Abort as abort:
            error = abort.error
        if error is not None:
            if snapshot is not None:
                snapshot.restore()
            raise error
        self.last_decision = d
        best = self._from_internal(d.choice)
        self.configs_timings = {self._from_internal(c): raw.get(c, t) for c, t in d.timings}
        self.bench_time = d.tuning_seconds
        if d.n_measured:
            self._after_tuning(named, snapshot, best)
        self._tell(key, best, cache_hit=d.source == "cache")
        return best

    def _search_uncached(self, key, candidates, measure, space, search, prepare) -> Decision:
        """cache_results=False: the engine's search without its persistent cache."""
        from tuner.search import get_strategy
        requested = search or settings.search
        name = requested if space is not None else "exhaustive"
        strategy = get_strategy(name)
        options = {**self.search_options, "prepare": prepare}
        if name == "budgeted" and not {"max_measurements", "max_seconds"} & set(options):
            options["max_measurements"] = max(len(candidates), 16)
        if name != requested:
            accepted = inspect.signature(strategy).parameters
            options = {k: v for k, v in options.items() if k in accepted}
        start = time.perf_counter()
        result = strategy(space, measure, initial=candidates, **options)
        best, best_time = result.best, result.best_time
        if best is None or not math.isfinite(best_time):
            best, best_time = candidates[0], math.inf
        timings = sorted(result.timings.items(), key=lambda kv: (kv[1], str(kv[0])))
        d = Decision(choice=best, time_ms=best_time,
                     default_time_ms=result.timings.get(candidates[0]), source=name,
                     timings=timings, tuning_seconds=time.perf_counter() - start,
                     namespace=self.namespace, problem=self._problem(key), found_by=name,
                     n_measured=result.n_measured)
        HISTORY.append(d)
        if "autotune" in settings.logs:
            print(format_report(d), file=sys.stderr, flush=True)
        return d

    def _tell(self, key, best, cache_hit: bool) -> None:
        """triton.knobs.autotuning.listener and .print, where this Triton has them."""
        knobs = _knobs_autotuning()
        listener = getattr(knobs, "listener", None)
        if listener is not None:
            listener(fn=bench.unwrap_kernel(self.fn), key=key, best_config=best,
                     configs_timings=self.configs_timings,
                     duration=None if cache_hit else self.bench_time, cache_hit=cache_hit)
        if getattr(knobs, "print", False) and not cache_hit:
            print(f"Triton autotuning for function {self.__name__},\nwith key as {key},\n"
                  f"finished after {self.bench_time:.2f}s,\nbest config selected: {best};")

    def _precompiler(self, args, grid, kwargs):
        # under the interpreter warmup compiles nothing, but the path is the same one
        def precompile(candidates):
            def call(c):
                return dict(grid=grid, **kwargs, **launch_kwargs(self._from_internal(c)))

            def job(c):
                from tuner.compile_workers import describe
                return describe(self.fn, args, call(c))
            bench.compile_all(lambda c: self.fn.warmup(*args, **call(c)), candidates, jobs=job)
        return precompile

    def _timer(self) -> Callable | None:
        """A do_bench-like timer (fn, quantiles) -> ms or [ms...], or None for the tuner's."""
        if self.num_warmups is None and self.num_reps is None and not self.use_cuda_graph:
            return self.do_bench
        warmup = 25 if self.num_warmups is None else self.num_warmups
        rep = 100 if self.num_reps is None else self.num_reps
        if self.interpreted:  # CPU tensors
            return lambda fn, quantiles: _cpu_do_bench(fn, warmup, rep)
        import triton.testing
        if self.use_cuda_graph:
            return lambda fn, quantiles: triton.testing.do_bench_cudagraph(
                fn, rep=rep, quantiles=quantiles)
        return lambda fn, quantiles: triton.testing.do_bench(
            fn, warmup=warmup, rep=rep, quantiles=quantiles)

    def _measurer(self, args, named, grid, kwargs, snapshot, raw) -> Callable[[Config], float]:
        isolate = settings.isolate if self.isolate is None else self.isolate
        if isolate:
            if self._runner is None:
                self._runner = bench.IsolatedRunner(timeout_s=self.isolate_timeout_s)
                atexit.register(self._runner.close)
            runner = self._runner

            def measure_isolated(config: Config) -> float:
                launch = launch_kwargs(self._from_internal(config))
                meta = {**named, **launch}
                concrete = grid(meta) if callable(grid) else grid
                return runner.benchmark(_bench_in_worker, self, launch, _to_cpu(args), concrete,
                                        _to_cpu(kwargs), self.reset_to_zero, self.restore_value)
            return measure_isolated

        invalid = bench.invalid_config_errors()
        timer = self._timer()
        verbose = bool(getattr(_knobs_autotuning(), "print", False))

        def measure(config: Config) -> float:
            ext = self._from_internal(config)
            if verbose:
                print(f"Autotuning kernel {self.__name__} with config {ext}")
            try:
                return measure_one(config, ext)
            except invalid as e:  # out of resources, compile (or interpreter) error: inf
                if verbose:
                    print(f"Autotuning failed with {e}")
                log.debug("%s %s: %s: %s", self.__name__, ext, type(e).__name__, e)
                if timer is not None:
                    raw[config] = [bench.INF] * len(_QUANTILES)
                return bench.INF
            except Exception as e:  # anything else is the user's to see, as with triton
                raise _Abort(e) from None

        def measure_one(config: Config, ext: Any) -> float:
            launch = launch_kwargs(ext)
            current = {**kwargs, **launch}
            full = {**named, **launch}
            if not self.interpreted:
                try:
                    spills = bench.too_many_spills(self.fn.warmup(*args, grid=grid, **current))
                except Exception:  # the launch below raises it again, through the hooks
                    spills = False
                if spills:
                    log.debug("%s %s: register spills over %d: inf", self.__name__, ext,
                              bench.MAX_SPILLS)
                    return bench.INF
            config_hook = getattr(ext, "pre_hook", None)

            def setup():
                if snapshot is not None:
                    snapshot.restore()
                if config_hook is not None:
                    config_hook(full)
                if self.user_pre_hook is not None:
                    self.user_pre_hook(full)
                else:
                    for name in self.reset_to_zero:
                        if named.get(name) is not None:
                            named[name].zero_()

            def call():
                try:
                    self.fn.run(*args, grid=grid, warmup=False, **current)
                except Exception as e:
                    if self.user_post_hook is not None:
                        self.user_post_hook(full, exception=e)
                    raise
                if self.user_post_hook is not None:
                    self.user_post_hook(full, exception=None)

            if timer is not None:
                def timed():
                    setup()
                    call()
                out = timer(timed, quantiles=_QUANTILES)
                raw[config] = out
                return bench.score(out)
            return bench.benchmark(call, setup=setup, device="cpu" if self.interpreted else None)
        return measure

    def _after_tuning(self, named, snapshot, best) -> None:
        # leave mutated arguments as the caller gave them before the real launch; a user
        # pre_hook is called once more with reset_only=True, as triton does
        if snapshot is not None:
            snapshot.restore()
        if self.user_pre_hook is not None:
            self.user_pre_hook({**named, **launch_kwargs(best)}, reset_only=True)
            return
        for name in self.reset_to_zero:
            if named.get(name) is not None:
                named[name].zero_()

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


def _cpu_do_bench(fn: Callable[[], Any], warmup_ms: float, rep_ms: float) -> float:
    """warmup/rep given in ms (triton's meaning), on the CPU: counts from one timed run."""
    t0 = time.perf_counter()
    fn()
    est = max((time.perf_counter() - t0) * 1e3, 1e-3)
    return bench.benchmark(fn, warmup=max(0, int(warmup_ms / est) - 1),
                           reps=max(1, int(rep_ms / est)), device="cpu")


def _load_kernel(module: str, name: str):
    import importlib
    return getattr(importlib.import_module(module), name)


def _to_cpu(args):
    """Positional (a sequence) or keyword (a dict) arguments as (CPU value, device or None)."""
    def one(a):
        if hasattr(a, "device") and hasattr(a, "cpu"):
            return (a.cpu(), str(a.device))
        return (a, None)
    if isinstance(args, dict):
        return {k: one(v) for k, v in args.items()}
    return [one(a) for a in args]


def _bench_in_worker(kernel, launch: dict, args, grid, kwargs, reset_to_zero,
                     restore_value) -> float:
    """Runs in the isolated worker: launch one config of the raw kernel and time it."""
    def back(pair):
        value, dev = pair
        return value.to(dev) if dev is not None else value
    real = [back(a) for a in args]
    real_kw = {k: back(v) for k, v in kwargs.items()}
    named = {**dict(zip(kernel.arg_names, real)), **real_kw}
    snapshot = bench.Snapshot(named.get(n) for n in restore_value)

    def setup():
        snapshot.restore()
        for n in reset_to_zero:
            if named.get(n) is not None:
                named[n].zero_()

    raw = kernel.fn if isinstance(kernel, Autotuned) else kernel

    def call():
        raw.run(*real, grid=grid, warmup=False, **real_kw, **launch)
    return bench.benchmark(call, setup=setup, device="cpu" if bench.is_interpreted(raw) else None)


def autotune(configs: Sequence[Any] | None = None, key: Sequence[str] = (), prune_configs_by=None,
             reset_to_zero=None, restore_value=None, pre_hook=None, post_hook=None, warmup=None,
             rep=None, use_cuda_graph=False, do_bench=None, cache_results=None, *,
             search: str | None = None, space: ConfigSpace | Callable | None = None,
             search_options: dict | None = None, isolate: bool | None = None,
             isolate_timeout_s: float = 60.0, namespace: str = NAMESPACE, **unknown):
    """Decorator: tune a `triton.jit` kernel; see the module docstring.

    warmup/rep (ms) and use_cuda_graph pick the timer as triton's do (deprecated there too;
    on the CPU warmup/rep become counts); do_bench(fn, quantiles) replaces the timer.
    cache_results: None (default) or True uses the persistent cache (TUNER_CACHE=0 turns it
    off everywhere); False tunes in this process only, as triton's default does.
    """
    if unknown:   # a typo (serach=...) is an error that lists what is taken
        from tuner.settings import unknown_names
        valid = [p for p in inspect.signature(autotune).parameters if p != "unknown"]
        raise TypeError(f"tuner.autotune(): {unknown_names(sorted(unknown), valid, 'keyword argument')}")

    def decorator(fn):
        return Autotuned(fn, configs, key, prune_configs_by=prune_configs_by,
                         reset_to_zero=reset_to_zero, restore_value=restore_value,
                         pre_hook=pre_hook, post_hook=post_hook, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                         cache_results=cache_results, search=search, space=space,
                         search_options=search_options, isolate=isolate,
                         isolate_timeout_s=isolate_timeout_s, namespace=namespace)
    return decorator
