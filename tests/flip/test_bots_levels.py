"""Bots read who plays each seat as the table shows it.

Which seats are bots, and of which level, is public (the API serves every
seat's ``bot_level`` to everyone at the table), so ``choose`` may be handed it
as ``levels``. Hard plays an Easy bot's seat as Easy, a Normal bot's as
Normal; Normal races a table of Easy bots only. Without it both play as they
always did.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import pytest

from flip import Action, GameState, Options, apply, flip_memory, new_game, public_history, view
from flip.bots import EasyBot, HardBot, NormalBot, make_bot
from flip.bots.base import FACE_BY_CODE, OTHER_FACES
from flip.bots.hard import easy_policy, normal_policy
from flip.bots.normal import RACE, Race, W, racing
from flip.bots.tournament import to_action
from flip.cards import NO_COLOR
from flip.engine import CHOOSE_COLOR, PLAY, check
from flip.state import PENDING_DRAWN
from tests.flip.random_tables import assert_legal

SMALL_HARD = 150


class Script(random.Random):
    """A generator whose every draw is scripted: ``picks[k]`` answers the k-th draw.

    Draws past the script answer 0. It records the size of every draw asked,
    and refuses any other kind of randomness, so a run under it says exactly
    which outcome a sequence of uniform draws leads to.
    """

    def __init__(self, picks: Sequence[int]) -> None:
        super().__init__(0)
        self.picks = list(picks)
        self.asked: list[int] = []

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        assert stop is None and step == 1, "only randrange(n) is scripted"
        k = len(self.asked)
        self.asked.append(start)
        pick = self.picks[k] if k < len(self.picks) else 0
        assert 0 <= pick < start
        return pick

    def choice(self, seq: Sequence[Any]) -> Any:  # type: ignore[override]
        return seq[self.randrange(len(seq))]

    def random(self) -> float:
        raise AssertionError("only uniform integer draws are scripted")

    def getrandbits(self, k: int) -> int:
        raise AssertionError("only uniform integer draws are scripted")


def outcomes(run: Callable[[random.Random], Action]) -> dict[Action, Fraction]:
    """Every action ``run`` can return, with its probability, over every scripted draw."""
    dist: dict[Action, Fraction] = {}
    todo: list[list[int]] = [[]]
    while todo:
        picks = todo.pop()
        rng = Script(picks)
        action = run(rng)
        if len(rng.asked) > len(picks):  # a draw past the script: branch on it
            todo.extend([*picks, v] for v in range(rng.asked[len(picks)]))
            continue
        p = Fraction(1)
        for n in rng.asked:
            p /= n
        dist[action] = dist.get(action, Fraction(0)) + p
    assert sum(dist.values()) == 1
    return dist


def _easy_choice(state: GameState, seat: int) -> Callable[[random.Random], Action]:
    seen = view(state, seat)

    def run(rng: random.Random) -> Action:
        bot = EasyBot(0)
        bot.rng = rng
        return to_action(state, seat, bot.choose(seen))

    return run


def test_easy_policy_chooses_what_easy_chooses_with_the_same_chances() -> None:
    states = wilds = colour_choices = drawn = 0
    for game in range(240):
        state, _ = new_game(Options(seats=2 + game % 5), f"easy-model:{game}")
        rng = random.Random(game)
        while not state.over:
            seat = state.current
            expected = outcomes(_easy_choice(state, seat))
            got = outcomes(lambda r, s=state: easy_policy(s, r))
            assert got == expected, (state.to_dict(), got, expected)
            states += 1
            wilds += any(a.type == PLAY and a.color >= 0 for a in expected) and len(expected) > 4
            colour_choices += any(a.type == CHOOSE_COLOR for a in expected)
            drawn += state.pending == PENDING_DRAWN
            req = make_bot("easy", rng.getrandbits(32)).choose(view(state, seat))
            apply(state, seat, to_action(state, seat, req), inplace=True)
    # The cases where the entries and the actions differ were met, many times.
    assert states > 10_000 and wilds > 500 and colour_choices > 15 and drawn > 500


def _table(count: int, prefix: str) -> list[tuple[GameState, int, list[str | None]]]:
    """(state, seat to act, a public level per seat) with a real choice, from random games."""
    out: list[tuple[GameState, int, list[str | None]]] = []
    game = 0
    while len(out) < count:
        rng = random.Random(f"{prefix}:{game}")
        seats = rng.randint(2, 6)
        levels: list[str | None] = [
            rng.choice(["easy", "normal", "hard", None]) for _ in range(seats)
        ]
        state, _ = new_game(Options(seats=seats), f"{prefix}:{game}")
        while not state.over:
            seat = state.current
            seen = view(state, seat)
            if len(seen["legal_actions"]) > 1 and rng.random() < 0.1:
                out.append((state.copy(), seat, levels))
            req = make_bot("easy", rng.getrandbits(32)).choose(seen)
            apply(state, seat, to_action(state, seat, req), inplace=True)
        game += 1
    return out[:count]


def test_hard_with_levels_is_deterministic_and_legal() -> None:
    for index, (state, seat, levels) in enumerate(_table(16, "det")):
        inputs = (view(state, seat), flip_memory(state, seat), public_history(state, seat))
        first = HardBot(f"d:{index}", budget=SMALL_HARD).choose(*inputs, levels=levels)
        assert_legal(inputs[0], first)
        again = json.loads(json.dumps(inputs))
        assert (
            HardBot(f"d:{index}", budget=SMALL_HARD).choose(*again, levels=tuple(levels)) == first
        )


def test_a_table_of_people_and_hard_bots_tells_hard_nothing_new() -> None:
    # Nobody Hard can play exactly: the same search, the same head start, the same choice.
    for index, (state, seat, levels) in enumerate(_table(12, "people")):
        inputs = (view(state, seat), flip_memory(state, seat), public_history(state, seat))
        told = [None if i % 2 else "hard" for i in range(len(levels))]
        alone = HardBot(f"p:{index}", budget=SMALL_HARD).choose(*inputs)
        assert HardBot(f"p:{index}", budget=SMALL_HARD).choose(*inputs, levels=told) == alone


def test_hard_hedges_only_while_a_seat_in_the_round_is_not_a_bot_it_plays_exactly() -> None:
    state, _ = new_game(Options(seats=4), "hedge")
    seen = view(state, state.current)
    me = seen["seat"]
    hard = HardBot("h")

    def exact(levels: list[str | None]) -> bool:
        return hard._models(seen, levels)[1]  # noqa: SLF001 (the hedge is the rule under test)

    others = [i for i in range(4) if i != me]
    assert exact(["normal"] * 4)
    assert exact([None if i == me else "easy" if i % 2 else "normal" for i in range(4)])
    for who in (None, "hard"):
        for seat in others:
            levels: list[str | None] = ["easy"] * 4
            levels[seat] = who
            assert not exact(levels)
    # A person who has left the round is no longer anyone to hedge against.
    gone = others[0]
    apply(state, gone, Action("leave"), inplace=True)
    seen = view(state, state.current)
    levels = ["normal"] * 4
    levels[gone] = None
    assert hard._models(seen, levels)[1]  # noqa: SLF001


def test_hard_rollouts_play_each_seat_as_the_table_shows_it() -> None:
    levels: list[str | None] = ["hard", "easy", "normal", None]
    state, _ = new_game(Options(seats=4), "models")
    policy, _ = HardBot("m")._models(view(state, 0), levels)  # noqa: SLF001
    by_level: dict[str | None, Callable[[GameState, random.Random], Action]] = {
        "hard": normal_policy,  # the seat searching: Normal's play, the cheapest good model
        "easy": easy_policy,
        "normal": normal_policy,
        None: normal_policy,
    }
    rng = random.Random(1)
    met = set()
    while not state.over:
        seat = state.current
        key = rng.getrandbits(32)
        assert policy(state, random.Random(key)) == by_level[levels[seat]](
            state, random.Random(key)
        )
        met.add(seat)
        apply(state, seat, policy(state, rng), inplace=True)
    assert met == {0, 1, 2, 3}


@pytest.mark.parametrize(
    "levels",
    [["easy", "normal"], ["easy", "normal", "hard", None, "easy"], ["easy", "expert", None, None]],
)
def test_hard_refuses_levels_that_do_not_describe_the_table(levels: list[str | None]) -> None:
    state, _ = new_game(Options(seats=4), "refuse")
    with pytest.raises(ValueError, match="levels|level"):
        HardBot("r", budget=SMALL_HARD).choose(view(state, state.current), levels=levels)


def test_normal_races_only_a_table_where_every_other_seat_in_the_game_is_an_easy_bot() -> None:
    state, _ = new_game(Options(seats=4), "race")
    seen = view(state, state.current)
    me = seen["seat"]
    others = [i for i in range(4) if i != me]
    assert not racing(seen, None)
    assert racing(seen, ["easy"] * 4)
    assert racing(seen, [None if i == me else "easy" for i in range(4)])
    for who in (None, "normal", "hard"):
        for seat in others:
            levels: list[str | None] = ["easy"] * 4
            levels[seat] = who
            assert not racing(seen, levels)
    # A person who has left is no longer at the table to race against.
    gone = others[0]
    apply(state, gone, Action("leave"), inplace=True)
    seen = view(state, state.current)
    levels = ["easy"] * 4
    levels[gone] = None
    assert racing(seen, levels)


def test_normal_plays_its_rules_unchanged_wherever_a_seat_is_not_an_easy_bot() -> None:
    """Hard's rollouts and its head start play Normal without ``levels``: that must stay exact.

    Hard is in the game whenever it searches, so every Normal seat it models
    sees a seat that is not Easy and plays the rules of ``W``, as without levels.
    """
    changed = 0
    for index, (state, seat, levels) in enumerate(_table(150, "rules")):
        seen = view(state, seat)
        plain = NormalBot(f"n:{index}").choose(seen)
        told = NormalBot(f"n:{index}").choose(seen, levels=levels)
        if racing(seen, levels):
            changed += told != plain
        else:
            assert told == plain
        at_hards_table = list(levels)
        at_hards_table[(seat + 1) % len(levels)] = "hard"
        assert NormalBot(f"n:{index}").choose(seen, levels=at_hards_table) == plain
    assert changed > 0  # the race is a different game, and it shows


def test_race_reads_who_acts_next_and_how_likely_they_can_follow() -> None:
    face = FACE_BY_CODE
    seen: dict[str, Any] = {
        "seat": 0,
        "direction": "clockwise",
        "options": {"two_seat_reverse_skips": True},
        "players": [
            {"seat": 0, "count": 3, "in_game": True},
            {"seat": 1, "count": 1, "in_game": True, "faces": ["moon-3"]},
            {"seat": 2, "count": 2, "in_game": False, "faces": ["star-2", "star-4"]},
            {"seat": 3, "count": 2, "in_game": True, "faces": ["gem-7", "bolt-4"]},
        ],
    }
    race = Race(seen)
    assert race.order == [1, 3]  # seat 2 has left
    assert race.after(face["flame-5"]) == 1
    assert race.after(face["flame-skip"]) == 3
    assert race.after(face["flame-draw-one"]) == 3
    assert race.after(face["flame-reverse"]) == 3  # the turn goes back the other way
    assert race.after(face["wild-draw-two"]) == 3
    assert race.after(face["moon-skip-everyone"]) is None
    # Seat 1's one card shows moon-3: its active face is one of the light faces behind
    # it, each as likely; the chance that seat 1 can follow is the share that match.
    behind = OTHER_FACES["moon-3"]
    for code in ("flame-5", "sun-2", "leaf-9", "wave-7"):
        played = face[code]
        can = sum(
            1
            for f in behind
            if f.color in (played.color, NO_COLOR) or f.match_key == played.match_key
        )
        expected = (RACE["follow"] + RACE["follow_last"]) * can / len(behind)
        assert race.follow_cost(played, None, RACE) == pytest.approx(expected)
        assert race.follow_cost(played, None, W) == 0.0  # the rules alone never read it
    # Seat 3 acts after a Skip: two cards, each followed independently.
    skip = face["flame-skip"]
    stuck = 1.0
    for code in ("gem-7", "bolt-4"):
        others = OTHER_FACES[code]
        can = sum(1 for f in others if f.color in (skip.color, NO_COLOR) or f.match_key == "skip")
        stuck *= 1 - can / len(others)
    cost = race.follow_cost(skip, None, RACE)
    assert cost == pytest.approx((RACE["follow"] + RACE["follow_two"]) * (1 - stuck))
    assert race.follow_cost(face["moon-skip-everyone"], None, RACE) == 0.0


def test_every_rollout_policy_answers_a_legal_action_of_the_seat_to_act() -> None:
    """Hard's rollouts apply the policies' actions without the engine's check (``rollout``)."""
    met: Counter[str] = Counter()
    for game in range(60):
        rng = random.Random(f"legal:{game}")
        seats = 2 + game % 9
        state, _ = new_game(Options(seats=seats, two_seat_reverse_skips=game % 2 == 0), f"l:{game}")
        while not state.over:
            for name, policy in (("normal", normal_policy), ("easy", easy_policy)):
                action = policy(state, random.Random(rng.getrandbits(32)))
                check(state, state.current, action)  # raises RuleError if it is not legal
                met[f"{name} {action.type}"] += 1
            met[f"pending {state.pending}"] += 1
            chosen = normal_policy if rng.random() < 0.5 else easy_policy
            apply(state, state.current, chosen(state, rng), inplace=True)
    for kind in ("play", "draw", "choose_color"):
        assert met[f"normal {kind}"] > 0 and met[f"easy {kind}"] > 0, kind
    assert met[f"pending {PENDING_DRAWN}"] > 0
