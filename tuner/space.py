"""Config spaces for Triton kernels: what a config is, which values each field may take, and
which configs a problem and a device allow.

A `Config` is one launch choice (meta-parameters such as XBLOCK, RBLOCK, BLOCK_M... plus
num_warps and num_stages). A `ConfigSpace` says which fields are tunable, the value rule of
each (powers of two for block sizes and warps, consecutive integers for stages), the limits a
problem's size hints and the device put on them, and the neighbours of a config that a local
search may step to. Builders give the spaces and default candidate lists of the three kernel
families the compiler emits: pointwise, reductions and matmul templates.
"""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

LAUNCH_FIELDS = ("num_warps", "num_stages")

# Largest block per dimension we ever try, whatever the size hint: bigger blocks only add
# registers and masking work (the same caps a careful hand-tuner would use).
BLOCK_CAPS = {"XBLOCK": 4096, "YBLOCK": 1024, "ZBLOCK": 1024, "RBLOCK": 4096, "R0_BLOCK": 4096,
              "BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 256, "BLOCK_SIZE": 4096}


def next_power_of_2(n: int) -> int:
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def is_power_of_2(n: int) -> bool:
    return isinstance(n, int) and n > 0 and (n & (n - 1)) == 0


class Config:
    """One launch choice; immutable and hashable, so it can key timing tables and sets.

    `Config({"XBLOCK": 64}, num_warps=4, num_stages=1)` or `Config.of(XBLOCK=64, num_warps=4)`.
    The defaults of num_warps and num_stages follow `triton.Config` (4 and 3).
    """

    __slots__ = ("_kwargs", "num_warps", "num_stages", "_key")

    def __init__(self, kwargs: Mapping[str, Any] | None = None, num_warps: int = 4,
                 num_stages: int = 3):
        kw = dict(kwargs or {})
        for name in LAUNCH_FIELDS:
            if name in kw:
                raise ValueError(f"{name} is a launch option, not a meta-parameter: pass it as "
                                 f"Config(..., {name}=...)")
        for name, value in kw.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"meta-parameter names must be non-empty strings, got {name!r}")
            _check_json_scalar(name, value)
        object.__setattr__(self, "_kwargs", kw)
        object.__setattr__(self, "num_warps", _positive_int("num_warps", num_warps))
        object.__setattr__(self, "num_stages", _positive_int("num_stages", num_stages))
        object.__setattr__(self, "_key", (tuple(sorted(kw.items())), self.num_warps, self.num_stages))

    @classmethod
    def of(cls, num_warps: int = 4, num_stages: int = 3, **kwargs) -> "Config":
        return cls(kwargs, num_warps=num_warps, num_stages=num_stages)

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self._kwargs)  # a copy: the config stays immutable

    def get(self, name: str, default: Any = None) -> Any:
        if name in LAUNCH_FIELDS:
            return getattr(self, name)
        return self._kwargs.get(name, default)

    def __getitem__(self, name: str) -> Any:
        if name in LAUNCH_FIELDS:
            return getattr(self, name)
        return self._kwargs[name]

    def __contains__(self, name: str) -> bool:
        return name in LAUNCH_FIELDS or name in self._kwargs

    def replace(self, **changes) -> "Config":
        kw = dict(self._kwargs)
        warps, stages = self.num_warps, self.num_stages
        for name, value in changes.items():
            if name == "num_warps":
                warps = value
            elif name == "num_stages":
                stages = value
            else:
                kw[name] = value
        return Config(kw, num_warps=warps, num_stages=stages)

    def all_kwargs(self) -> dict[str, Any]:
        """Meta-parameters and launch options together, as a Triton launch takes them."""
        return {**self._kwargs, "num_warps": self.num_warps, "num_stages": self.num_stages}

    def to_json(self) -> dict[str, Any]:
        return {"kwargs": dict(self._kwargs), "num_warps": self.num_warps,
                "num_stages": self.num_stages}

    @classmethod
    def from_json(cls, data: Any) -> "Config":
        """Inverse of to_json; raises ValueError on anything that is not a config."""
        if not isinstance(data, Mapping) or not isinstance(data.get("kwargs", {}), Mapping):
            raise ValueError(f"not a config: {data!r}")
        extra = set(data) - {"kwargs", "num_warps", "num_stages"}
        if extra:
            raise ValueError(f"not a config (unknown keys {sorted(extra)}): {data!r}")
        return cls(data.get("kwargs", {}), num_warps=data.get("num_warps", 4),
                   num_stages=data.get("num_stages", 3))

    @classmethod
    def parse(cls, text: str) -> "Config":
        """Inverse of str(): "XBLOCK=64,num_warps=4,num_stages=1" (how reports and benchmark
        JSON spell configs) back to a Config; raises ValueError on anything else."""
        kw: dict[str, Any] = {}
        for part in str(text).split(","):
            name, sep, value = part.partition("=")
            name = name.strip()
            if not sep or not name or name in kw:
                raise ValueError(f"not a config: {text!r}")
            kw[name] = _parse_scalar(value.strip())
        warps, stages = kw.pop("num_warps", 4), kw.pop("num_stages", 3)
        return cls(kw, num_warps=warps, num_stages=stages)

    def __setattr__(self, name, value):
        raise AttributeError("Config is immutable; use replace()")

    def __eq__(self, other):
        return isinstance(other, Config) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __lt__(self, other):  # a stable order for reports and sorted()
        return str(self) < str(other)

    def __str__(self):
        parts = [f"{k}={v}" for k, v in self._kwargs.items()]
        parts += [f"num_warps={self.num_warps}", f"num_stages={self.num_stages}"]
        return ",".join(parts)

    def __repr__(self):
        return f"Config({self})"

    def __reduce__(self):  # pickling for worker processes
        return (Config, (dict(self._kwargs), self.num_warps, self.num_stages))


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


def _check_json_scalar(name: str, value: Any) -> None:
    if value is not None and not isinstance(value, (bool, int, float, str)):
        raise ValueError(f"meta-parameter {name}={value!r}: only int, float, bool, str or None "
                         "values can be cached")


def _parse_scalar(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"True": True, "False": False, "None": None}.get(text, text)


def exact_equal(a: Any, b: Any) -> bool:
    """JSON-like values equal with their types: 4096.0 is not 4096, True is not 1 (Python's ==
    says both are). Lists and tuples compare alike (JSON has arrays only)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(exact_equal(x, y) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(exact_equal(a[k], b[k]) for k in a)
    return a == b


def choice_to_json(choice: Any) -> Any:
    """A JSON form for any candidate: configs as tagged objects, plain choices as they are."""
    if isinstance(choice, Config):
        return {"config": choice.to_json()}
    return choice


def choice_from_json(data: Any) -> Any:
    if isinstance(data, Mapping) and set(data) == {"config"}:
        return Config.from_json(data["config"])
    if isinstance(data, list):  # JSON has no tuples; plain tuple choices come back as lists
        return tuple(choice_from_json(d) for d in data)
    return data


# --------------------------------------------------------------------------------------------
# Fields and spaces


@dataclass(frozen=True)
class Field:
    """A tunable field: `pow2` values step by x2 and /2, `int` values by +-1, within [lo, hi]."""

    name: str
    rule: str = "pow2"
    lo: int = 1
    hi: int = 1024

    def __post_init__(self):
        if self.rule not in ("pow2", "int"):
            raise ValueError(f"field {self.name}: rule must be 'pow2' or 'int', got {self.rule!r}")
        if self.lo < 1 or self.hi < 1:
            raise ValueError(f"field {self.name}: bounds must be >= 1, got [{self.lo}, {self.hi}]")

    def allows(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, int) or not self.lo <= value <= self.hi:
            return False
        return self.rule == "int" or is_power_of_2(value)

    def values(self) -> list[int]:
        if self.hi < self.lo:
            return []
        if self.rule == "int":
            return list(range(self.lo, self.hi + 1))
        v, out = next_power_of_2(self.lo), []
        while v <= self.hi:
            out.append(v)
            v *= 2
        return out

    def steps(self, value: int, radius: int) -> list[int]:
        """Values within `radius` steps of `value` (x2 or +1 per step), both directions, in range."""
        out = []
        for k in range(1, radius + 1):
            if self.rule == "pow2":
                up, down = value * (2 ** k), value / (2 ** k)
            else:
                up, down = value + k, value - k
            for v in (down, up):
                if v == int(v) and self.allows(int(v)):
                    out.append(int(v))
        return sorted(set(out))


@dataclass(frozen=True)
class DeviceLimits:
    """What the GPU allows one block to use. `current()` reads the CUDA device when there is one."""

    name: str = "generic"
    max_threads_per_block: int = 1024
    shared_memory_per_block: int = 101376  # bytes; conservative for an unknown device
    warp_size: int = 32

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "max_threads_per_block": self.max_threads_per_block,
                "shared_memory_per_block": self.shared_memory_per_block,
                "warp_size": self.warp_size}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "DeviceLimits":
        return cls(**{k: data[k] for k in cls().to_json() if k in data})

    @classmethod
    def current(cls) -> "DeviceLimits":
        try:
            import torch
            if torch.cuda.is_available():
                p = torch.cuda.get_device_properties(torch.cuda.current_device())
                smem = (getattr(p, "shared_memory_per_block_optin", 0)
                        or getattr(p, "shared_memory_per_block", 0) or cls.shared_memory_per_block)
                return cls(name=p.name, max_threads_per_block=getattr(p, "max_threads_per_block", 1024),
                           shared_memory_per_block=int(smem), warp_size=getattr(p, "warp_size", 32))
        except Exception:  # no torch / broken driver: the generic limits still give a sane space
            pass
        return cls()


def matmul_shared_memory(element_size: int) -> Callable[[Config], int]:
    """Bytes of shared memory a pipelined matmul tile needs: one A and one B tile per stage."""
    def estimate(config: Config) -> int:
        m, n, k = (config.get("BLOCK_M", 1), config.get("BLOCK_N", 1), config.get("BLOCK_K", 1))
        return (m * k + k * n) * element_size * config.num_stages
    return estimate


class ConfigSpace:
    """The configs a search may visit for one problem on one device.

    fields: the tunable fields (a field whose range holds one value or fewer is not tunable:
        with a size hint of 1 there is nothing to try).
    size_hints: block field -> problem size along it; a block never exceeds its next power of 2.
    block_numel_fields / max_block_numel: the product of these fields is capped (registers).
    max_per_thread: that product over the block's threads (num_warps x warp size) is capped:
        a matmul's fp32 accumulator tile, whose registers per thread it is.
    shared_memory: config -> estimated bytes, checked against the device's per-block limit.
    """

    def __init__(self, fields: Iterable[Field], *, size_hints: Mapping[str, int] | None = None,
                 device: DeviceLimits | None = None, block_numel_fields: Sequence[str] = (),
                 max_block_numel: int | None = None, max_per_thread: int | None = None,
                 shared_memory: Callable[[Config], int] | None = None, kind: str = "custom",
                 defaults: Sequence[Config] = ()):
        self.device = device or DeviceLimits()
        self.size_hints = {k: int(v) for k, v in (size_hints or {}).items()}
        self.block_numel_fields = tuple(block_numel_fields)
        self.max_block_numel = max_block_numel
        self.max_per_thread = max_per_thread
        self.shared_memory = shared_memory
        self.kind = kind
        self.fields: dict[str, Field] = {}
        for f in fields:
            hi = f.hi
            if f.name in self.size_hints:
                hi = min(hi, next_power_of_2(self.size_hints[f.name]))
            if f.name == "num_warps":
                hi = min(hi, self.device.max_threads_per_block // self.device.warp_size)
            self.fields[f.name] = Field(f.name, f.rule, f.lo, hi)
        self._defaults = [self.clamp(c) for c in defaults]

    # ---- the rules

    @property
    def tunable_fields(self) -> list[str]:
        return [n for n, f in self.fields.items() if len(f.values()) > 1]

    def why_invalid(self, config: Config) -> str | None:
        """None for a config the space allows, else a short reason."""
        for name, f in self.fields.items():
            value = config.get(name)
            if value is None:
                return f"{name} missing"
            if not f.allows(value):
                return f"{name}={value} outside {f.rule} [{f.lo}, {f.hi}]"
        if config.num_warps * self.device.warp_size > self.device.max_threads_per_block:
            return f"num_warps={config.num_warps} exceeds {self.device.max_threads_per_block} threads"
        numel = 1
        for name in self.block_numel_fields:
            numel *= int(config.get(name, 1))
        if self.max_block_numel and self.block_numel_fields and numel > self.max_block_numel:
            return f"block numel {numel} > {self.max_block_numel}"
        if self.max_per_thread and self.block_numel_fields:
            per = numel // (config.num_warps * self.device.warp_size)
            if per > self.max_per_thread:
                return f"{per} block elements per thread > {self.max_per_thread}"
        if self.shared_memory is not None:
            need = self.shared_memory(config)
            if need > self.device.shared_memory_per_block:
                return f"shared memory {need} B > {self.device.shared_memory_per_block} B"
        return None

    def valid(self, config: Config) -> bool:
        return self.why_invalid(config) is None

    def why_foreign(self, config: Config, like: Sequence[Config] = ()) -> str | None:
        """None when a config that comes from outside (a cache, a heuristic) may be launched
        for a point whose current candidates are `like` (default: the space's defaults), else
        why not. Stricter than why_invalid: the meta-parameter names of one of `like`, no more
        and no fewer; tunable fields as ints (not floats or bools) within their rules; every
        other value (launch options and meta-parameters the space does not tune) equal, type
        included, to that of one of `like`."""
        like = [c for c in (like or self._defaults) if isinstance(c, Config)]
        if not like:
            return "no current config to compare with"
        names = set(config.kwargs)
        if not any(set(c.kwargs) == names for c in like):
            return f"meta-parameters {sorted(names)} are not {sorted(like[0].kwargs)}"
        for name in [*names, *LAUNCH_FIELDS]:
            value = config.get(name)
            if name in self.fields:
                if not self.fields[name].allows(value):
                    f = self.fields[name]
                    return f"{name}={value!r} outside {f.rule} [{f.lo}, {f.hi}]"
            elif not any(exact_equal(value, c.get(name)) for c in like):
                return f"{name}={value!r} is fixed for this point ({like[0].get(name)!r})"
        return self.why_invalid(config)

    __contains__ = valid

    def clamp(self, config: Config) -> Config:
        """The nearest config inside the per-field ranges (used for defaults and heuristics)."""
        changes = {}
        for name, f in self.fields.items():
            value = config.get(name)
            allowed = f.values()
            if value is None or not allowed:
                continue
            if not f.allows(value):
                changes[name] = min(allowed, key=lambda v: (abs(v - value), v))
        return config.replace(**changes) if changes else config

    def neighbours(self, config: Config, field: str, radius: int = 1) -> list[Config]:
        """Valid configs that differ from `config` in `field` by 1..radius steps."""
        f = self.fields.get(field)
        value = config.get(field)
        if f is None or value is None:
            return []
        out = [config.replace(**{field: v}) for v in f.steps(value, radius)]
        return [c for c in out if self.valid(c)]

    def joint_neighbours(self, config: Config, radius: int = 1) -> list[Config]:
        """Every valid config that moves any subset of the tunable fields (all directions)."""
        axes = []
        for name in self.tunable_fields:
            value = config.get(name)
            axes.append([value] + self.fields[name].steps(value, radius))
        out = []
        for combo in itertools.product(*axes):
            cand = config.replace(**dict(zip(self.tunable_fields, combo)))
            if cand != config and self.valid(cand):
                out.append(cand)
        return out

    def all_configs(self, base: Config | None = None) -> Iterator[Config]:
        """Every valid config (the tunable fields' product; other fields taken from `base`)."""
        base = base or (self._defaults[0] if self._defaults else self._base())
        names = list(self.fields)
        for combo in itertools.product(*(self.fields[n].values() for n in names)):
            cand = base.replace(**dict(zip(names, combo)))
            if self.valid(cand):
                yield cand

    def restrict(self, **bounds: tuple[int, int]) -> "ConfigSpace":
        """The same space with some fields narrowed, e.g. `restrict(num_warps=(2, 8))`; a field
        bounded to one value stops being tunable. Defaults are clamped into the new ranges."""
        fields = []
        for name, f in self.fields.items():
            lo, hi = bounds.pop(name, (f.lo, f.hi))
            fields.append(Field(name, f.rule, max(lo, f.lo), min(hi, f.hi)))
        if bounds:
            raise ValueError(f"restrict(): no fields {sorted(bounds)} in {self!r}")
        return ConfigSpace(fields, size_hints=self.size_hints, device=self.device,
                           block_numel_fields=self.block_numel_fields,
                           max_block_numel=self.max_block_numel, max_per_thread=self.max_per_thread,
                           shared_memory=self.shared_memory,
                           kind=self.kind, defaults=self._defaults)

    def size(self) -> int:
        return sum(1 for _ in self.all_configs())

    def default_candidates(self) -> list[Config]:
        """The kind's default starting list, deduplicated, invalid ones dropped."""
        seen, out = set(), []
        for c in self._defaults:
            if c not in seen and self.valid(c):
                seen.add(c)
                out.append(c)
        return out or [self._base()]

    def _base(self) -> Config:
        kw = {n: f.values()[0] for n, f in self.fields.items()
              if n not in LAUNCH_FIELDS and f.values()}
        warps = self.fields["num_warps"].values()[0] if "num_warps" in self.fields else 4
        stages = self.fields["num_stages"].values()[0] if "num_stages" in self.fields else 1
        return Config(kw, num_warps=warps, num_stages=stages)

    def signature(self) -> str:
        """Stable hash of everything that decides which configs the space holds."""
        doc = {"kind": self.kind,
               "fields": [[f.name, f.rule, f.lo, f.hi] for f in self.fields.values()],
               "device": [self.device.max_threads_per_block, self.device.shared_memory_per_block,
                          self.device.warp_size],
               "numel": [list(self.block_numel_fields), self.max_block_numel],
               **({"per_thread": self.max_per_thread} if self.max_per_thread else {}),
               # a shared-memory rule is identified by its result on a probe config
               "smem": None if self.shared_memory is None else self.shared_memory(
                   Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=3))}
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:32]

    def __repr__(self):
        fields = ", ".join(f"{f.name}:{f.rule}[{f.lo},{f.hi}]" for f in self.fields.values())
        return f"ConfigSpace({self.kind}: {fields})"

    # ---- builders for the kernel families the compiler emits

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], *, device: DeviceLimits | None = None
                  ) -> "ConfigSpace":
        """A space from its JSON description, e.g. {"kind": "reduction", "args": [8192, 4096],
        "options": {"max_block_numel": 8192}, "restrict": {"XBLOCK": [1, 64]}}: benchmark
        results record the spaces they searched this way, so recorded timings replay over
        exactly the same space."""
        builders = {"pointwise": cls.pointwise, "reduction": cls.reduction, "matmul": cls.matmul}
        try:
            build = builders[spec["kind"]]
        except (KeyError, TypeError):
            raise ValueError(f"space spec needs a kind in {sorted(builders)}: {spec!r}") from None
        unknown = set(spec) - {"kind", "args", "options", "restrict"}
        if unknown:
            raise ValueError(f"space spec: unknown keys {sorted(unknown)}")
        space = build(*spec.get("args", []), device=device, **spec.get("options", {}))
        bounds = {name: tuple(b) for name, b in (spec.get("restrict") or {}).items()}
        return space.restrict(**bounds) if bounds else space

    @classmethod
    def pointwise(cls, size_hints: Sequence[int], *, device: DeviceLimits | None = None,
                  max_block_numel: int = 4096 * 4, names: Sequence[str] = ("XBLOCK", "YBLOCK", "ZBLOCK"),
                  tune_stages: bool = False) -> "ConfigSpace":
        """Blocks per dimension (x first) and warps; stages fixed at 1 (nothing to pipeline)."""
        dims = list(names[:len(size_hints)])
        fields = [Field(n, "pow2", 1, BLOCK_CAPS.get(n, 1024)) for n in dims]
        fields += [Field("num_warps", "pow2", 1, 32)]
        if tune_stages:
            fields.append(Field("num_stages", "int", 1, 4))
        hints = dict(zip(dims, size_hints))
        defaults = []
        total = 1
        for h in size_hints:
            total *= max(1, int(h))
        if len(dims) == 1:
            for xb in (128, 256, 512, 1024, 2048):
                xb = min(xb, next_power_of_2(size_hints[0]))
                defaults.append(Config({dims[0]: xb}, num_warps=_warps_for(xb), num_stages=1))
        else:
            for shape in ((32, 32), (64, 16), (16, 64), (64, 64), (128, 8), (8, 128), (256, 4), (4, 256)):
                kw = {n: min(b, next_power_of_2(h)) for n, b, h in zip(dims, shape, size_hints)}
                kw.update({n: 1 for n in dims[2:]})
                numel = 1
                for v in kw.values():
                    numel *= v
                defaults.append(Config(kw, num_warps=_warps_for(numel), num_stages=1))
        return cls(fields, size_hints=hints, device=device, block_numel_fields=dims,
                   max_block_numel=max_block_numel, kind="pointwise", defaults=defaults)

    @classmethod
    def reduction(cls, xnumel: int, rnumel: int, *, device: DeviceLimits | None = None,
                  max_block_numel: int = 65536, rname: str = "RBLOCK") -> "ConfigSpace":
        """XBLOCK (rows per program), RBLOCK (reduction chunk) and warps; stages fixed at 1."""
        fields = [Field("XBLOCK", "pow2", 1, BLOCK_CAPS["XBLOCK"]),
                  Field(rname, "pow2", 1, BLOCK_CAPS["RBLOCK"]),
                  Field("num_warps", "pow2", 1, 32)]
        r = next_power_of_2(rnumel)
        defaults = []
        # one row per program with the whole row in registers; several rows with a looped
        # chunk; and a few balanced shapes: the shapes a reduction heuristic picks from.
        for xb, rb in ((1, min(r, 2048)), (1, min(r, 4096)), (8, min(r, 512)), (32, min(r, 128)),
                       (64, min(r, 64)), (128, min(r, 8)), (16, min(r, 256))):
            xb = min(xb, next_power_of_2(xnumel))
            defaults.append(Config({"XBLOCK": xb, rname: rb}, num_warps=_warps_for(xb * rb),
                                   num_stages=1))
        return cls(fields, size_hints={"XBLOCK": xnumel, rname: rnumel}, device=device,
                   block_numel_fields=("XBLOCK", rname), max_block_numel=max_block_numel,
                   kind="reduction", defaults=defaults)

    @classmethod
    def matmul(cls, m: int, n: int, k: int, *, element_size: int = 2,
               device: DeviceLimits | None = None, tune_group: bool = False,
               max_per_thread: int | None = 128) -> "ConfigSpace":
        """BLOCK_M/N/K, warps and stages (the shared-memory rule bounds tiles x stages; at
        most max_per_thread accumulator elements per thread (None: no bound; spaces recorded
        before the bound say so in their spec) - 128: a tile of 256 per thread, e.g. 128 x 256 on
        4 warps or 256 x 256 on 8, spills and took 7-8 s to compile on the H100 against
        2-3 s for 128 x 256 on 8 warps, the widest stock template tile)."""
        fields = [Field("BLOCK_M", "pow2", 16, 256), Field("BLOCK_N", "pow2", 16, 256),
                  Field("BLOCK_K", "pow2", 16, 256)]
        if tune_group:
            fields.append(Field("GROUP_M", "pow2", 1, 16))
        fields += [Field("num_warps", "pow2", 2, 8), Field("num_stages", "int", 1, 6)]
        defaults = []
        # the well-known starting tiles of Triton matmul templates (tile, stages, warps)
        for bm, bn, bk, s, w in ((128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4),
                                 (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (128, 32, 32, 4, 4),
                                 (64, 32, 32, 5, 2), (32, 64, 32, 5, 2), (64, 64, 64, 3, 4),
                                 (32, 32, 32, 2, 2)):
            kw = {"BLOCK_M": min(bm, max(16, next_power_of_2(m))),
                  "BLOCK_N": min(bn, max(16, next_power_of_2(n))),
                  "BLOCK_K": min(bk, max(16, next_power_of_2(k))), "GROUP_M": 8}
            defaults.append(Config(kw, num_warps=w, num_stages=s))
        # size hints raised to 16: tl.dot needs tiles of at least 16 on each side
        hints = {"BLOCK_M": max(16, m), "BLOCK_N": max(16, n), "BLOCK_K": max(16, k)}
        return cls(fields, size_hints=hints, device=device,
                   shared_memory=matmul_shared_memory(element_size), kind="matmul",
                   defaults=defaults, block_numel_fields=("BLOCK_M", "BLOCK_N"),
                   max_per_thread=max_per_thread)


def _warps_for(block_numel: int) -> int:
    # about 256 elements per warp, between 1 and 8 warps: a sane default, refined by search
    return max(1, min(8, next_power_of_2(max(1, block_numel // 256))))
