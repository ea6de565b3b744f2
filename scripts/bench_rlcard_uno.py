"""Measure RLCard's UNO engine the way `python -m flip bench` measures ours.

Random legal play at the game level, a new game when one ends, in one of two
modes (compare like with like):

- ``--mode engine``: the engine alone. Ask the round for the legal actions,
  choose one uniformly at random, ``round.proceed_round`` it; no observation
  is built (a game is set up as ``UnoGame.init_game`` does, without its
  ``get_state``). Compare with ``python -m flip bench``.
- ``--mode step``: ``game.get_legal_actions()``, a random choice,
  ``game.step(action)``, which also builds the next player's observation
  (``get_state``). Compare with ``python -m flip bench --view``, which builds
  the acting seat's view at every step.

RLCard validates nothing in either mode (it trusts the action), nor does
``flip.advance``, which ``python -m flip bench`` uses (``--checked`` takes
each action with ``flip.apply``, which recognises an action ``legal_actions``
just returned and checks any other in full).

RLCard is not a dependency of Gamenook: install it in a scratch environment,

    python3 -m venv /tmp/rl && /tmp/rl/bin/pip install rlcard==1.2.0
    /tmp/rl/bin/python scripts/bench_rlcard_uno.py --players 4 --seconds 10 --mode engine

It prints one JSON line in the shape of `python -m flip bench`. With
``--actions N`` it plays exactly N actions instead (for instruction counts
under valgrind: the time limit would make the count depend on the speed).
"""

from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np
from rlcard.games.uno.dealer import UnoDealer
from rlcard.games.uno.game import UnoGame
from rlcard.games.uno.player import UnoPlayer
from rlcard.games.uno.round import UnoRound


def _new_game_without_observation(game: UnoGame) -> None:
    """``UnoGame.init_game`` without building the first player's state."""
    game.payoffs = [0 for _ in range(game.num_players)]
    game.dealer = UnoDealer(game.np_random)
    game.players = [UnoPlayer(i, game.np_random) for i in range(game.num_players)]
    for player in game.players:
        game.dealer.deal_cards(player, 7)
    game.round = UnoRound(game.dealer, game.num_players, game.np_random)
    top_card = game.round.flip_top_card()
    game.round.perform_top_card(game.players, top_card)
    game.history = []


def run(players: int, seconds: float, seed: int, mode: str, limit: int | None) -> dict[str, object]:
    rng = random.Random(seed)
    game = UnoGame(num_players=players)
    game.np_random = np.random.RandomState(seed)
    actions = games = 0
    started = time.perf_counter()
    deadline = started + seconds
    while (time.perf_counter() < deadline) if limit is None else actions < limit:
        if mode == "engine":
            _new_game_without_observation(game)
            round_, hands = game.round, game.players
            while not round_.is_over:
                legal = round_.get_legal_actions(hands, round_.current_player)
                round_.proceed_round(hands, rng.choice(legal))
                actions += 1
        else:
            game.init_game()
            while not game.is_over():
                game.step(rng.choice(game.get_legal_actions()))
                actions += 1
        games += 1
    elapsed = time.perf_counter() - started
    return {
        "engine": "rlcard-uno",
        "mode": mode,
        "players": players,
        "seconds": round(elapsed, 3),
        "games": games,
        "actions": actions,
        "actions_per_s": round(actions / elapsed),
        "games_per_s": round(games / elapsed, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", choices=("engine", "step"), default="engine")
    parser.add_argument("--actions", type=int, default=None, help="play this many, not seconds")
    args = parser.parse_args()
    print(json.dumps(run(args.players, args.seconds, args.seed, args.mode, args.actions)))


if __name__ == "__main__":
    main()
