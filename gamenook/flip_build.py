"""Which build of the rules engine this process runs: ``flip/``, or a compiled tree.

``GAMENOOK_FLIP_BUILD`` names a tree that ``make compile`` (scripts/compile_flip.py)
built, for example ``build/compiled``: a copy of ``flip/`` whose hot modules are C
extensions. Every process imports ``gamenook`` before anything imports ``flip``
(manage.py's settings, ``celery -A gamenook``, ``gamenook.wsgi``, ``gamenook.asgi``), so
putting the tree first on ``sys.path`` here switches the whole process. Unset, the
process runs ``flip/`` itself, the pure-Python reference. A tree that does not hold the
compiled engine stops the process at start, rather than run something other than
what was asked for.
"""

import os
import sys
from pathlib import Path

VARIABLE = "GAMENOOK_FLIP_BUILD"


class FlipBuildError(RuntimeError):
    """GAMENOOK_FLIP_BUILD names no compiled engine, or came too late."""


def use_configured_build() -> None:
    """Put the tree GAMENOOK_FLIP_BUILD names first on ``sys.path``; check what imports."""
    configured = os.environ.get(VARIABLE, "")
    if not configured:
        return
    tree = Path(configured).resolve()
    if "flip" in sys.modules:
        loaded = Path(sys.modules["flip"].__file__ or "").resolve()
        if tree in loaded.parents:
            return
        raise FlipBuildError(f"{VARIABLE}={configured}: flip was imported before gamenook")
    sys.path.insert(0, str(tree))
    import flip.engine  # noqa: PLC0415 (only now does the path say which flip)

    if not flip.engine.__file__.endswith(".so"):
        raise FlipBuildError(
            f"{VARIABLE}={configured} holds no compiled engine (flip.engine came from "
            f"{flip.engine.__file__}): build it with `make compile`"
        )
