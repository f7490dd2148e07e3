"""Rebuild the generated tables of docs/PERFORMANCE.md from the JSON documents under
bench/results/.

A generated table sits between two markers in the document,

    <!-- BEGIN generated: optimizer bench/results/optimizer/optimizer_20261123-161000_foreach_graphs.json -->
    ...
    <!-- END generated: optimizer -->

naming the renderer and the JSON file(s) it reads (space-separated, relative to the
repository root); everything else in the document is prose and stays as written. Renderers:
optimizer (scripts/bench_optimizer.py documents), mm (scripts/bench_mm.py documents). Each
table ends with a line naming the source file, its GPU, versions, date and command.

    python3 scripts/perf_doc.py            # rewrite the tables in docs/PERFORMANCE.md
    python3 scripts/perf_doc.py --check    # exit 1 if a table differs from its JSON
    python3 scripts/perf_doc.py --doc other.md
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"<!-- BEGIN generated: (\w+)((?: \S+)*) -->\n.*?<!-- END generated: \1 -->",
                   re.S)


def _num(v, fmt):
    return "-" if v is None else format(v, fmt)


def _source_line(path: str, doc: dict) -> str:
    return (f"Source: `{path}` ({doc.get('gpu', '?')}, torch {doc.get('torch', '?')}, Triton "
            f"{doc.get('triton', '?')}, {doc.get('date', '?')}; `{doc.get('command', '?')}`).")


def _tables(paths: list[str], docs: list[dict], case_name, cell) -> str:
    """One table per document: a row per case (`case_name(case)`), a column per variant in
    first-seen order, `cell(row)` for a measured variant, "error" or "-" otherwise, then the
    document's source line."""
    out = []
    for path, doc in zip(paths, docs):
        variants = list(dict.fromkeys(r["variant"] for c in doc["cases"] for r in c["variants"]))
        out.append("| case | " + " | ".join(variants) + " |")
        out.append("| --- |" + " --- |" * len(variants))
        for c in doc["cases"]:
            by = {r["variant"]: r for r in c["variants"]}
            cells = ["-" if v not in by else ("error" if "ms" not in by[v] else cell(by[v]))
                     for v in variants]
            out.append(f"| {case_name(c)} | " + " | ".join(cells) + " |")
        out += ["", _source_line(path, doc), ""]
    return "\n".join(out).rstrip()


def render_optimizer(paths: list[str], docs: list[dict]) -> str:
    """ms per step per variant (kernels per step, first step s, % of copy bandwidth)."""
    def cell(r):
        extra = [f"{r['kernels_per_step']} kernels" if r.get("kernels_per_step") else None,
                 f"first {r['first_step_s']:.1f} s" if (r.get("first_step_s") or 0) >= 0.5 else None,
                 f"{r['pct_copy']:.0f}% of copy" if r.get("pct_copy") else None]
        extra = [e for e in extra if e]
        return f"{r['ms']:.3f}" + (f" ({', '.join(extra)})" if extra else "")
    return _tables(paths, docs, lambda c: f"{c['params']} {c['dtype']} {c['optimizer']} "
                   f"({c['tensors']} tensors)", cell)


def render_mm(paths: list[str], docs: list[dict]) -> str:
    """ms and TF/s per case and variant."""
    return _tables(paths, docs, lambda c: c.get("description", c["case"]),
                   lambda r: f"{r['ms']:.4f} ms, {_num(r.get('tflops'), '.0f')} TF/s")


RENDERERS = {"optimizer": render_optimizer, "mm": render_mm}


def rebuild(text: str, root: Path = ROOT) -> str:
    begins = re.findall(r"<!-- BEGIN generated: (\w+)", text)
    ends = re.findall(r"<!-- END generated: (\w+) -->", text)
    if len(begins) != len(ends) or len(BLOCK.findall(text)) != len(begins):
        raise SystemExit(f"perf_doc: unmatched generated markers (BEGIN {begins}, END {ends}); "
                         "every BEGIN needs its END with the same name, in order")

    def block(m):
        name, files = m.group(1), m.group(2).split()
        if name not in RENDERERS:
            raise SystemExit(f"perf_doc: unknown table {name!r}; expected one of {', '.join(RENDERERS)}")
        if not files:
            raise SystemExit(f"perf_doc: table {name!r} names no JSON file")
        docs = []
        for f in files:
            p = root / f
            try:
                docs.append(json.loads(p.read_text()))
            except (OSError, ValueError) as e:
                raise SystemExit(f"perf_doc: table {name!r}: cannot read {f}: {e}")
        head = f"<!-- BEGIN generated: {name}{m.group(2)} -->"
        return f"{head}\n{RENDERERS[name](files, docs)}\n<!-- END generated: {name} -->"
    return BLOCK.sub(block, text)


def main(argv=None) -> int:
    desc, _, ex = __doc__.rpartition("\n\n")
    p = argparse.ArgumentParser(description=desc, epilog="examples:\n" + ex,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--doc", default=str(ROOT / "docs" / "PERFORMANCE.md"), help="the document to rebuild")
    p.add_argument("--check", action="store_true", help="exit 1 if a generated table is stale; write nothing")
    a = p.parse_args(argv)
    path = Path(a.doc)
    try:
        text = path.read_text()
    except OSError as e:
        p.error(f"cannot read {path}: {e}")
    new = rebuild(text)
    if a.check:
        if new != text:
            print(f"perf_doc: {path} is stale; run python3 scripts/perf_doc.py", file=sys.stderr)
            return 1
        print(f"perf_doc: {path} is up to date")
        return 0
    if new != text:
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(new)
        tmp.replace(path)
        print(f"perf_doc: rewrote {len(BLOCK.findall(text))} table(s) in {path}")
    else:
        print(f"perf_doc: {path} already up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
