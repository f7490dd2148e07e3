"""Cache keys: what identifies one autotuning decision, and the hashes that go into it.

A key covers everything that can change the answer: the kind of decision (namespace), the
problem (kernel source hash or problem signature), the candidate set (`configs_hash`) and the
software/hardware it was measured on (`backend_hash`), plus `SCHEMA_VERSION`, which is bumped
whenever the entry format changes so that old entries simply stop matching.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, Iterable

SCHEMA_VERSION = 1


def canonical_json(obj: Any) -> str:
    """One spelling per value: sorted keys, no spaces. Hashes and signatures are taken over it."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class CacheKey:
    namespace: str
    problem: str
    configs_hash: str
    backend: str

    def fields(self) -> dict[str, str]:
        return asdict(self)

    def digest(self) -> str:
        """The storage key: a hash of the schema version and every key field."""
        return sha256(canonical_json([SCHEMA_VERSION, self.namespace, self.problem,
                                      self.configs_hash, self.backend]))


def _jsonable(item: Any) -> Any:
    # Engine configs expose to_json(); everything else must already be JSON-able.
    to_json = getattr(item, "to_json", None)
    return to_json() if callable(to_json) else item


def configs_hash(candidates: Iterable[Any]) -> str:
    """Hash of a candidate set: the same candidates in any order (or repeated) hash the same."""
    spelled = sorted({canonical_json(_jsonable(c)) for c in candidates})
    return sha256(canonical_json(spelled))


@lru_cache(maxsize=1)
def backend_info() -> dict[str, str]:
    """Versions and device the answers were measured with (computed once per process)."""
    from importlib.metadata import PackageNotFoundError, version

    def dist_version(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "none"

    info = {"tuner": dist_version("tuner"), "torch": dist_version("torch"), "triton": dist_version("triton"),
            "cuda": "none", "device": "cpu"}
    try:
        import torch
        info["torch"] = torch.__version__
        info["cuda"] = str(torch.version.cuda or torch.version.hip or "none")
        if torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability()
            info["device"] = f"{torch.cuda.get_device_name()} sm_{major}{minor}"
    except Exception:  # no torch, or a broken CUDA driver: the answer is then "cpu"
        pass
    return info


def backend_hash(extra: dict | None = None) -> str:
    """Hash of `backend_info()` plus the caller's flags that change generated code."""
    return sha256(canonical_json({"env": backend_info(), "extra": extra or {}}))
