"""The package boundaries of PRODUCT.md that import-linter cannot express alone.

import-linter (``make lint``) checks the layering and the forbidden imports
between our packages and named third-party ones; this checks the rest of
"flip imports the standard library only": every import in flip, whatever it is.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_flip_imports_the_standard_library_and_itself_only() -> None:
    allowed = set(sys.stdlib_module_names) | {"flip", "__future__"}
    found = {
        str(path.relative_to(ROOT)): sorted(_imported_roots(path) - allowed)
        for path in sorted((ROOT / "flip").rglob("*.py"))
    }
    assert found, "no module of flip was read"
    assert {name: roots for name, roots in found.items() if roots} == {}


def test_the_check_sees_a_third_party_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import os\nfrom django.db import models\nfrom . import sibling\n")
    assert _imported_roots(module) - set(sys.stdlib_module_names) == {"django"}
