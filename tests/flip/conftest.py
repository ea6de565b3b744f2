"""The flip tests run twice in CI: on the pure package, and on flip compiled with mypyc.

``make test-compiled`` sets ``GAMENOOK_FLIP_COMPILED=1`` with the compiled tree first on
``PYTHONPATH`` (scripts/compile_flip.py). If the modules imported are not the compiled ones,
the run stops here rather than test the pure package a second time under the compiled name.
"""

import flip.engine
from tests.flip.build import COMPILED

if COMPILED and not flip.engine.__file__.endswith(".so"):
    raise RuntimeError(
        f"GAMENOOK_FLIP_COMPILED=1 but flip.engine came from {flip.engine.__file__}: "
        "run `make test-compiled`, which builds build/compiled and puts it first on PYTHONPATH"
    )
