"""Every `TUNER_*` environment variable, declared once: name, type, default and meaning.

Read a value as an attribute: `settings.cache_dir`, `settings.remote_readonly`. Values are
read from the environment on each access, so a test (or a user in a REPL) can change them
without reloading anything. `tuner settings` and the README list this table.
"""
from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable


class SettingError(ValueError):
    """A TUNER_* variable holds a value that does not parse; the message names the variable.
    Searches re-raise it instead of scoring the candidate inf (every candidate would fail).

    The message quotes the bad value, except for a setting that may hold a secret (see
    Setting.may_hold_secret): a password pasted into the wrong one of those must not end up
    in a log. Every message also goes through `redact`, so a configured secret or a URL's
    password is never quoted whichever setting it was put in."""


# int's and float's own messages quote the value; for a value not shown, these say instead
# what was expected
_EXPECTED = {int: "expected an integer", float: "expected a number"}


@dataclass(frozen=True)
class Setting:
    env: str
    parse: Callable[[str], Any]
    default: Any
    doc: str
    choices: tuple[str, ...] | None = None
    secret: bool = False  # shown as *** (set) or empty (unset), never in clear
    minimum: float | None = None   # numbers: the least value accepted
    positive: bool = False         # numbers: above 0 (a timeout of 0 or less waits for nothing)

    @property
    def may_hold_secret(self) -> bool:
        """Whether a bad value is left out of the parse error: a secret, a setting of the
        remote cache (its URL and password sit beside them: the likely mix-up), or one whose
        name says password, secret or token."""
        return self.secret or self.env.startswith("TUNER_REMOTE_") or any(
            word in self.env for word in ("PASSWORD", "SECRET", "TOKEN"))

    def bad_value(self, raw: str, why: str) -> str:
        """The message for `raw` that does not parse, because `why`."""
        if self.may_hold_secret:
            why = _EXPECTED.get(self.parse, why)
            for shown in sorted({raw, raw.strip()} - {""}, key=len, reverse=True):
                why = why.replace(shown, "***")
            return redact(f"{self.env} (value not shown, it may hold a secret): {why}")
        return redact(f"{self.env}={raw!r}: {why}")

    @property
    def attr(self) -> str:
        return self.env.removeprefix("TUNER_").lower()

    def shown(self) -> str:
        """The value as `tuner settings` prints it: secrets as ***, passwords in URLs redacted."""
        value = self.get()
        if self.secret:
            return "***" if value else ""
        if isinstance(value, frozenset):
            value = ",".join(sorted(value))
        return redact(str(value))

    def get(self) -> Any:
        raw = os.environ.get(self.env)
        if raw is None or raw == "":
            return self.default() if callable(self.default) else self.default
        try:
            value = self.parse(raw)
        except ValueError as e:
            raise SettingError(self.bad_value(raw, str(e))) from None
        if self.choices is not None and value not in self.choices:
            raise SettingError(self.bad_value(raw, f"expected one of {', '.join(self.choices)}"))
        if self.minimum is not None and value < self.minimum:
            raise SettingError(self.bad_value(raw, f"expected at least {self.minimum}"))
        if self.positive and not value > 0:
            raise SettingError(self.bad_value(raw, "expected a number above 0"))
        return value


def _bool(raw: str) -> bool:
    low = raw.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected a boolean (1/0, true/false, yes/no, on/off)")


def _path(raw: str) -> Path:
    return Path(raw).expanduser()


def _str(raw: str) -> str:
    return raw.strip()


def _random_fallback(raw: str) -> str:
    """TUNER_FALLBACK_RANDOM: 1 and 0 name the two ends (all / none in ATen)."""
    raw = raw.strip().lower()
    return {"1": "all", "0": "none"}.get(raw, raw)


def _csv(raw: str) -> frozenset[str]:
    return frozenset(p.strip() for p in raw.split(",") if p.strip())


# Names TUNER_LOGS accepts, and the options torch.compile(backend="tuner", options=...) and
# TUNER_COMPILE_OPTIONS accept (compiler/backend.py documents each).
LOG_NAMES = ("autotune", "decisions", "output_code")
# TUNER_MM's values, and options={"mm": ...}'s (compiler/lowerings/matmul.py)
MM_MODE_CHOICES = ("auto", "template", "extern", "splitk")
# TUNER_LAYOUT's values, and options={"layout": ...}'s (tuner/points/layout.py)
LAYOUT_CHOICES = ("auto", "channels_last", "keep")
COMPILE_OPTIONS = ("max_persistent_r", "max_autotune", "cudagraphs", "cudagraph_min_launches",
                   "cudagraph_address_replay", "pad_mm", "combo_kernels", "combo_max_subkernels",
                   "combo_max_args", "foreach_kernels", "mm", "mm_split_k", "precompile",
                   "round_intermediates", "layout", "freeze", "memory_reorder",
                   "cudagraph_shared_pools", "cudagraph_copy_in")


def unknown_names(given, valid, what: str) -> str | None:
    """None when every name in `given` is one of `valid`; else the message saying which are
    not, listing the valid ones (and the closest match of a typo)."""
    import difflib
    bad = [str(n) for n in given if n not in valid]
    if not bad:
        return None
    hints = [f"{b!r} (did you mean {m[0]!r}?)" if (m := difflib.get_close_matches(b, valid, 1))
             else repr(b) for b in bad]
    return f"unknown {what} {', '.join(hints)}; valid: {', '.join(valid)}"


def _logs(raw: str) -> frozenset[str]:
    names = _csv(raw)
    why = unknown_names(sorted(names), LOG_NAMES, "log")
    if why:
        raise ValueError(why)
    return names


# The options whose value is a flag or a count (the others, pad_mm, mm, mm_split_k and layout, the
# backend checks against their choices): (type, least value of a count)
OPTION_TYPES = {"max_persistent_r": (int, 1), "max_autotune": (bool, None),
                "cudagraphs": (bool, None), "cudagraph_min_launches": (int, 0),
                "cudagraph_address_replay": (bool, None), "combo_kernels": (bool, None),
                "combo_max_subkernels": (int, 1), "combo_max_args": (int, 1),
                "foreach_kernels": (bool, None), "precompile": (bool, None),
                "round_intermediates": (bool, None), "freeze": (bool, None),
                "memory_reorder": (bool, None), "cudagraph_shared_pools": (bool, None),
                "cudagraph_copy_in": (bool, None)}


def check_compile_options(options: dict, where: str = "") -> None:
    """Raises ValueError for a key of `options` that is not a compile option, or a flag or
    count of the wrong type ("no" for a flag, "big" for a count), naming the option and what
    it takes. (The compiler's own flags live in its CompileContext, never in options.)"""
    why = unknown_names(list(options), COMPILE_OPTIONS, "option")
    for name, value in options.items():
        if why or name not in OPTION_TYPES or value is None:
            continue
        kind, least = OPTION_TYPES[name]
        if kind is bool and not (isinstance(value, bool) or value in (0, 1)):
            why = f"option {name!r}={value!r}: expected True or False"
        elif kind is int and (isinstance(value, bool) or not isinstance(value, int) or value < least):
            why = f"option {name!r}={value!r}: expected an integer >= {least}"
    if why:
        raise ValueError(f"{where}: {why}" if where else why)


def _compile_options(raw: str) -> dict:
    value = _json_object(raw)
    check_compile_options(value)
    return value


def _json_object(raw: str) -> dict:
    import json
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(value, dict):
        raise ValueError("expected a JSON object, e.g. {\"pad_mm\": \"never\"}")
    return value


def _default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tuner"


SETTINGS: tuple[Setting, ...] = (
    # cache
    Setting("TUNER_CACHE_DIR", _path, _default_cache_dir,
            "Folder of the local cache (SQLite, WAL mode)."),
    Setting("TUNER_CACHE", _bool, True,
            "Use the tuning-result cache at all (0 turns both layers off)."),
    Setting("TUNER_REMOTE_CACHE", _str, "",
            "URL of the shared Redis cache (redis://host:port/db, rediss:// for TLS); empty: local only."),
    Setting("TUNER_REDIS_PASSWORD", _str, "",
            "Password for the remote cache when the URL carries none; never written to disk.",
            secret=True),
    Setting("TUNER_REMOTE_PREFIX", _str, "tuner:",
            "Prefix of every key the project writes in Redis."),
    Setting("TUNER_REMOTE_TTL", int, 0,
            "Seconds a remote entry lives (0: forever).", minimum=0),
    Setting("TUNER_REMOTE_CONNECT_TIMEOUT", float, 1.0,
            "Seconds to wait for a connection to the remote cache.", positive=True),
    Setting("TUNER_REMOTE_READ_TIMEOUT", float, 1.0,
            "Seconds to wait for a reply from the remote cache.", positive=True),
    Setting("TUNER_REMOTE_READONLY", _bool, False,
            "Read the shared cache but never write to it (for untrusted jobs)."),
    Setting("TUNER_CACHE_SECRET", _str, "",
            "When set, entries are HMAC-signed and unsigned or wrongly signed entries are rejected.",
            secret=True),
    Setting("TUNER_GRAPH_CACHE", _bool, True,
            "Cache compiled graphs (generated wrapper and kernel sources, chosen configs) in the "
            "tuning cache, so a graph compiled before is loaded without lowering or tuning; "
            "shared through the remote cache only when TUNER_CACHE_SECRET signs its entries."),
    Setting("TUNER_GRAPH_CACHE_MAX_MB", float, 1024.0,
            "Megabytes of compiled-graph entries the local cache keeps; the oldest go first.",
            minimum=0),
    Setting("TUNER_FAST_LAUNCH", _bool, True,
            "Launch each compiled kernel after its first call straight through Triton's launcher "
            "with its data pointers, skipping JITFunction.run's argument binding (tens of "
            "microseconds per launch); off: every launch goes through JITFunction.run."),
    Setting("TUNER_STATIC_LAUNCH", _bool, True,
            "Launch compiled kernels through torch's static CUDA launcher (as the stock compiler "
            "does): a graph served from the compiled-graph cache from its first call (its carried "
            "cubins loaded directly: no Triton JIT, key or C launcher), a freshly compiled kernel "
            "after its first launch (less host time per launch than Triton's launcher); off "
            "launches them through Triton."),
    # engine
    Setting("TUNER_LOGS", _logs, frozenset(),
            # the doc is the README's table row (a test compares): decisions is listed in
            # LOG_NAMES and in the message a bad name gets
            "Comma-separated logs to print: decisions (one line per tuning decision: where its "
            "answer came from and why), autotune (full decision reports), output_code (generated code)."),
    Setting("TUNER_SEARCH", _str, "coordinate_descent",
            "Search strategy for max-autotune.",
            choices=("exhaustive", "coordinate_descent", "budgeted")),
    Setting("TUNER_SHORTLIST_SWEEPS", int, 0,
            "Coordinate-descent sweeps after a shipped config module's shortlist is timed "
            "(0: keep the fastest of the shortlist; 1 or more: descend from it, one field at "
            "a time).", minimum=0),
    Setting("TUNER_SHORTLIST_BEYOND", _str, "shortlist",
            "A kernel larger than every problem a shipped config module's shortlist was chosen "
            "on (its SHORTLIST_RANGES): time the shortlist anyway, or search it as without a "
            "module (closer to full tuning, a longer compile: EfficientNet-B0 on the H200, "
            "3.5% -> 1.2% slower than full tuning, but a cold first call 3.3x default mode's).",
            choices=("shortlist", "search")),
    Setting("TUNER_BENCH_REPS", int, 25,
            "Timed repetitions per benchmark (median is kept).", minimum=1),
    Setting("TUNER_BENCH_WARMUP", int, 5,
            "Warm-up runs before timing a candidate.", minimum=0),
    Setting("TUNER_COMPILE_WORKERS", int, 0,
            "Threads that compile candidates in parallel (0: min(8, cores)).", minimum=0),
    Setting("TUNER_COMPILE_PROCESSES", int, 0,
            "Worker processes that compile batches of 2 or more tuning candidates (0: min(8, cores); 1: none, threads only).", minimum=0),
    Setting("TUNER_COMPILE_PRESTART", _bool, True,
            "In max-autotune on CUDA, start the compile worker processes when the backend is "
            "first called, so they import torch and Triton while the graph is lowered (0: on "
            "the first batch of candidates)."),
    Setting("TUNER_COMPILE_WARMUP", _bool, True,
            "Each compile worker process builds a tiny kernel on the GPU when it starts (its "
            "CUDA context, Triton's driver and compiler start-up), not in its first job."),
    Setting("TUNER_PREBUILD_BACKGROUND", _bool, True,
            "Max-autotune builds each graph's tuning candidates ahead on the compile workers in "
            "the background: the first call tunes a kernel as soon as its own candidates are "
            "built, while the workers build the rest (0: the graph waits for all of them "
            "before its first call)."),
    Setting("TUNER_WORKER_LOAD", _bool, True,
            "A compile worker also loads each kernel it builds, which leaves anything Triton "
            "builds at a kernel's first load (on some Triton versions a C launcher per argument "
            "signature) in Triton's cache for the process that times it."),
    Setting("TUNER_BENCH_LOCK", _str, "",
            "A file that processes sharing one GPU lock while they time (compiles overlap, "
            "measurements do not); `tuner collect --jobs` sets it."),
    Setting("TUNER_ISOLATE", _bool, False,
            "Benchmark candidates in a worker process so a crash or hang scores infinity."),
    # heuristics and data collection
    Setting("TUNER_HEURISTICS", _str, "use",
            "Learned heuristics: use them, turn them off, or collect every benchmarked decision.",
            choices=("use", "off", "collect")),
    Setting("TUNER_DATASET_DIR", _path, lambda: Path("tuner-data"),
            "Folder where collect mode appends benchmarked decisions."),
    # compiler
    Setting("TUNER_DEBUG_DIR", _str, "",
            "When set, every compiled graph writes its FX graph, IR and generated code here."),
    Setting("TUNER_KERNEL_MODULES", int, 512,
            "Generated kernel modules a process keeps loaded; beyond it the least recently used "
            "is dropped (a compiled graph keeps the kernels it launches until it is dropped).",
            minimum=1),
    Setting("TUNER_PAD_MM", _str, "auto",
            "Pad unaligned mm/addmm/bmm when compiling: decide each (heuristic, cache, benchmark), "
            "always, or never; torch.compile's options={\"pad_mm\": ...} wins.",
            choices=("auto", "always", "never")),
    Setting("TUNER_LAYOUT", _str, "auto",
            "Memory layout of graphs with 2-D convolutions: auto (the layout point: its cache, "
            "else in max-autotune on CUDA both layouts timed and the faster stored, "
            "else channels_last on CUDA for two or more convolutions on inputs not channels-last "
            "already, keep on CPU), "
            "channels_last (inputs reaching a convolution and conv weights converted at the "
            "graph's entry, outputs returned with eager's strides), or keep the caller's "
            "layout; torch.compile's options={\"layout\": ...} wins.",
            choices=LAYOUT_CHOICES),
    Setting("TUNER_FREEZE", _bool, False,
            "Inference with frozen parameters: the compiled module's parameters and buffers are "
            "constants (the compiled graph keeps the values it saw at compile time; change them "
            "and it does not see it), so in graphs that want no gradient an eval-mode batch norm "
            "is folded into the convolution before it (issue 49, not yet measured on a GPU); "
            "torch.compile's options={\"freeze\": ...} wins."),
    Setting("TUNER_PARTITIONER", _str, "min_cut",
            "How a training graph is split into forward and backward: min_cut (AOTAutograd's "
            "min-cut rematerialization: cheap values the backward needs are recomputed there "
            "instead of saved, so less memory between the two) or default (save every value "
            "the backward reads).",
            choices=("min_cut", "default")),
    Setting("TUNER_COMPILE_OPTIONS", _compile_options, dict,
            "A JSON object of default options for torch.compile(backend=\"tuner\"), e.g. "
            "{\"max_persistent_r\": 4096}; options given in code win (torch.compile takes a mode "
            "or options, not both: with a mode, this is how options reach the backend)."),
    Setting("TUNER_MM", _str, "auto",
            "Matmuls (mm/addmm/bmm) when compiling: a generated Triton template with its "
            "epilogue fused, the ATen call, or auto (in max-autotune the mm point decides per "
            "problem: its heuristic, its cache, else it measures both; default mode keeps "
            "ATen, as the template's config is tuned only in max-autotune); torch.compile's "
            "options={\"mm\": ...} wins. splitk (not yet measured on a GPU): the template over "
            "K slices (options={\"mm_split_k\": S}, default 4) and a reduction with the epilogue, "
            "for 2-D matmuls whose K splits into slices of 16 or more. A matmul the pad_mm point "
            "pads stays the padded ATen call in every mode.",
            choices=MM_MODE_CHOICES),
    Setting("TUNER_MM_PADDED", _str, "extern",
            "A matmul the pad_mm point pads, in max-autotune with TUNER_MM=auto: keep the ATen "
            "call on padded operands, or let the mm point measure the template (unpadded, its "
            "epilogue fused) against it. \"measure\" is not yet timed on GPU models (it probes "
            "every padded matmul, GPT-2's 50257-wide head among them).",
            choices=("extern", "measure")),
    Setting("TUNER_FALLBACK_RANDOM", _random_fallback, "dropout",
            "Random ops when compiling: dropout (native_dropout runs in ATen, so a compiled "
            "dropout draws eager's mask; every other random op draws its numbers in generated "
            "kernels from a seed the graph takes from torch's generator per call), 1 or all "
            "(every random op runs in ATen: compiled values match eager's exactly), 0 or none "
            "(dropout's mask is drawn in generated kernels too).",
            choices=("dropout", "all", "none")),
    Setting("TUNER_CUDAGRAPH_SHAPES", int, 8,
            "Shapes a graph with dynamic sizes records as CUDA graphs (reduce-overhead, "
            "max-autotune): a shape records when it comes a second time; shapes seen once and "
            "those past the limit run without a graph (a decode loop's growing KV cache pays no "
            "recording per step).", minimum=0),
    Setting("TUNER_SHAPE_LIMIT", int, 32,
            "Symbolic variants one graph with dynamic sizes compiles (its sizes kept symbolic: "
            "each variant serves every size its guards admit, and a size none admits compiles "
            "another); past it, such sizes run the graph in ATen, with one warning.", minimum=1),
    Setting("TUNER_FOLD_MAX_ELEMENTS", int, 1 << 24,
            "Largest attention mask (elements of any tensor it is computed from) the compiler "
            "evaluates at compile time when it depends on constants and sizes only: an all-true "
            "or all-zero mask is dropped from scaled_dot_product_attention, a causal one becomes "
            "is_causal=True (0: never).", minimum=0),
    Setting("TUNER_ATTENTION_PATTERNS", _bool, True,
            "Replace hand-written attention (softmax(q @ k^T * scale + mask) @ v, as in "
            "attn_implementation=\"eager\") with scaled_dot_product_attention before "
            "AOTAutograd, where that is exact up to rounding, so a fused attention kernel runs "
            "(0: keep it as written)."),
    Setting("TUNER_GQA_DECODE", _str, "auto",
            "One-token attention over grouped KV heads repeated for SDPA (Hugging Face's "
            "repeat_kv before a masked SDPA call) in inference graphs: auto (the "
            "decode-attention point: its cache, else in max-autotune on CUDA both timed and the "
            "faster stored, else gqa on CUDA under CUDA graphs and sdpa elsewhere), sdpa (as the "
            "model wrote it), or "
            "gqa (tuner::gqa_decode, reading the cache in place instead of copying it per step).",
            choices=("auto", "sdpa", "gqa")),
    Setting("TUNER_TUNE_BUDGET_S", float, 0,
            "Seconds of kernel tuning per compiled graph in max-autotune (0: unlimited); beyond "
            "it, kernels keep the best config measured so far or their default (cache and "
            "heuristic answers are still used), and the autotune report says so.", minimum=0),
)

_BY_ATTR = {s.attr: s for s in SETTINGS}
_BY_ENV = {s.env: s for s in SETTINGS}


# TUNER_* variables that are not settings: the project's own plumbing between processes and
# its benchmark scripts' (a user never sets them; they get no "unknown" warning)
NOT_SETTINGS = ("TUNER_WORKER_DEVICE", "TUNER_BENCH_REDIS_URL", "TUNER_TEST_MARK")
_warned_unknown: set[str] = set()


def warn_unknown_variables() -> None:
    """One warning per process for each TUNER_* variable in the environment that is no
    setting (a typo: TUNER_LOG for TUNER_LOGS), naming the closest valid name."""
    import difflib
    import warnings
    valid = [s.env for s in SETTINGS]
    for name in sorted(os.environ):
        if not name.startswith("TUNER_") or name in _BY_ENV or name in NOT_SETTINGS \
                or name in _warned_unknown:
            continue
        _warned_unknown.add(name)
        close = difflib.get_close_matches(name, valid, 1)
        hint = f"; did you mean {close[0]}?" if close else "; `tuner settings` lists them"
        warnings.warn(f"{name} is not a tuner setting, it is ignored{hint}", UserWarning, stacklevel=3)


def check_all(names: tuple[str, ...] | None = None) -> None:
    """Raises SettingError listing every TUNER_* variable (of `names`, default all) whose value
    does not parse or is out of range: a compile checks them before it starts instead of
    failing half-way; checking them all also warns of a TUNER_* variable that is no setting."""
    if names is None:
        warn_unknown_variables()
    bad = []
    for s in SETTINGS:
        if names is not None and s.env not in names:
            continue
        try:
            s.get()
        except ValueError as e:
            bad.append(redact(str(e)))
    if bad:
        raise SettingError("; ".join(bad))


def markdown_table() -> str:
    """The settings as the README lists them (a test keeps the README in step)."""
    def default(s: Setting) -> str:
        if s.env == "TUNER_CACHE_DIR":
            return "`~/.cache/tuner`"
        value = s.default() if callable(s.default) else s.default
        if isinstance(value, frozenset):
            value = ",".join(sorted(value))
        return f"`{value}`" if value not in ("", frozenset()) else "(empty)"

    lines = ["| variable | default | meaning |", "| --- | --- | --- |"]
    for s in SETTINGS:
        doc = s.doc + (f" One of: {', '.join(s.choices)}." if s.choices else "")
        lines.append(f"| `{s.env}` | {default(s)} | {doc} |")
    return "\n".join(lines)


# -- redaction: the one helper every message, listing and warning that may quote a secret uses

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]*")
_QUERY_SECRET = re.compile(r"([?&;](?:password|passwd|pass|pwd|secret|token|auth)=)[^&;]*",
                           re.IGNORECASE)
_MIN_LITERAL = 3  # shorter secret values are not searched for in free text (they would mangle it)


def _redact_url(url: str) -> str:
    # Parsed by hand, not with urllib: a password holding an unencoded '#', '/' or '?' moves
    # urlsplit's boundaries (part of it lands in the fragment) and a bad port raises.
    scheme, sep, rest = url.partition("://")
    at = rest.rfind("@")
    if at >= 0:
        user, colon, _ = rest[:at].partition(":")
        rest = (f"{user}:***" if colon else "***") + rest[at:]
    return scheme + sep + _QUERY_SECRET.sub(r"\1***", rest)


def _url_password(url: str) -> str:
    rest = url.partition("://")[2]
    at = rest.rfind("@")
    return rest[:at].partition(":")[2] if at >= 0 else ""


def secret_values() -> list[str]:
    """The secrets configured now: TUNER_REDIS_PASSWORD, TUNER_CACHE_SECRET and any password
    inside TUNER_REMOTE_CACHE (in its userinfo or a password= query parameter)."""
    url = os.environ.get("TUNER_REMOTE_CACHE", "")
    found = [os.environ.get("TUNER_REDIS_PASSWORD", "").strip(),
             os.environ.get("TUNER_CACHE_SECRET", "").strip(), _url_password(url)]
    found += [m.group(0).partition("=")[2] for m in _QUERY_SECRET.finditer(url)]
    return [s for s in found if len(s) >= _MIN_LITERAL]


def redact(text: str) -> str:
    """`text` (a URL, or a message quoting one) with passwords and secrets replaced by ***:
    the userinfo password and password=/secret=/token= query values of every URL in it, and
    any configured secret value (see secret_values) wherever it appears. Never raises."""
    text = _URL.sub(lambda m: _redact_url(m.group(0)), str(text))
    for value in sorted(secret_values(), key=len, reverse=True):
        text = text.replace(value, "***")
    return text


@contextlib.contextmanager
def environ(values: dict[str, str]):
    """os.environ with `values` set inside the block, restored after (settings are read from
    the environment at each use, so this is how code changes them for a while)."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class _Settings:
    def __getattr__(self, name: str) -> Any:
        try:
            return _BY_ATTR[name].get()
        except KeyError:
            raise AttributeError(f"no setting {name!r}; known: {', '.join(_BY_ATTR)}") from None

    def __dir__(self):
        return list(_BY_ATTR)


settings = _Settings()
