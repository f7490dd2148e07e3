"""The five top-level packages depend on each other in one direction only.

Every module's imports are read with `ast` (module level and inside functions, relative
imports resolved), mapped to the package that owns them, and checked against `MAY_IMPORT`:

    cache        knows nothing of the others (its configuration is installed from above)
    heuristics   runtime interface, feature contexts, dataset format, training: standalone
    tuner        the engine and its points ask heuristics, then the cache
    compiler     asks the tuner (never the cache directly)
    datagen      problem generators run the tuner's points (the mm point through the
                 compiler's own runners) and write heuristics' datasets: nothing imports it

Names a module loads by string (the CLI's lazy subcommands, rendered heuristic source) are
not imports and are not counted; neither are imports under `if TYPE_CHECKING:` (never run).

Inside compiler/ the modules import each other without cycles too, and so do its subpackages
taken whole (lowerings/, codegen/, runtime/, each beside the top-level modules): a lowering
never imports the graph lowering or compile_graph (a measurement that compiles graphs runs
after lowering, in compile_graph), shared FX op sets live below both (compiler/fx_ops.py).
An import of `a.b.c` is counted as one of that module, not of the packages above it.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# folder -> import name, as setup.py maps them
FOLDERS = {"tuner": "tuner", "cache": "tuner.cache", "compiler": "tuner.compiler",
           "heuristics": "tuner.heuristics", "datagen": "tuner.datagen"}
PACKAGES = {name: folder for folder, name in FOLDERS.items()}
MAY_IMPORT = {
    "cache": set(),
    "heuristics": set(),
    "tuner": {"cache", "heuristics"},
    "compiler": {"tuner", "heuristics"},
    "datagen": {"tuner", "heuristics", "compiler"},
}


def modules() -> dict[str, tuple[str, Path]]:
    """import name -> (top-level folder, file) for every module of the five packages."""
    found = {}
    for folder, name in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([name, *parts])] = (folder, path)
    return found


def owner(module: str) -> str | None:
    """The top-level folder that owns an import name; None outside the project."""
    if module != "tuner" and not module.startswith("tuner."):
        return None
    best = "tuner"
    for name in PACKAGES:
        if (module == name or module.startswith(name + ".")) and len(name) > len(best):
            best = name
    return PACKAGES[best]


def imported_names(name: str, path: Path, known: set[str]) -> set[str]:
    """Every module `name` imports, anywhere in its body."""
    is_package = path.name == "__init__.py"
    out = set()
    tree = ast.parse(path.read_text(), str(path))
    typing_only = {id(n) for guard in ast.walk(tree) if _is_type_checking(guard)
                   for stmt in guard.body for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.add(sub if sub in known else base)   # `from pkg import submodule`
    return out


def _is_type_checking(node) -> bool:
    """`if TYPE_CHECKING:` or `if typing.TYPE_CHECKING:`."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def module_edges(folder: str, mods=None) -> dict[tuple[str, str], list[str]]:
    """(importer, imported) module pairs inside one top-level folder, every import counted (a
    `from pkg import name` of a non-module name is an import of pkg)."""
    mods = modules() if mods is None else mods
    edges: dict[tuple[str, str], list[str]] = {}
    for name, (where, path) in mods.items():
        if where != folder:
            continue
        for target in imported_names(name, path, set(mods)):
            while target and target not in mods:   # a name inside a module: that module
                target = target.rpartition(".")[0]
            if target and target != name and mods[target][0] == folder:
                edges.setdefault((name, target), []).append(f"{name} -> {target}")
    return edges


def subpackage_edges(folder: str, mods=None) -> dict[tuple[str, str], list[str]]:
    """module_edges with each subpackage of the folder's package taken as one node (its
    modules and its __init__), the folder's top-level modules each their own."""
    mods = modules() if mods is None else mods
    root = FOLDERS[folder]

    def node(name):
        rest = name[len(root) + 1:].split(".") if name != root else []
        top = f"{root}.{rest[0]}" if rest else root
        return top if top in mods and mods[top][1].name == "__init__.py" else name
    edges: dict[tuple[str, str], list[str]] = {}
    for (a, b), why in module_edges(folder, mods).items():
        if node(a) != node(b):
            edges.setdefault((node(a), node(b)), []).extend(why)
    return edges


def package_edges() -> dict[tuple[str, str], list[str]]:
    """(importer, imported) package -> the module-level imports that make the edge."""
    mods = modules()
    edges: dict[tuple[str, str], list[str]] = {}
    for name, (folder, path) in mods.items():
        for target in imported_names(name, path, set(mods)):
            dest = owner(target)
            if dest is not None and dest != folder:
                edges.setdefault((folder, dest), []).append(f"{name} -> {target}")
    return edges


def find_cycle(edges) -> list[str] | None:
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    state: dict[str, int] = {}   # 1: on the stack, 2: done

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt] if nxt in stack else [node, nxt]
            if nxt not in state:
                found = visit(nxt, stack + [nxt])
                if found:
                    return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return None


def test_the_checker_sees_imports_inside_functions_and_relative_ones(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .a import x\n")
    (pkg / "a.py").write_text("def f():\n    from ..other import y\n    import tuner.cache\n")
    known = {"tuner.pkg", "tuner.pkg.a"}
    assert imported_names("tuner.pkg", pkg / "__init__.py", known) == {"tuner.pkg.a"}
    assert imported_names("tuner.pkg.a", pkg / "a.py", known) == {"tuner.other", "tuner.cache"}
    assert owner("tuner.cache.keys") == "cache" and owner("tuner.settings") == "tuner"
    assert owner("tuner") == "tuner" and owner("torch") is None
    assert find_cycle({("a", "b"): [], ("b", "c"): [], ("c", "a"): []}) == ["a", "b", "c", "a"]


def test_the_module_checker_resolves_names_and_leaves_type_checking_out(tmp_path):
    pkg = tmp_path / "compiler"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import helper\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from .a import x\ndef f():\n    from .sub import c\n")
    (pkg / "sub" / "__init__.py").write_text("from . import c\n")
    (pkg / "sub" / "c.py").write_text("from ..a import y\n")
    mods = {"tuner.compiler": ("compiler", pkg / "__init__.py"), "tuner.compiler.a": ("compiler", pkg / "a.py"),
            "tuner.compiler.b": ("compiler", pkg / "b.py"),
            "tuner.compiler.sub": ("compiler", pkg / "sub" / "__init__.py"),
            "tuner.compiler.sub.c": ("compiler", pkg / "sub" / "c.py")}
    edges = set(module_edges("compiler", mods))
    assert edges == {("tuner.compiler.a", "tuner.compiler.b"), ("tuner.compiler.b", "tuner.compiler.sub.c"),
                     ("tuner.compiler.sub", "tuner.compiler.sub.c"),
                     ("tuner.compiler.sub.c", "tuner.compiler.a")}
    assert find_cycle(edges) is not None   # a -> b -> sub.c -> a
    assert set(subpackage_edges("compiler", mods)) == {
        ("tuner.compiler.a", "tuner.compiler.b"), ("tuner.compiler.b", "tuner.compiler.sub"),
        ("tuner.compiler.sub", "tuner.compiler.a")}


def test_compiler_modules_import_each_other_without_cycles():
    cycle = find_cycle(module_edges("compiler"))
    assert cycle is None, "import cycle between compiler modules: " + " -> ".join(cycle)


def test_compiler_subpackages_import_each_other_without_cycles():
    cycle = find_cycle(subpackage_edges("compiler"))
    assert cycle is None, "import cycle between compiler subpackages: " + " -> ".join(cycle)


def test_packages_import_each_other_without_cycles():
    cycle = find_cycle(package_edges())
    assert cycle is None, "import cycle between packages: " + " -> ".join(cycle)


def test_packages_import_only_the_layers_below_them():
    bad = {edge: why for edge, why in package_edges().items() if edge[1] not in MAY_IMPORT[edge[0]]}
    assert not bad, "imports against the declared order:\n" + "\n".join(
        f"  {a} -> {b}: {', '.join(sorted(set(why)))}" for (a, b), why in sorted(bad.items()))
