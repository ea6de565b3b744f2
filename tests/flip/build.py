"""Which build of flip the tests run on: the pure package, or flip compiled with mypyc.

``make test-compiled`` runs tests/flip with ``GAMENOOK_FLIP_COMPILED=1`` against the tree
scripts/compile_flip.py builds. The few tests that look inside the pure package (a module
function patched, the docstrings' examples) run on the pure package only: compiled calls
do not go through module attributes, and mypyc keeps no docstrings.
"""

import os

import pytest

COMPILED = os.environ.get("GAMENOOK_FLIP_COMPILED") == "1"

pure_only = pytest.mark.skipif(
    COMPILED, reason="looks inside the pure-Python package; the pure run checks it"
)
