"""wildcards' docstring examples are tests; run here too until pyproject collects them."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import wildcards
import wildcards.bots


def test_doctests_of_wildcards_pass() -> None:
    examples = failed = 0
    for package in (wildcards, wildcards.bots):
        for module in pkgutil.iter_modules(package.__path__):
            if module.name == "__main__" or module.ispkg:
                continue
            loaded = importlib.import_module(f"{package.__name__}.{module.name}")
            result = doctest.testmod(loaded, optionflags=doctest.ELLIPSIS)
            examples += result.attempted
            failed += result.failed
    assert failed == 0
    assert examples >= 20
    for name in ("legal_actions", "playable_cards", "parse_request", "view", "timeout_action"):
        assert ">>>" in (getattr(wildcards, name).__doc__ or ""), name
