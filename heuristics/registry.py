"""Run-time registry of generated heuristic modules (tuner.heuristics.artifacts).

`lookup(namespace, context)` asks every shipped module whose precondition matches the point,
the current GPU and the context's feature schema; it returns the choice of those that are
confident when they agree, or None ("unsure": none is confident, two disagree, or no module;
the engine asks only when TUNER_HEURISTICS is `use`). Never imports scikit-learn, never
raises.
"""
from __future__ import annotations

import functools
import importlib
import json
import pkgutil
import threading
import warnings
from types import ModuleType

from tuner.heuristics.contexts import (MM_BACKEND_FEATURE_SCHEMA, PAD_MM_FEATURE_SCHEMA,
                                       TRITON_CONFIG_FEATURE_SCHEMA)
from tuner.heuristics.interface import DeviceInfo, as_float32

ARTIFACTS = "tuner.heuristics.artifacts"
# Feature schema per point, for contexts given as plain dicts.
SCHEMAS = {"pad_mm": PAD_MM_FEATURE_SCHEMA, "mm_backend": MM_BACKEND_FEATURE_SCHEMA}


def schema_of(namespace: str):
    """The feature schema of a point's dict contexts (every kernel kind's "triton.<kind>"
    shares the kernel-config point's, every "mm_backend.<class>" mm_backend's)."""
    if namespace.startswith("triton."):
        return TRITON_CONFIG_FEATURE_SCHEMA
    # a point's questions routed by name ("mm_backend.bare") share the point's features
    return SCHEMAS.get(namespace.partition(".")[0])


@functools.lru_cache(maxsize=None)
def _cuda_device(index: int) -> DeviceInfo:
    import torch
    p = torch.cuda.get_device_properties(index)
    smem = int(getattr(p, "shared_memory_per_block_optin", 0) or getattr(p, "shared_memory_per_block", 0))
    return DeviceInfo(p.name, (p.major, p.minor), smem)


# Decisions for the CPU match modules learned from CPU datasets (capability 0.0, no shared
# memory), as `tuner collect --device cpu` records them; never a GPU module.
CPU = DeviceInfo("cpu", (0, 0), 0)


def device_info(device=None) -> DeviceInfo | None:
    """The device a decision is made for: "cpu", "cuda[:i]", a torch.device, or None for
    the current CUDA device (the CPU without one). None if it cannot be read."""
    try:
        if device is not None and str(device).startswith("cpu"):
            return CPU
        import torch
        if not torch.cuda.is_available():
            return CPU if device is None else None
        index = None if device is None else torch.device(device).index
        return _cuda_device(torch.cuda.current_device() if index is None else index)
    except Exception:  # noqa: BLE001 - no usable device means no heuristic, not an error
        return None


def current_device() -> DeviceInfo | None:
    return device_info(None)


def _is_heuristic(mod: ModuleType) -> bool:
    return hasattr(mod, "PRECONDITION") and callable(getattr(mod, "decide", None))


class Registry:
    """Heuristic modules by point. `modules=None` discovers the package's artifacts."""

    def __init__(self, modules: list[ModuleType] | None = None, package: str = ARTIFACTS):
        self.package = package
        self._modules = list(modules) if modules is not None else None

    def modules(self) -> list[ModuleType]:
        if self._modules is None:
            found = []
            pkg = importlib.import_module(self.package)
            for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
                if info.name.startswith("_"):
                    continue
                try:
                    mod = importlib.import_module(f"{self.package}.{info.name}")
                except Exception as e:  # noqa: BLE001 - a broken artifact must not break compiles
                    warnings.warn(f"tuner: skipping heuristic {info.name}: {e}")
                    continue
                if _is_heuristic(mod):
                    found.append(mod)
            self._modules = found
        return self._modules

    def add(self, mod: ModuleType) -> None:
        if not _is_heuristic(mod):
            raise ValueError(f"{mod.__name__} is not a heuristic module (PRECONDITION, decide)")
        self.modules().append(mod)

    def matching(self, namespace: str, schema: int | None, device: DeviceInfo | None) -> list[ModuleType]:
        return [m for m in self.modules() if m.PRECONDITION.matches(namespace, device, schema)]

    def lookup(self, namespace: str, context, device: DeviceInfo | None = None):
        # Whether to ask at all (TUNER_HEURISTICS) is the engine's call: it asks only in "use"
        # mode, so this package stays free of the engine's settings.
        if isinstance(context, dict):
            features, schema = context, schema_of(namespace)
        else:
            features, schema = context.features(), getattr(context, "feature_schema", schema_of(namespace))
        device = device or getattr(context, "device", None) or current_device()
        matching = self.matching(namespace, schema, device)
        if not matching:
            return _because(self.why_none(namespace, schema, device))
        # Every matching module is asked: one that is unsure abstains, and confident ones
        # must agree (two trees learned from different data each answer where the other is
        # unsure; where both answer and differ, neither is trusted and the point measures).
        said, answers = [], {}
        for mod in matching:
            name = mod.__name__.rpartition(".")[2]
            try:
                choice = mod.decide(features)
            except Exception as e:  # noqa: BLE001 - e.g. a feature missing: unsure
                warnings.warn(f"tuner: heuristic {mod.__name__} failed: {e!r}")
                said.append(f"{name} failed ({type(e).__name__})")
                continue
            if choice is not None:
                answers[name] = choice
            else:
                said.append(f"{name} unsure (outside its domain or below its thresholds)")
        if len(set(map(_hashable, answers.values()))) == 1:
            _why.reason = ""
            return next(iter(answers.values()))
        if answers:
            return _because("modules disagree: " + ", ".join(f"{n} says {c!r}" for n, c in answers.items()))
        return _because("; ".join(said))

    def why_none(self, namespace: str, schema, device: DeviceInfo | None) -> str:
        """Why no module's precondition holds: no module for the point, or what differs."""
        if device is None:
            return "did not apply: the device could not be read"
        here = (f"{device.name or '?'}, capability {device.capability[0]}.{device.capability[1]}, "
                f"{device.shared_memory} B shared memory, feature schema {schema}")
        mods = [m for m in self.modules() if m.PRECONDITION.point == namespace]
        if not mods:
            return f"did not apply: no module learned for {namespace} (here: {here})"
        learned = "; ".join(
            f"{m.__name__.rpartition('.')[2]} is for {m.PRECONDITION.gpu_name or '?'}, capability "
            f"{m.PRECONDITION.capability[0]}.{m.PRECONDITION.capability[1]}, "
            f"{m.PRECONDITION.shared_memory} B, schema {m.PRECONDITION.feature_schema}"
            for m in mods)
        return f"did not apply: precondition (here: {here}; {learned})"


def _hashable(choice):
    """A choice as a set member (a config module answers a dict, possibly nested)."""
    return choice if isinstance(choice, str) else json.dumps(choice, sort_keys=True, default=str)


# Why the last lookup on this thread gave no answer (the engine's TUNER_LOGS=decisions line)
_why = threading.local()


def _because(reason: str):
    _why.reason = reason
    return None


def take_reason() -> str:
    """Why this thread's last lookup() returned None ("" if it answered or none ran); forgets it."""
    reason = getattr(_why, "reason", "")
    _why.reason = ""
    return reason


_default = Registry()


def default_registry() -> Registry:
    return _default


def has_module(namespace: str, device: DeviceInfo | None = None) -> bool:
    """Whether a shipped module could answer this point on this device (the current one by
    default): callers skip building a context for nothing. A config module that learned no
    confident leaf (its ANSWERS empty: a shortlist alone) cannot answer."""
    return any(getattr(m, "ANSWERS", True)
               for m in _default.matching(namespace, schema_of(namespace), device or current_device()))


def shortlist(namespace: str, device: DeviceInfo | None = None, features: dict | None = None) -> tuple:
    """The configs a shipped module names as worth measuring for this point where it is unsure
    (its SHORTLIST; tuner learn-configs), or () without one. With the kernel's features, also
    () where one of its sizes is larger than any the shortlist was chosen on (the module's
    SHORTLIST_RANGES): the shortlist is unsure there too (the kernel-config point passes them
    with TUNER_SHORTLIST_BEYOND=search)."""
    for mod in _default.matching(namespace, schema_of(namespace), device or current_device()):
        found = getattr(mod, "SHORTLIST", ())
        if found:
            if features is not None and beyond_shortlist(mod, features):
                return ()
            return tuple(found)
    return ()


def beyond_shortlist(mod, features: dict) -> list[str]:
    """The size features of `features` larger than any the module's shortlist was chosen on
    (its SHORTLIST_RANGES; none for a module without them)."""
    # (features as float32, as the learner saw them)
    return [name for name, (_, hi) in getattr(mod, "SHORTLIST_RANGES", {}).items()
            if as_float32(features.get(name) or 0) > hi]


def lookup(namespace: str, context, device: DeviceInfo | None = None):
    """A confident choice for this problem from a shipped heuristic, or None."""
    return _default.lookup(namespace, context, device)
