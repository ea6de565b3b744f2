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


def test_the_lobby_recheck_reads_only_the_sockets_shown_a_lobby_or_nothing_yet() -> None:
    """The recheck every second walks the lobby's sockets alone (and those that have
    shown nothing yet), not every socket of the process: with 2,000 streams at running
    tables it walked all of them every second (docs/performance.md, "Streams")."""

    async def scenario() -> None:
        ticker = Ticker()
        ticker.add("new", 1)
        ticker.add("lobby", 2)
        ticker.add("running", 3)
        ticker.add("over", 4)
        ticker.shown("lobby", (3, "lobby", 0, 1))
        ticker.shown("running", (9, "active", 0, 4))
        ticker.shown("over", (9, "finished", 0, 4))
        assert ticker.lobby == {"new", "lobby"}
        ticker.shown("lobby", (4, "active", 0, 2))  # its game began
        ticker.shown("new", (1, "lobby", 0, 1))
        assert ticker.lobby == {"new"}
        ticker.add("running", 5)  # added again, elsewhere: not shown there yet
        assert ticker.lobby == {"new", "running"}
        ticker.remove("new")
        ticker.remove("running")
        assert ticker.lobby == set()
        ticker.add("again", 6)
        ticker.clear()
        assert ticker.lobby == set()
        if ticker.task is not None:
            ticker.task.cancel()

    run(scenario)
