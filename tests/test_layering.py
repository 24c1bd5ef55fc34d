"""The package's layering: the import-linter layers of pyproject.toml hold and cover every module, no import
cycles at module level, nothing inside imports the public face, and the query core stays UI-free.

The layers contract (``[tool.importlinter]``) counts every import, in functions and under
``if TYPE_CHECKING:`` too. The cycle checks read the import graph from the source with
`ast` (not by importing), so a cycle is found even where Python happens to tolerate it
today because of the import order; there, imports under ``if TYPE_CHECKING:`` are left out.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
PACKAGE_ROOT = PROJECT_ROOT / "ipu_nb"
PACKAGE = "ipu_nb"


def _module_names(root: Path = PACKAGE_ROOT, package: str = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    names: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join([package, *parts])] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module, *, lazy: bool) -> list[ast.Import | ast.ImportFrom]:
    """Import statements run when the module is imported (and, if ``lazy``, those in its functions).

    Imports under ``if TYPE_CHECKING:`` are never run and never counted.
    """
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append(node)
            elif isinstance(node, ast.If):
                if not _is_type_checking(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, (ast.With, ast.ClassDef, ast.For, ast.While)) or (
                lazy and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            ):
                visit(node.body)

    visit(tree.body)
    return found


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(root: Path = PACKAGE_ROOT, package: str = PACKAGE, *, lazy: bool = False) -> dict[str, set[str]]:
    """Module -> the package's modules it imports at module level (and, if ``lazy``, in its functions).

    Importing ``a.b.c`` also runs ``a/__init__`` and ``a/b/__init__``, so those count as
    imported too, except the importer's own parent packages (being inside a package is
    not an import of it). ``from a import b`` imports the module ``a.b`` when there is
    one, else the name ``b`` from ``a``.
    """
    modules = _module_names(root, package)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text(), str(path)), lazy=lazy):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            else:
                source = _resolve(name, is_package, node)
                for alias in node.names:
                    submodule = f"{source}.{alias.name}"
                    targets.add(submodule if submodule in modules else source)
        own = set(_ancestors(name))
        edges: set[str] = set()
        for target in targets:
            if target not in modules:
                continue
            edges.add(target)
            edges.update(a for a in _ancestors(target) if a not in own and a in modules)
        edges.discard(name)
        graph[name] = edges
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module, each as one cycle through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def strongconnect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                strongconnect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            strongconnect(node)
    return [_cycle_in(graph, group) for group in groups]


def _cycle_in(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """One concrete cycle through the first module of a strongly connected group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for nxt in sorted(graph[node] & group):
                if nxt == start:
                    return [*paths[node], start]
                if nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle through {start} in {sorted(group)}")


def test_the_package_has_no_import_cycle() -> None:
    cycles = find_cycles(import_graph())
    assert not cycles, "module-level import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_lazy_imports_keep_the_layers_too() -> None:
    # A function-level import is fine for start-up time, but a cycle through one still ties
    # two layers together (charts -> report -> charts was one): keep the layers a hierarchy.
    cycles = find_cycles(import_graph(lazy=True))
    assert not cycles, "import cycles through lazy imports:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_graph_sees_what_python_imports() -> None:
    # The checker itself: known edges of the real package are found, lazy and
    # type-checking-only ones are not.
    graph = import_graph()
    assert "ipu_nb._query.flags" in graph["ipu_nb._query"]
    assert "ipu_nb._model.profile" in graph["ipu_nb._load"]
    assert graph["ipu_nb"] == {"ipu_nb._version"}, "ipu_nb/__init__ imports its exports lazily"


def test_cycle_finder_reports_a_planted_cycle(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text("from .sub import b\n")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "b.py").write_text("from ..c import thing\n")
    (root / "c.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from . import d\n"
        "def lazy():\n    from . import d\n"
        "from . import a\nthing = 1\n"
    )
    (root / "d.py").write_text("from . import c\n")
    graph = import_graph(root, "pkg")
    assert graph["pkg.d"] == {"pkg.c"}
    assert "pkg.d" not in graph["pkg.c"], "lazy and TYPE_CHECKING imports are not edges"
    assert "pkg.d" in import_graph(root, "pkg", lazy=True)["pkg.c"], "the lazy one is, when asked for"
    assert graph["pkg.a"] == {"pkg.sub", "pkg.sub.b"}, "importing pkg.sub.b runs pkg/sub/__init__ too"
    assert graph["pkg.sub.b"] == {"pkg.c"}, "its own package is not an import of pkg.sub.b"
    assert find_cycles(graph) == [["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]]


# --------------------------------------------------------------------------- the layers contract


def _lint_imports(cwd: Path, config: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """import-linter's ``lint-imports`` on `config`, run from `cwd` (its exit status 0: every contract kept)."""
    code = (
        "import sys; from importlinter.cli import lint_imports; "
        f"sys.exit(lint_imports(config_filename={str(config)!r}, no_cache=True, no_logo=True))"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _contract() -> dict[str, Any]:
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    config = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert config["root_package"] == PACKAGE
    (contract,) = config["contracts"]
    return dict(contract)


def _layer_names(contract: dict[str, Any]) -> list[str]:
    """Every module the contract's layers name, in order (``a | b`` and ``a : b`` name two)."""
    return [name.strip() for layer in contract["layers"] for name in re.split(r"[|:]", layer)]


def test_the_layers_contract_holds() -> None:
    pytest.importorskip("importlinter")
    done = _lint_imports(PROJECT_ROOT, PROJECT_ROOT / "pyproject.toml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout


def test_the_contract_names_every_module_of_the_package_once() -> None:
    # A new subpackage or top-level module must get a layer: exhaustive makes import-linter
    # refuse an unlisted one, and the list is exactly what is on disk (no stale names).
    contract = _contract()
    assert (contract["type"], contract["containers"], contract["exhaustive"]) == ("layers", [PACKAGE], True)
    assert not contract.get("ignore_imports"), "no import is exempt from the layers"
    names = _layer_names(contract)
    on_disk = {p.stem for p in PACKAGE_ROOT.glob("*.py") if p.name != "__init__.py"}
    on_disk |= {p.parent.name for p in PACKAGE_ROOT.glob("*/__init__.py")}
    assert sorted(names) == sorted(on_disk)
    assert len(names) == len(set(names))


def test_nothing_inside_imports_the_public_face() -> None:
    # ipu_nb/__init__.py imports any layer (lazily, by importlib): reaching it from inside
    # would hide an upward import from the contract, so no module does, not even in a function.
    graph = import_graph(lazy=True)
    assert [name for name, edges in graph.items() if PACKAGE in edges] == []


def test_no_module_imports_by_name_at_run_time() -> None:
    # importlib with a computed name is invisible to the contract: only the public face
    # (its lazy exports) and the CLI (its own subcommand modules, f".{name}") use it.
    found = sorted(
        str(path.relative_to(PROJECT_ROOT))
        for path in PACKAGE_ROOT.rglob("*.py")
        if re.search(r"\bimport_module\(|__import__\(", path.read_text(encoding="utf-8"))
    )
    assert found == ["ipu_nb/__init__.py", "ipu_nb/_cli/__init__.py"]
    cli = (PACKAGE_ROOT / "_cli" / "__init__.py").read_text(encoding="utf-8")
    assert re.findall(r"import_module\(([^)]*)\)", cli) == ['f".{name}", __name__']


@pytest.mark.parametrize(
    ("low", "extra", "broken"),
    [
        ("def f() -> None:\n    from . import high\n", "", "pkg.low -> pkg.high"),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import high\n", "", "pkg.low -> pkg.high"),
        ("", "stray", "pkg.stray"),
    ],
    ids=["lazy import", "type-checking import", "unlisted module"],
)
def test_the_contract_catches_what_it_must(tmp_path: Path, low: str, extra: str, broken: str) -> None:
    # The checker itself, on a planted package shaped like ours: an upward import inside a
    # function or under TYPE_CHECKING breaks the layers, and so does a module in no layer.
    pytest.importorskip("importlinter")
    package = tmp_path / "pkg"
    package.mkdir()
    for name, text in {"__init__": "", "high": "from . import low\n", "low": low}.items():
        (package / f"{name}.py").write_text(text)
    if extra:
        (package / f"{extra}.py").write_text("")
    config = tmp_path / "pyproject.toml"
    config.write_text(
        '[tool.importlinter]\nroot_package = "pkg"\n\n[[tool.importlinter.contracts]]\nid = "layers"\n'
        'name = "pkg layers"\ntype = "layers"\ncontainers = ["pkg"]\nexhaustive = true\nlayers = ["high", "low"]\n'
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = _lint_imports(tmp_path, config, env)
    assert done.returncode != 0, done.stdout
    assert broken in done.stdout + done.stderr


# --------------------------------------------------------------------------- the query core


def test_the_query_core_imports_no_ui(tmp_path: Path) -> None:
    pytest.importorskip("anywidget")  # the assertion means something only where the UI is installed
    from ipu_nb import demo_profile_path

    path = demo_profile_path("small", directory=tmp_path, progress=False)
    code = textwrap.dedent(
        f"""
        import sys
        import ipu_nb
        from ipu_nb._query import make_query
        profile = ipu_nb.open_profile({str(path)!r}, progress=False)
        for q in (make_query(group_by="tile", limit=3), make_query(kind="compute", samples=2)):
            result = ipu_nb.query(profile, q)  # the public entry point, a lazy attribute
            assert result.to_text().strip() and result.to_json().strip()
        profile.filter(make_query(tiles=[0, 1]))
        ui = sorted(m for m in ("anywidget", "IPython", "altair", "traitlets", "ipywidgets") if m in sys.modules)
        print("UI:" + ",".join(ui))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "UI:", done.stdout
