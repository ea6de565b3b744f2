"""The registry of rulesets: the service's one door to a game's rules (``games.rulesets``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from games import rulesets, services
from games.models import Table
from tabletop.ruleset import OptionSpec, RuleError, Ruleset
from tests.factories import make_user

TABLES = "/api/v1/tables/"

#: Every member of ``tabletop.ruleset.Ruleset`` a game's ruleset must have.
MEMBERS = [name for name in Ruleset.__dict__ if not name.startswith("_")] + list(
    Ruleset.__annotations__
)


@pytest.mark.parametrize("rules", rulesets.rulesets(), ids=lambda rules: rules.id)
def test_every_registered_game_has_the_whole_interface(rules: Ruleset) -> None:
    missing = [name for name in MEMBERS if not hasattr(rules, name)]
    assert missing == []
    assert all(isinstance(spec, OptionSpec) for spec in rules.options)
    assert rules.min_seats >= 2 and rules.max_seats <= 10
    assert rules.stand_in_level in rules.bot_levels
    assert "leave" not in rules.request_types


def test_a_game_is_found_by_its_id_and_an_unknown_one_is_not() -> None:
    assert rulesets.ruleset("flip").name == "Wild Cards Flip"
    with pytest.raises(rulesets.UnknownGame):
        rulesets.ruleset("chess")


def test_two_rulesets_with_one_id_are_refused() -> None:
    rulesets._registry.cache_clear()
    try:
        with (
            override_settings(GAMENOOK_GAMES=["flip.ruleset.RULESET", "flip.ruleset.RULESET"]),
            pytest.raises(ValueError, match="two rulesets have the id 'flip'"),
        ):
            rulesets.rulesets()
    finally:
        rulesets._registry.cache_clear()


@pytest.mark.django_db
def test_a_table_names_its_game_and_keeps_the_options_its_ruleset_checked() -> None:
    host = make_user("host")
    table = services.table_create(host=host, seat_count=2, options={"scoring": "target"})
    assert (table.game, table.game_version) == ("flip", rulesets.ruleset("flip").version)
    assert table.options == {"two_seat_reverse_skips": True, "scoring": "target", "target": 500}
    with pytest.raises(ValueError, match="target is one of 250, 500, 1000"):
        services.table_create(host=host, seat_count=2, options={"target": 300})
    with pytest.raises(ValueError, match="has no option stacking"):
        services.table_create(host=host, seat_count=2, options={"stacking": True})
    with pytest.raises(ValueError, match="the games are"):
        services.table_create(host=host, seat_count=2, game="chess")
    assert Table.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seat_count": 2, "game": "chess"}, "game"),
        ({"seat_count": 2, "options": {"target": 300}}, "options.target"),
        ({"seat_count": 2, "options": {"stacking": True}}, "options.stacking"),
        ({"seat_count": 2, "options": []}, "options"),
    ],
)
def test_the_api_refuses_a_game_or_options_it_does_not_have(
    body: dict[str, object], field: str, api: Callable[[User | None], APIClient]
) -> None:
    alice: User = make_user("alice")
    response = api(alice).post(TABLES, body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"]
    assert Table.objects.count() == 0


@pytest.mark.django_db
def test_the_api_takes_the_options_in_an_object_or_as_flips_old_fields(
    api: Callable[[User | None], APIClient],
) -> None:
    alice: User = make_user("alice")
    made = api(alice).post(
        TABLES, {"seat_count": 2, "game": "flip", "options": {"target": 1000}}, format="json"
    )
    assert made.status_code == 201, made.content
    assert made.json()["game"] == "flip" and made.json()["options"]["target"] == 1000
    old = api(alice).post(TABLES, {"seat_count": 2, "target": 250}, format="json")
    assert old.status_code == 201 and old.json()["options"]["target"] == 250
    # Both: the options object counts.
    both = {"seat_count": 2, "target": 250, "options": {"target": 1000}}
    assert api(alice).post(TABLES, both, format="json").json()["options"]["target"] == 1000


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["flip", "wildcards"])
def test_leaving_is_no_action_a_player_sends_in_either_game(game: str) -> None:
    host, guest = make_user("host"), make_user("guest")
    table = services.table_create(host=host, seat_count=2, game=game)
    services.table_join(table_id=table.pk, user=guest)
    services.table_start(table_id=table.pk, user=host)
    with pytest.raises(RuleError) as refused:
        services.table_apply_action(
            table_id=table.pk, user=host, data={"type": "leave"}, expected_seq=None
        )
    # Each game's own code for a type a player may not send (Flip's unknown_action, the
    # classic game's bad_action of R33), with its sentence.
    assert refused.value.code in ("unknown_action", "bad_action")
    assert refused.value.message.endswith(".") and " " in refused.value.message
    assert Table.objects.get(pk=table.pk).seq == 1  # the deal only: nothing changed
