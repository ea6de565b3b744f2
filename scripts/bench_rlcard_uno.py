"""Measure RLCard's UNO engine the way `python -m flip bench` measures ours.

Random legal play at the game level: ask for the legal actions, choose one
uniformly at random, apply it, repeat; a new game when one ends. RLCard is not
a dependency of Gamenook: install it in a scratch environment to run this,

    python3 -m venv /tmp/rl && /tmp/rl/bin/pip install rlcard
    /tmp/rl/bin/python scripts/bench_rlcard_uno.py --players 4 --seconds 10

It prints one JSON line in the same shape as `python -m flip bench`.
"""

from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np
from rlcard.games.uno.game import UnoGame


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    game = UnoGame(num_players=args.players)
    game.np_random = np.random.RandomState(args.seed)
    actions = games = 0
    started = time.perf_counter()
    deadline = started + args.seconds
    while time.perf_counter() < deadline:
        _, player = game.init_game()
        while not game.is_over():
            game.step(rng.choice(game.get_legal_actions()))
            actions += 1
        games += 1
    elapsed = time.perf_counter() - started
    print(
        json.dumps(
            {
                "engine": "rlcard-uno",
                "players": args.players,
                "seconds": round(elapsed, 3),
                "games": games,
                "actions": actions,
                "actions_per_s": round(actions / elapsed),
                "games_per_s": round(games / elapsed, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
