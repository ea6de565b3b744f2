"""Normal: the play a good casual player would recognise.

Every legal play gets a score from a few rules of thumb and the best one is
played (the bot's generator only breaks near-ties):

- keep Wilds for when they matter: a plain Wild costs a lot unless the hand is
  nearly empty or an opponent is close to going out; a restricted Wild (Wild
  Draw 2, Wild Draw Color) is kept back unless the next player is the seat
  closest to going out;
- play high-value cards when an opponent is close to going out (two cards or
  fewer), so little is left to be scored;
- stay in the colour it holds most of, and choose that colour for a Wild;
- use Draw, Skip and Skip Everyone cards against the seat closest to going
  out, and keep them otherwise; turn a Reverse against whoever is closer to
  going out;
- flip when its hand on the other side looks better: the other faces of its
  own cards are estimated from the public pairing table (the average over the
  cards that carry each face), and an opponent about to go out must not get a
  Wild from the flip (their visible faces are what they will hold).

Against a table of Easy bots only (``levels``, public at every table) it
races instead (``RACE``, ``Race``): tempo over points, and a card the next
seat to act is unlikely to follow.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from flip.cards import (
    COLORS,
    DRAW_FIVE,
    DRAW_ONE,
    FACES,
    FLIP,
    NO_COLOR,
    REVERSE,
    SKIP,
    SKIP_EVERYONE,
    WILD_DRAW_COLOR,
    WILD_DRAW_TWO,
    Face,
)
from flip.engine import next_seat as next_seat_of
from flip.history import History
from flip.state import GameState
from tabletop.seats import next_in_game

from .base import (
    FACE_BY_CODE,
    OTHER_FACES,
    SIDE_BY_NAME,
    Bot,
    Levels,
    Request,
    View,
    best_color,
    check_levels,
    color_weights,
    direction_of,
    next_seat,
    only_choice,
    request,
)

ATTACKS = frozenset({DRAW_ONE, DRAW_FIVE, SKIP})
#: With two players these give the seat that plays them the next turn too.
AGAIN_TWO = frozenset({DRAW_ONE, DRAW_FIVE, SKIP, WILD_DRAW_TWO, WILD_DRAW_COLOR})


Weights = Mapping[str, float]

#: The weights of the rules of thumb (tuned by tournaments against Easy, and kept
#: where they are because Hard's rollouts and its prior play them).
W: Weights = MappingProxyType(
    {
        "points": 0.25,
        "points_danger": 1.0,
        "danger_count": 2,
        "restricted_threat": 35.0,
        "restricted_keep": -10.0,
        "wild_keep": -30.0,
        "same_color": 4.0,
        "attack_threat": 25.0,
        "attack_keep": -5.0,
        "skip_all": 8.0,
        "skip_all_danger": 25.0,
        "reverse_two": 10.0,
        "reverse_turn": 20.0,
        "reverse_keep": -20.0,
        "flip": 1.0,
        "flip_threat_wild": -40.0,
        "flip_threat_plain": 5.0,
        "bad_points": 0.3,
        "bad_wild": 25.0,
        "bad_color": 4.0,
        "finish": 100.0,
        "follow": 0.0,
        "color_keep": 0.0,
        "follow_last": 0.0,
        "follow_two": 0.0,
    }
)

#: Against a table of Easy bots only (``racing``): a race. Points left in a hand
#: cost nothing when the only question is who goes out first, and a random
#: player neither saves its attacks nor punishes ours, so every tempo card is
#: played when it can be and Wilds are kept for when nothing else follows.
RACE: Weights = MappingProxyType(
    {
        **W,
        "points": 0.0,
        "danger_count": 1,
        "restricted_keep": -20.0,
        "wild_keep": -60.0,
        "same_color": 5.0,
        "attack_threat": 40.0,
        "attack_keep": 3.0,
        "skip_all": 3.0,
        "flip_threat_plain": -5.0,
        "bad_points": 0.1,
        "follow": 20.0,
        "color_keep": 25.0,
        "follow_last": 100.0,
        "follow_two": 0.0,
    }
)


def hand_badness(faces: list[Face], w: Weights = W) -> float:
    """How hard a hand is to get rid of, and how much it would cost (lower is better)."""
    if not faces:
        return 0.0
    counts: dict[int, int] = {}
    points = wilds = 0
    for f in faces:
        points += f.points
        if f.color == NO_COLOR:
            wilds += 1
        else:
            counts[f.color] = counts.get(f.color, 0) + 1
    return (
        points * w["bad_points"]
        - wilds * w["bad_wild"]
        - w["bad_color"] * max(counts.values(), default=0)
    )


def expected_other_badness(faces: list[Face], w: Weights = W) -> float:
    """``hand_badness`` of the other faces, averaged per card over the pairing table."""
    if not faces:
        return 0.0
    points = wilds = 0.0
    counts: dict[int, float] = {}
    for f in faces:
        others = OTHER_FACES[f.code]
        share = 1.0 / len(others)
        for o in others:
            points += o.points * share
            if o.color == NO_COLOR:
                wilds += share
            else:
                counts[o.color] = counts.get(o.color, 0.0) + share
    return (
        points * w["bad_points"]
        - wilds * w["bad_wild"]
        - w["bad_color"] * max(counts.values(), default=0.0)
    )


class NormalBot(Bot):
    level = "normal"

    def choose(
        self,
        view: View,
        memory: View | None = None,  # noqa: ARG002 (Bot's signature: Normal reads the view alone)
        history: History | None = None,  # noqa: ARG002
        levels: Levels | None = None,
    ) -> Request:
        if levels is not None:
            check_levels(view, levels)
        one = only_choice(view)
        if one is not None:
            return one
        side = SIDE_BY_NAME[view["side"]]
        hand = [(e["card"], FACE_BY_CODE[e["face"]]) for e in view["hand"]]
        faces = [f for _, f in hand]
        legal = view["legal_actions"]
        first = legal[0]
        if first["type"] == "choose_color":
            return request("choose_color", color=best_color(first["colors"], faces, side, self.rng))
        ctx = Context(view)
        race = Race(view) if racing(view, levels) else None
        w = W if race is None else RACE
        best: tuple[float, Request] | None = None
        for entry in legal:
            if entry["type"] != "play":
                continue
            name = entry["card"]
            face = next(f for h, f in hand if h == name)
            rest = [f for h, f in hand if h != name]
            colors = entry.get("colors")
            if not colors:
                color = None
            elif race is None:
                color = best_color(colors, rest, side, self.rng)
            else:
                color = race.best_color(face, colors, rest, side, w, self.rng)
            score = play_score(face, rest, ctx, w) + self.rng.random() * 0.5
            if race is not None:
                score -= race.follow_cost(face, color, w)
            if best is None or score > best[0]:
                best = (score, request("play", name, color))
        if best is None:  # draw or pass offered next to nothing else (never happens)
            return request(first["type"])
        return best[1]


class Context:
    """What the rules of thumb need to know about the table."""

    __slots__ = (
        "danger",
        "min_opp",
        "next_count",
        "prev_count",
        "reverse_skips",
        "seats_left",
        "threat_faces",
    )

    danger: bool
    min_opp: int
    next_count: int
    prev_count: int
    reverse_skips: bool
    seats_left: int
    threat_faces: list[list[Face]]

    def __init__(self, view: View) -> None:
        me = view["seat"]
        players: list[dict[str, Any]] = view["players"]
        direction = direction_of(view)
        others = [p for p in players if p["seat"] != me and p["in_game"]]
        self.seats_left = len(others) + 1
        self.reverse_skips = bool(view["options"]["two_seat_reverse_skips"])
        self.min_opp = min((p["count"] for p in others), default=99)
        self.danger = self.min_opp <= 2
        nxt = next_seat(players, me, direction)
        prv = next_seat(players, me, -direction)
        self.next_count = players[nxt]["count"]
        self.prev_count = players[prv]["count"]
        # After a flip, the faces we see on a hand close to going out are what it holds.
        self.threat_faces = [
            [FACE_BY_CODE[code] for code in p.get("faces", [])] for p in others if p["count"] <= 2
        ]

    @classmethod
    def of_state(cls, s: GameState) -> Context:
        """The same context read from a whole state, for simulations that own one.

        Hard's rollouts play every seat as Normal would; they read only what
        the seat to act could see (hand sizes, the other hands' visible faces).
        """
        ctx = cls.__new__(cls)
        me = s.current
        hands = s.hands
        others = [i for i in range(s.seats) if i != me and s.active[i]]
        ctx.seats_left = len(others) + 1
        ctx.reverse_skips = s.options.two_seat_reverse_skips
        ctx.min_opp = min((len(hands[i]) for i in others), default=99)
        ctx.danger = ctx.min_opp <= 2
        ctx.next_count = len(hands[next_seat_of(s, me)])
        ctx.prev_count = len(hands[next_in_game(s.active, me, -s.direction)])
        visible = FACES[s.side ^ 1]
        ctx.threat_faces = [
            sorted((visible[c] for c in hands[i]), key=lambda f: (f.sort_key, f.code))
            for i in others
            if len(hands[i]) <= 2
        ]
        return ctx


class Race:
    """What a race reads from the view: how likely the next seat to act can follow a card.

    Each card of another hand shows its inactive face; its active face is one
    of the faces the pairing table puts behind that face, taken as equally
    likely (the view alone, as every rule of Normal reads it).
    """

    __slots__ = ("hands", "order", "reverse_skips")

    def __init__(self, view: View) -> None:
        me: int = view["seat"]
        players: list[dict[str, Any]] = view["players"]
        direction = direction_of(view)
        self.reverse_skips = bool(view["options"]["two_seat_reverse_skips"])
        # The other seats in the game, in the order they play after this one.
        self.order: list[int] = []
        seat = me
        for _ in range(len(players) - 1):
            seat = next_seat(players, seat, direction)
            if seat == me or seat in self.order:
                break
            self.order.append(seat)
        # Each of their cards: the faces that may be active behind the face the view shows.
        self.hands: dict[int, list[tuple[Face, ...]]] = {
            seat: [OTHER_FACES[code] for code in players[seat]["faces"]] for seat in self.order
        }

    def after(self, face: Face) -> int | None:
        """The seat that acts after ``face`` is played, None for this seat itself."""
        order = self.order
        if not order:
            return None
        kind = face.kind
        if kind == SKIP_EVERYONE:
            return None
        if kind in ATTACKS or kind in (WILD_DRAW_TWO, WILD_DRAW_COLOR):
            return order[1] if len(order) > 1 else None
        if kind == REVERSE:
            if len(order) == 1:
                return None if self.reverse_skips else order[0]
            return order[-1]
        return order[0]

    def follow_cost(self, face: Face, color: str | None, w: Weights) -> float:
        """What letting the seat that acts after ``face`` follow it costs, times the chance it can.

        A seat on one or two cards that follows is about to go out, so its
        chance weighs more (``follow_last``, ``follow_two``). A Flip turns the
        table over and is left to ``flip_value`` (0 here: the same chance read
        on the other side measured no better).
        """
        if face.kind == FLIP:
            return 0.0
        seat = self.after(face)
        if seat is None:
            return 0.0
        in_play = face.color if color is None else COLORS.index(color)
        key = face.match_key if face.color != NO_COLOR else None
        hand = self.hands[seat]
        stuck = 1.0
        for behind in hand:
            can = sum(1 for f in behind if f.color in (NO_COLOR, in_play) or f.match_key == key)
            stuck *= 1.0 - can / len(behind)
        weight = w["follow"]
        if len(hand) == 1:
            weight += w["follow_last"]
        elif len(hand) == 2:
            weight += w["follow_two"]
        return weight * (1.0 - stuck)

    def best_color(
        self,
        face: Face,
        names: list[str],
        rest: list[Face],
        side: int,
        w: Weights,
        rng: random.Random,
    ) -> str:
        """The colour for a Wild: what the hand keeps most of, and the next seat follows least."""
        counts = color_weights(rest, side)

        def value(name: str) -> tuple[float, float]:
            keep = w["color_keep"] * counts.get(COLORS.index(name), 0.0)
            return keep - self.follow_cost(face, name, w), rng.random()

        return max(names, key=value)


def racing(view: View, levels: Levels | None) -> bool:
    """True when every other seat still in the game is shown as an Easy bot.

    ``levels`` is public (the table shows every seat's bot level), so a person
    in the seat would know it too. Never true in Hard's rollouts: Hard is in
    the game whenever it searches, and it is not Easy.
    """
    if levels is None:
        return False
    me = view["seat"]
    return all(
        levels[p["seat"]] == "easy" for p in view["players"] if p["in_game"] and p["seat"] != me
    )


def plays_again(face: Face, ctx: Context) -> bool:
    """True when the seat that plays ``face`` has the next turn too."""
    if face.kind == SKIP_EVERYONE:
        return True
    if ctx.seats_left != 2:
        return False
    if face.kind == REVERSE:
        return ctx.reverse_skips
    return face.kind in AGAIN_TWO


def finishes(face: Face, rest: list[Face], ctx: Context) -> bool:
    """True when playing ``face`` lets the seat play out ``rest`` without a turn lost.

    A card that gives the seat the next turn again (Skip Everyone; with two
    players also the Skips, Reverses and penalties) followed by cards that
    can each be played on the one before, the last one emptying the hand.
    """
    if not rest:
        return True
    if not plays_again(face, ctx):
        return False
    for i, card in enumerate(rest):
        others = rest[:i] + rest[i + 1 :]
        follows = (
            NO_COLOR in (card.color, face.color)
            or card.color == face.color
            or card.match_key == face.match_key
        )
        if card.restricted and any(f.color == face.color for f in others):
            follows = False
        if follows and finishes(card, others, ctx):
            return True
    return False


def play_score(face: Face, rest: list[Face], ctx: Context, w: Weights = W) -> float:
    """How much Normal likes playing ``face`` and keeping ``rest``, by the weights ``w``."""
    danger = ctx.min_opp <= w["danger_count"]
    score = face.points * (w["points_danger"] if danger else w["points"])
    if rest and len(rest) <= 2 and finishes(face, rest, ctx):
        score += w["finish"]
    next_is_threat = ctx.next_count == ctx.min_opp and ctx.next_count <= 4
    if face.color == NO_COLOR:
        if face.restricted:
            score += w["restricted_threat"] if next_is_threat else w["restricted_keep"]
        elif len(rest) > 1 and not danger:
            score += w["wild_keep"]
        return score
    same = sum(1 for f in rest if f.color == face.color)
    score += w["same_color"] * same
    kind = face.kind
    if kind in ATTACKS:
        score += w["attack_threat"] if next_is_threat else w["attack_keep"]
    elif kind == SKIP_EVERYONE:
        score += w["skip_all_danger"] if danger else w["skip_all"]
    elif kind == REVERSE:
        if ctx.seats_left == 2:
            score += w["reverse_two"]
        elif ctx.next_count <= 3 and ctx.prev_count > ctx.next_count:
            score += w["reverse_turn"]
        elif ctx.prev_count <= 2 and ctx.prev_count < ctx.next_count:
            score += w["reverse_keep"]
    elif kind == FLIP:
        score += w["flip"] * flip_value(rest, ctx, w)
    return score


def flip_value(rest: list[Face], ctx: Context, w: Weights = W) -> float:
    """Positive when the hand looks better on the other side."""
    value = hand_badness(rest, w) - expected_other_badness(rest, w)
    for faces in ctx.threat_faces:
        if any(f.color == NO_COLOR for f in faces):
            value += w["flip_threat_wild"]
        elif faces:
            value += w["flip_threat_plain"]
    return value


__all__ = [
    "RACE",
    "W",
    "Context",
    "NormalBot",
    "Race",
    "expected_other_badness",
    "hand_badness",
    "play_score",
    "racing",
]
