"""The ticker's count of a process's sockets by table (``live.ticker.Ticker.at_table``)."""

from __future__ import annotations

from live.ticker import Ticker
from tests.live.conftest import run


def test_the_sockets_at_a_table_are_counted_as_they_come_and_go() -> None:
    async def scenario() -> None:
        ticker = Ticker()
        ticker.add("a", 1)
        ticker.add("b", 1)
        ticker.add("c", 2)
        assert (ticker.at_table(1), ticker.at_table(2), ticker.at_table(3)) == (2, 1, 0)
        ticker.add("a", 2)  # the same channel added again is counted once, where it is now
        assert (ticker.at_table(1), ticker.at_table(2)) == (1, 2)
        ticker.remove("b")
        ticker.remove("b")  # twice: nothing more to forget
        ticker.remove("unknown")
        assert ticker.at_table(1) == 0
        assert 1 not in ticker.tables
        ticker.remove("a")
        ticker.remove("c")
        assert not ticker.tables and not ticker.sockets
        assert ticker.task is None  # no socket left: the recheck loop stops

    run(scenario)
