"""The classic engine's tests run twice in CI, like flip's: on the pure package, and on the
engine compiled with mypyc (``make test-compiled``, ``scripts/compile_flip.py``). If the
modules imported are not the compiled ones, the run stops here rather than test the pure
package a second time under the compiled name.
"""

import wildcards.engine
from tests.flip.build import COMPILED

if COMPILED and not wildcards.engine.__file__.endswith(".so"):
    raise RuntimeError(
        f"GAMENOOK_FLIP_COMPILED=1 but wildcards.engine came from {wildcards.engine.__file__}: "
        "run `make test-compiled`, which builds build/compiled and puts it first on PYTHONPATH"
    )
