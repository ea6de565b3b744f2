"""Easy: a uniformly random legal action, with a random colour."""

from __future__ import annotations

from flip.history import History

from .base import Bot, Levels, Request, View, request


class EasyBot(Bot):
    level = "easy"

    def choose(
        self,
        view: View,
        memory: View | None = None,  # noqa: ARG002 (Bot's signature: Easy reads the view alone)
        history: History | None = None,  # noqa: ARG002
        levels: Levels | None = None,  # noqa: ARG002
    ) -> Request:
        legal = view["legal_actions"]
        if not legal:
            raise ValueError("the view has no legal action: it is not this seat's turn")
        entry = self.rng.choice(legal)
        colors = entry.get("colors")
        color = self.rng.choice(colors) if colors else None
        return request(entry["type"], entry.get("card"), color)
