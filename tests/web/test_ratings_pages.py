"""Issue 39 on the web client's pages: the player's page, head to head, the leaderboards,
the ratings at a game's end, reliability at the table and in the lobby, the new-table
form's "Rated game" and "Minimum reliability" (Django's test client, no browser)."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

import flip
from games import selectors, services
from games.models import Seat, Table
from ratings import model
from ratings import services as ratings
from ratings.models import Rating, Result
from tests.factories import start_table
from tests.ratings.conftest import play_out
from tests.web.conftest import NEW_TABLE_FORM, logged_in, make_user
from tests.web.test_leaks import NAME_RE, real
from web import players, present

pytestmark = pytest.mark.django_db

LIVE = {"HTTP_X_GAMENOOK_LIVE": "1"}


def finished(
    *people: User,
    bots: int = 1,
    level: str = "hard",
    timeouts: set[int] | None = None,
    **options: object,
) -> Table:
    """A game of ``people`` and ``bots`` played to its end (the seats in ``timeouts`` let
    their time run out) and rated, as its follow-up does: it also counts the seats' turns
    that reliability reads."""
    table = play_out(start_table(*people, bots=bots, level=level, **options), timeouts=timeouts)
    ratings.table_rate(table_id=table.pk)
    return table


def text_of(html: str) -> str:
    """What a person reads: the page without its tags, scripts and the JSON it carries."""
    html = re.sub(r"<script\b.*?</script>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", html))


# --- the player's page ---------------------------------------------------------------


def test_the_player_page_shows_ratings_history_win_rates_times_reliability_and_games() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    tables = [finished(alice, bob), finished(alice, bob, bots=2, level="easy")]
    unrated = finished(alice, bots=1, rated=False)
    response = logged_in(bob).get("/players/alice/")
    assert response.status_code == 200
    html = response.content.decode()
    text = text_of(html)
    rating = Rating.objects.get(user=alice, game="flip", mode="correspondence", rules="standard")
    label = f"{model.shown(rating.mu, rating.sigma)}{'?' if rating.sigma > 6.0 else ''}"
    ladder = players.ladder_words("flip", "correspondence", "standard")
    row = re.search(rf'<tr data-ladder="{ladder}">.*?</tr>', html, re.S)
    assert row is not None and f"data-rating>{label}" in row.group(0)
    # The bots' ratings on the same ladder, beside hers.
    hard = Rating.objects.get(user=None, bot_level="hard", mode="correspondence")
    assert f"Hard bot: {model.shown(hard.mu, hard.sigma)}" in unescape(row.group(0))
    assert "Easy bot: " in unescape(row.group(0))
    # The plot's data and the table of the same figures.
    charts = json.loads(
        re.search(
            r'<script id="player-charts" type="application/json">(.*?)</script>', html, re.S
        ).group(1)  # type: ignore[union-attr]
    )
    (series,) = charts["history"]["series"]
    assert series["label"] == ladder
    assert [x for x, _ in series["points"]] == [1, 2]
    assert series["points"][-1][1] == model.shown(rating.mu, rating.sigma)
    assert html.count('data-figures="history"') == 1
    assert charts["sizes"]["labels"] == ["2 seats", "3 seats", "4 seats"]
    assert charts["bots"]["labels"] == ["Easy bot", "Normal bot", "Hard bot"]
    assert charts["bots"]["values"][1] is None  # no Normal bot met: no bar, "—" in the table
    assert f'role="img" aria-label="Rating after each rated game. {ladder}: from ' in html
    # Every rated game's change, with its sign in words, and every game's replay.
    for table in tables:
        mine = Result.objects.get(table=table, user=alice)
        change = model.change(mine.mu_before, mine.sigma_before, mine.mu_after, mine.sigma_after)
        recent = re.search(rf'<tr data-recent="{table.pk}">.*?</tr>', html, re.S)
        assert recent is not None and present.signed(change) in recent.group(0)
        assert f'href="/tables/{table.pk}/replay/"' in recent.group(0)
    unrated_row = re.search(rf'<tr data-recent="{unrated.pk}">.*?</tr>', html, re.S)
    assert unrated_row is not None and ">unrated<" in unrated_row.group(0)
    # Times to move and reliability, from the log.
    assert re.search(r"<th scope=\"row\">Turn by turn</th><td class=\"num\">\d+</td>", html)
    record = selectors.reliability([alice.pk])[alice.pk]
    assert record.percent is not None
    assert f"{record.percent}% reliable" in text
    assert f"over the last {record.days} days" in text
    assert f"of {record.turns} turns" in text


def test_a_player_without_games_has_a_page_that_says_so() -> None:
    alice = make_user("alice")
    html = logged_in(alice).get("/players/alice/").content.decode()
    assert "alice (you)" in html
    assert "No rated game yet." in html
    assert "no record yet" in html
    assert "<canvas" not in html  # no plot of nothing


def test_an_unknown_player_is_a_404_and_so_is_an_unknown_rival() -> None:
    alice = make_user("alice")
    client = logged_in(alice)
    missing = client.get("/players/nobody/")
    assert missing.status_code == 404 and "No player is called" in missing.content.decode()
    assert client.get("/players/alice/versus/nobody/").status_code == 404
    assert client.get("/players/nobody/versus/alice/").status_code == 404
    assert client.get("/players/alice/versus/", {"other": "nobody"}).status_code == 404
    assert client.get("/players/alice/versus/", {"other": ""}).status_code == 400
    assert client.get("/players/alice/versus/alice/").status_code == 400
    # Hostile names answer 4xx, never 5xx.
    for name in ("' OR 1=1 --", "a" * 500, "%00", "<script>"):
        assert client.get("/players/alice/versus/", {"other": name}).status_code == 404
    assert client.get("/players/alice/").status_code == 200


def test_the_pages_need_a_log_in() -> None:
    make_user("alice")
    for url in ("/players/alice/", "/leaderboards/", "/leaderboards/flip/correspondence/"):
        response = Client().get(url)
        assert response.status_code == 302 and "/login/" in response["Location"]


def test_head_to_head_counts_who_finished_ahead() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    tables = [finished(alice, bob), finished(bob, alice, bots=2)]
    client = logged_in(alice)
    form = client.get("/players/alice/versus/", {"other": "bob"})
    assert form.status_code == 302 and form["Location"] == "/players/alice/versus/bob/"
    html = client.get("/players/alice/versus/bob/").content.decode()
    ranks = {
        t.pk: dict(Result.objects.filter(table=t).values_list("user_id", "rank")) for t in tables
    }
    ahead = sum(r[alice.pk] < r[bob.pk] for r in ranks.values())
    behind = sum(r[alice.pk] > r[bob.pk] for r in ranks.values())
    counts = re.search(r'data-figures="versus">.*?<tbody><tr>(.*?)</tr>', html, re.S)
    assert counts is not None
    cells = re.findall(r'<td class="num">(\d+)</td>', counts.group(1))
    assert cells == [str(len(tables)), str(ahead), str(behind), str(2 - ahead - behind)]
    for table in tables:
        assert f'href="/tables/{table.pk}/replay/"' in html


def test_no_card_of_anyones_hand_is_on_the_player_page() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    done = finished(alice, bob)
    running = start_table(alice, bob, bots=1)
    services.table_run_bots(table_id=running.pk)
    html = logged_in(bob).get("/players/alice/").content.decode()
    for table in (done, Table.objects.get(pk=running.pk)):
        state = real(table.pk)
        assert state.seed not in html
        cards = [*state.draw, *(card for hand in state.hands for card in hand)]
        for card in cards:
            assert flip.handle(state, card) not in html, "a card's handle is on the page"
    assert "data-face" not in html
    text = text_of(html)
    for name in players.game_names().values():  # "Wild Cards Flip" names no card
        text = text.replace(name, "")
    assert NAME_RE.findall(text) == [], "a card's name is on the page"


# --- the leaderboards --------------------------------------------------------------


def _ladder_of(count: int, **fields: object) -> list[User]:
    """``count`` players on Flip's turn-by-turn standard ladder, best first, all listed."""
    now = timezone.now()
    people = [make_user(f"p{n:03d}") for n in range(count)]
    Rating.objects.bulk_create(
        Rating(
            game="flip",
            mode="correspondence",
            rules="standard",
            user=person,
            mu=40.0 - n * 0.1,
            sigma=2.0,
            ordinal=model.ordinal(40.0 - n * 0.1, 2.0),
            games=20,
            last_game_at=now - timedelta(days=1),
            **fields,
        )
        for n, person in enumerate(people)
    )
    return people


def test_a_leaderboard_is_paged_best_first_with_links_to_the_players() -> None:
    people = _ladder_of(players.LEADERBOARD_SIZE + 1)
    client = logged_in(people[0])
    first = client.get("/leaderboards/flip/correspondence/").content.decode()
    positions = [int(p) for p in re.findall(r'<tr data-position="(\d+)">', first)]
    assert positions == list(range(1, players.LEADERBOARD_SIZE + 1))
    assert '<a href="/players/p000/">p000</a> (you)' in first
    assert f'<td class="num">{model.shown(40.0, 2.0)}</td>' in first
    assert 'rel="next"' in first and 'rel="prev"' not in first
    second = client.get("/leaderboards/flip/correspondence/", {"page": 2}).content.decode()
    assert re.findall(r'<tr data-position="(\d+)">', second) == [str(players.LEADERBOARD_SIZE + 1)]
    assert f'href="/players/{people[-1].username}/"' in second
    assert 'rel="prev"' in second and 'rel="next"' not in second
    assert client.get("/leaderboards/flip/correspondence/", {"page": 3}).status_code == 404
    house = client.get("/leaderboards/flip/correspondence/", {"rules": "house"})
    assert (
        house.status_code == 200 and "No one is on this leaderboard yet." in house.content.decode()
    )


def test_a_leaderboard_leaves_out_provisional_and_inactive_players() -> None:
    listed = _ladder_of(1)
    provisional, idle = make_user("provisional"), make_user("idle")
    for person, sigma, days in ((provisional, 7.0, 1), (idle, 2.0, 90)):
        Rating.objects.create(
            game="flip",
            mode="correspondence",
            rules="standard",
            user=person,
            mu=50.0,
            sigma=sigma,
            ordinal=model.ordinal(50.0, sigma),
            games=30,
            last_game_at=timezone.now() - timedelta(days=days),
        )
    html = logged_in(listed[0]).get("/leaderboards/flip/correspondence/").content.decode()
    assert re.findall(r'<tr data-position="(\d+)">', html) == ["1"]
    assert "provisional" not in re.sub(r"provisional ratings are left out", "", html)
    assert "/players/idle/" not in html


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ({"page": "0"}, 400),
        ({"page": "-1"}, 400),
        ({"page": "x"}, 400),
        ({"page": "1e3"}, 400),
        ({"page": "9" * 30}, 400),
        ({"rules": "other"}, 400),
        ({"rules": "' OR 1=1 --"}, 400),
    ],
)
def test_a_bad_leaderboard_query_answers_4xx(query: dict[str, str], status: int) -> None:
    client = logged_in(make_user())
    assert client.get("/leaderboards/flip/correspondence/", query).status_code == status


def test_the_leaderboards_page_chooses_a_ladder_and_refuses_an_unknown_one() -> None:
    client = logged_in(make_user())
    index = client.get("/leaderboards/").content.decode()
    assert 'href="/leaderboards/flip/realtime/?rules=standard"' in index
    assert 'href="/leaderboards/"' in index  # the site's navigation
    chosen = client.get("/leaderboards/", {"game": "flip", "mode": "realtime", "rules": "house"})
    assert chosen.status_code == 302
    assert chosen["Location"] == "/leaderboards/flip/realtime/?rules=house"
    assert client.get("/leaderboards/", {"game": "chess", "mode": "realtime"}).status_code == 400
    assert client.get("/leaderboards/chess/realtime/").status_code == 404
    assert client.get("/leaderboards/flip/blitz/").status_code == 404


# --- at the table --------------------------------------------------------------------


def test_the_table_page_shows_each_seats_new_rating_and_change_once_rated() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = play_out(start_table(alice, bob, bots=1, level="hard"))
    client = logged_in(alice)
    before = client.get(f"/tables/{table.pk}/live/")
    assert "Ratings are being updated" in before.content.decode()
    assert "data-rating-change" not in before.content.decode()
    # The ratings come after the game's last move: the live part's ETag changes with them.
    assert (
        client.get(f"/tables/{table.pk}/live/", HTTP_IF_NONE_MATCH=before["ETag"]).status_code
        == 304
    )
    ratings.table_rate(table_id=table.pk)
    after = client.get(f"/tables/{table.pk}/live/", HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    html = after.content.decode()
    assert "Ratings are being updated" not in html
    for result in Result.objects.filter(table=table):
        change = model.change(
            result.mu_before, result.sigma_before, result.mu_after, result.sigma_after
        )
        row = re.search(rf'data-rank-seat="{result.seat}">(.*?)</li>', html)
        assert row is not None
        shown = model.shown(result.mu_after, result.sigma_after)
        assert re.search(
            rf"rating {shown}\??\s*\({re.escape(present.signed(change))}\)", row.group(1)
        )
    # The persons' names link to their pages; the bot's does not.
    assert 'href="/players/bob/"' in html and 'href="/players/alice/"' in html
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert "data-rating-change" in page


def test_an_unrated_table_says_so_during_the_game_and_at_its_end() -> None:
    alice = make_user("alice")
    table = start_table(alice, bots=1, rated=False)
    client = logged_in(alice)
    assert "Unrated game" in client.get(f"/tables/{table.pk}/").content.decode()
    play_out(table)
    ratings.table_rate(table_id=table.pk)
    html = client.get(f"/tables/{table.pk}/").content.decode()
    assert "Unrated game: no rating changed." in html
    assert "Ratings are being updated" not in html and "data-rating-change" not in html


def test_each_persons_reliability_is_beside_their_name_at_the_table() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    finished(alice, bob)
    finished(bob, timeouts={0})  # bob lets his turns run out
    table = start_table(alice, bob, bots=1)
    services.table_run_bots(table_id=table.pk)
    html = logged_in(alice).get(f"/tables/{table.pk}/").content.decode()
    records = selectors.reliability([alice.pk, bob.pk])
    assert records[bob.pk].percent is not None and records[bob.pk].percent < 100
    for user in (alice, bob):
        number = Seat.objects.get(table=table, user=user).number
        seat = re.search(rf'<li class="seat[^"]*" data-seat="{number}".*?</li>', html, re.S)
        assert seat is not None
        assert f'data-reliability="{records[user.pk].percent}"' in seat.group(0)
        said = re.sub(r"\s+", " ", text_of(seat.group(0)))
        assert f"{records[user.pk].percent}% reliable" in said
    bot = Seat.objects.get(table=table, user=None).number
    seat = re.search(rf'<li class="seat[^"]*" data-seat="{bot}".*?</li>', html, re.S)
    assert seat is not None and "data-reliability" not in seat.group(0)


def test_the_reliability_is_read_in_one_query_for_the_whole_table() -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    people = [make_user() for _ in range(5)]
    table = start_table(*people, bots=1)
    services.table_run_bots(table_id=table.pk)
    client = logged_in(people[0])
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/tables/{table.pk}/live/").status_code == 200
    sums = [
        q["sql"] for q in queries.captured_queries if 'SUM("games_seat"."timeouts")' in q["sql"]
    ]
    assert len(sums) == 1


# --- the lobby and the new-table form -----------------------------------------------


def test_the_new_table_form_offers_rated_and_minimum_reliability() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    client = logged_in(alice)
    lobby = client.get("/").content.decode()
    assert re.search(r'<input type="checkbox" name="rated"[^>]*checked', lobby)
    options = re.search(r'<select name="min_reliability".*?</select>', lobby, re.S)
    assert options is not None
    assert re.findall(r'<option value="(\d+)"', options.group(0)) == ["0", "70", "80", "90", "95"]
    assert "Anyone" in options.group(0)
    rated = client.post("/tables/new/", {**NEW_TABLE_FORM, "rated": "on"})
    table = Table.objects.get(pk=int(rated["Location"].strip("/").split("/")[-1]))
    assert table.rated and table.min_reliability == 0
    # A checkbox left unticked is not sent.
    unticked = {name: value for name, value in NEW_TABLE_FORM.items() if name != "rated"}
    unrated = client.post("/tables/new/", {**unticked, "min_reliability": "90"})
    table = Table.objects.get(pk=int(unrated["Location"].strip("/").split("/")[-1]))
    assert not table.rated and table.min_reliability == 90
    row = re.search(
        rf"<li class=\"table-row\">\s*<a href=\"/tables/{table.pk}/\">.*?</li>",
        logged_in(bob).get("/").content.decode(),
        re.S,
    )
    assert row is not None
    assert "Unrated" in row.group(0) and "Needs 90% reliability" in row.group(0)
    assert 'href="/players/alice/"' in row.group(0)
    # A minimum the form does not offer is refused, and no table is opened.
    count = Table.objects.count()
    refused = client.post("/tables/new/", {**NEW_TABLE_FORM, "min_reliability": "50"})
    assert refused.status_code == 400 and Table.objects.count() == count


def test_the_lobby_part_of_a_table_says_unrated_and_the_minimum() -> None:
    alice = make_user("alice")
    client = logged_in(alice)
    unticked = {name: value for name, value in NEW_TABLE_FORM.items() if name != "rated"}
    response = client.post("/tables/new/", {**unticked, "min_reliability": "80"})
    html = client.get(response["Location"]).content.decode()
    assert "<strong>unrated</strong>" in html
    assert "needs 80% reliability" in html


def test_a_join_refused_for_reliability_shows_the_services_sentence() -> None:
    alice, carol = make_user("alice"), make_user("carol")
    finished(carol, timeouts={0})
    percent = selectors.reliability([carol.pk])[carol.pk].percent
    assert percent is not None and percent < 95
    table = services.table_create(host=alice, seat_count=3, min_reliability=95)
    client = logged_in(carol)
    response = client.post(f"/tables/{table.pk}/join/", follow=True)
    html = response.content.decode()
    assert response.redirect_chain[-1][0] == "/"
    assert f"This table&#x27;s host asks for a reliability of 95%; yours is {percent}%" in html
    assert not Seat.objects.filter(table=table, user=carol).exists()
    live = client.post(f"/tables/{table.pk}/join/", **LIVE)
    assert live.status_code == 403 and live.json()["error"]["code"] == "reliability_too_low"


# --- hostile requests ----------------------------------------------------------------

#: Names and values no page should be trusted with (the web client's hostile test's, and more).
NASTY = ["a%00b", "%00", "%E2%98%83" * 50, "x" * 5000, "%3Cscript%3E", "..", "'%20OR%201=1--"]


def test_the_new_routes_answer_4xx_or_a_page_to_hostile_requests_and_change_nothing() -> None:
    alice = make_user("alice")
    finished(alice)
    client = logged_in(alice)
    before = (Rating.objects.count(), Result.objects.count(), Table.objects.count())
    paths = [
        *(f"/players/{name}/" for name in NASTY),
        *(f"/players/alice/versus/{name}/" for name in NASTY),
        *(f"/players/{name}/versus/alice/" for name in NASTY),
        *(f"/players/alice/versus/?other={name}" for name in NASTY),
        *(f"/leaderboards/{name}/realtime/" for name in NASTY),
        *(f"/leaderboards/?game=flip&mode=realtime&rules={name}" for name in NASTY),
        *(f"/leaderboards/flip/correspondence/?rules={name}" for name in NASTY),
        *(f"/leaderboards/flip/correspondence/?page={name}" for name in NASTY),
    ]
    for path in paths:
        for method in ("get", "post", "put", "delete"):
            response = getattr(client, method)(path)
            assert response.status_code < 500, (method, path, response.status_code)
            assert method == "get" or response.status_code in (404, 405), (method, path)
    assert (Rating.objects.count(), Result.objects.count(), Table.objects.count()) == before


def test_an_old_game_without_ratings_does_not_wait_for_them() -> None:
    alice = make_user("alice")
    table = play_out(start_table(alice, bots=1))
    Table.objects.filter(pk=table.pk).update(finished_at=timezone.now() - timedelta(days=2))
    html = logged_in(alice).get(f"/tables/{table.pk}/").content.decode()
    assert "Final ranking" in html
    assert "Ratings are being updated" not in html and "data-rating-change" not in html
