"""The rating model: Weng and Lin's Plackett-Luce (``openskill``), and a seat's weight.

Pure: no Django, so the live update (``services.table_rate``) and the rebuild
(``rebuild``) run the very same arithmetic on the same inputs, in the same
order, and so agree to the last bit.

openskill's own ``weights`` say how much each member of a *team* contributed
(normalised within the team, so a team of one is unaffected): they cannot say
"a bot played half of this seat's turns". A seat's weight here scales its
update instead: the full update the game calls for, times the weight, for
the mean and for the variance alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

#: The model's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300): a newcomer's rating.
MODEL = PlackettLuce()
MU = float(MODEL.mu)
SIGMA = float(MODEL.sigma)


@dataclass(frozen=True, slots=True)
class Entry:
    """One seat of a game to rate: its rating before, its rank (1 is best) and its weight."""

    mu: float
    sigma: float
    rank: int
    weight: float


def rate(entries: Sequence[Entry]) -> list[tuple[float, float]]:
    """Each entry's (mu, sigma) after the game, in the order given.

    Equal ranks share a place. A weight of 1 takes the model's update whole, 0
    leaves the rating as it was.

    >>> after = rate([Entry(MU, SIGMA, 1, 1.0), Entry(MU, SIGMA, 2, 1.0), Entry(MU, SIGMA, 2, 0.0)])
    >>> after[0][0] > MU > after[1][0], after[2] == (MU, SIGMA)
    (True, True)
    """
    teams = [[MODEL.create_rating([entry.mu, entry.sigma])] for entry in entries]
    rated = MODEL.rate(teams, ranks=[float(entry.rank) for entry in entries])
    out = []
    for entry, (after,) in zip(entries, rated, strict=True):
        w = min(max(entry.weight, 0.0), 1.0)
        mu = entry.mu + w * (after.mu - entry.mu)
        variance = entry.sigma**2 + w * (after.sigma**2 - entry.sigma**2)
        out.append((mu, variance**0.5))
    return out


def weight(turns: int, stand_in_turns: int, stand_in_weight: float) -> float:
    """The share of a seat's game its person played: a turn a bot played for them counts
    ``stand_in_weight`` of one of theirs (a timeout is theirs: they let it run out).

    >>> weight(10, 0, 0.25), weight(10, 4, 0.25), weight(0, 0, 0.25)
    (1.0, 0.7, 1.0)
    """
    if turns <= 0:
        return 1.0
    own = turns - stand_in_turns
    return (own + stand_in_weight * stand_in_turns) / turns


def ordinal(mu: float, sigma: float) -> float:
    """The conservative estimate: three deviations below the mean."""
    return mu - 3 * sigma


def shown(mu: float, sigma: float) -> int:
    """The figure people see: 1000 for a newcomer, 40 points per unit of the model.

    >>> shown(MU, SIGMA), shown(30.0, 3.0)
    (1000, 1840)
    """
    return round(1000 + 40 * ordinal(mu, sigma))


def change(mu_before: float, sigma_before: float, mu_after: float, sigma_after: float) -> int:
    """What a game did to the figure shown (``shown``): after minus before."""
    return shown(mu_after, sigma_after) - shown(mu_before, sigma_before)
