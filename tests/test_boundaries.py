"""The package boundaries of PRODUCT.md that import-linter cannot express alone.

import-linter (``make lint``) checks the layering and the forbidden imports
between our packages and named third-party ones; this checks the rest:

- "the rules import the standard library only": every import in ``tabletop``,
  whatever it is, is of the standard library; ``flip`` may import the
  standard library, itself and ``tabletop``;
- no import cycle inside ``flip`` and ``tabletop``, counting every import a
  module holds (inside functions and under ``TYPE_CHECKING`` too): a cycle
  dodged with an import at call time is still a cycle.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The pure packages whose import graphs must stay acyclic.
PURE = ("flip", "wildcards", "tabletop")


def _imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def _foreign_imports(package: str, allowed: set[str]) -> dict[str, list[str]]:
    found = {
        str(path.relative_to(ROOT)): sorted(_imported_roots(path) - allowed)
        for path in sorted((ROOT / package).rglob("*.py"))
    }
    assert found, f"no module of {package} was read"
    return {name: roots for name, roots in found.items() if roots}


def test_flip_imports_the_standard_library_itself_and_tabletop_only() -> None:
    allowed = set(sys.stdlib_module_names) | {"flip", "tabletop", "__future__"}
    assert _foreign_imports("flip", allowed) == {}


def test_wildcards_imports_the_standard_library_itself_and_tabletop_only() -> None:
    allowed = set(sys.stdlib_module_names) | {"wildcards", "tabletop", "__future__"}
    assert _foreign_imports("wildcards", allowed) == {}


def test_tabletop_imports_the_standard_library_only() -> None:
    # Not even a game: what two games share must not depend on either of them.
    assert _foreign_imports("tabletop", set(sys.stdlib_module_names) | {"__future__"}) == {}


def test_the_check_sees_a_third_party_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import os\nfrom django.db import models\nfrom . import sibling\n")
    assert _imported_roots(module) - set(sys.stdlib_module_names) == {"django"}


# ----------------------------------------------------------------------------
# Import cycles


def _modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of ``packages`` under ``root`` by dotted name (a package by its own name)."""
    out: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def import_graph(root: Path, packages: Iterable[str] = PURE) -> dict[str, set[str]]:
    """Module -> the modules of ``packages`` it imports, from every import statement
    anywhere in it (module level, functions, ``if TYPE_CHECKING:``).

    ``from .x import y`` is an import of the module ``x.y`` when there is one,
    else of ``x``. A submodule's import is not counted as one of its parent
    packages: ``flip/__init__.py`` imports every module to re-export it, and
    counting it would make every ``from flip.cards import ...`` a cycle.
    """
    modules = _modules(root, packages)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base_parts = package.split(".")
                    base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                    if node.module:
                        base_parts.append(node.module)
                    base = ".".join(base_parts)
                else:
                    base = node.module or ""
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.add(sub if sub in modules else base)
        graph[name] = {target for target in targets if target in modules and target != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as the modules along it (first one repeated at the end), or None."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(node: str) -> list[str] | None:
        path.append(node)
        on_path.add(node)
        for target in sorted(graph[node]):
            if target in on_path:
                return [*path[path.index(target) :], target]
            if target not in done:
                cycle = visit(target)
                if cycle is not None:
                    return cycle
        path.pop()
        on_path.discard(node)
        done.add(node)
        return None

    for start in sorted(graph):
        if start not in done:
            cycle = visit(start)
            if cycle is not None:
                return cycle
    return None


def test_the_games_and_tabletop_have_no_import_cycle() -> None:
    graph = import_graph(ROOT)
    assert {"flip.engine", "flip.state", "flip.bots.hard", "tabletop.record"} <= set(graph)
    assert {"wildcards.engine", "wildcards.views", "wildcards.bots.hard"} <= set(graph)
    assert "tabletop.shuffle" in graph["flip.engine"], "flip's imports of tabletop were not seen"
    assert find_cycle(graph) is None


@pytest.mark.parametrize(
    ("files", "cycle"),
    [
        (
            {"a": "from . import b", "b": "from .c import f", "c": "import pkg.a"},
            ["a", "b", "c", "a"],
        ),
        # Hidden in a function, or only for the type checker: a cycle all the same.
        ({"a": "def f():\n    from .b import g", "b": "from pkg import a"}, ["a", "b", "a"]),
        (
            {"a": "if TYPE_CHECKING:\n    from .b import B", "b": "from .a import A"},
            ["a", "b", "a"],
        ),
        # From a package's __init__ to one of its modules and back.
        ({"__init__": "from .a import x", "a": "from . import y"}, ["", "a", ""]),
        ({"a": "from . import b", "b": "import os", "c": "from .a import b"}, None),
    ],
)
def test_the_cycle_check_sees_a_cycle(
    tmp_path: Path, files: dict[str, str], cycle: list[str] | None
) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").touch()
    for name, source in files.items():
        (package / f"{name}.py").write_text(source + "\n")
    expected = None if cycle is None else [f"pkg.{name}".rstrip(".") for name in cycle]
    assert find_cycle(import_graph(tmp_path, ["pkg"])) == expected
