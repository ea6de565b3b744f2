"""The moderators' admin of ratings: read-only rows, a reset through the service, the audit log.

Driven through HTTP posts, as a moderator's browser sends them: the action's
page asks for a reason, its form posts back with the same selection, and
``ratings.services.rating_reset`` does the work. Checked on every side: the
rating is a newcomer's again, a ``RatingReset`` row records who, whom and
why, Django's admin log has the change, and the rebuild agrees.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import Permission, User
from django.test import Client

from ratings import model
from ratings import services as ratings
from ratings.models import Rating, RatingReset, Result
from ratings.rebuild import rebuild
from tests.factories import make_user, start_table

from .conftest import play_out

pytestmark = pytest.mark.django_db

RATINGS = "/admin/ratings/rating/"


@pytest.fixture
def rated() -> dict[str, Rating]:
    """alice's and bob's ratings after a game each against a hard bot, and the bot's."""
    alice, bob = make_user("alice"), make_user("bob")
    for table in (start_table(alice, bob, bots=1, level="hard"), start_table(bob, bots=1)):
        ratings.table_rate(table_id=play_out(table).pk)
    return {
        "alice": Rating.objects.get(user=alice),
        "bob": Rating.objects.get(user=bob),
        "hard": Rating.objects.get(bot_level="hard"),
    }


def _reset(client: Client, *ratings_chosen: Rating, reason: str | None) -> Any:
    """The action as the list posts it; with ``reason``, its page's form posted back."""
    data: dict[str, Any] = {
        "action": "reset_ratings",
        "_selected_action": [rating.pk for rating in ratings_chosen],
    }
    if reason is not None:
        data |= {"apply": "Reset to a newcomer's rating", "reason": reason}
    return client.post(RATINGS, data)


def _staff(*permissions: str) -> User:
    user = make_user()
    user.is_staff = True
    user.save()
    user.user_permissions.add(*Permission.objects.filter(codename__in=permissions))
    return User.objects.get(pk=user.pk)  # afresh: permissions are cached on the instance


def _logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


# ----------------------------------------------------------------------------
# Browsing


def test_the_ratings_list_shows_who_the_ladder_and_the_figure_and_searches_by_name(
    admin_client: Client, rated: dict[str, Rating]
) -> None:
    alice = rated["alice"]

    everything = admin_client.get(RATINGS)
    found = admin_client.get(RATINGS, {"q": "alice"})
    bots = admin_client.get(RATINGS, {"bot_level": "hard"})
    flip_only = admin_client.get(RATINGS, {"game": "flip", "mode": "correspondence"})

    assert everything.status_code == 200
    assert everything.context["cl"].result_count == 4  # alice, bob, the hard and easy bots
    assert list(found.context["cl"].result_list) == [alice]
    assert list(bots.context["cl"].result_list) == [rated["hard"]]
    assert flip_only.context["cl"].result_count == 4
    page = everything.content.decode()
    assert f"{model.shown(alice.mu, alice.sigma)}?" in page  # provisional after one game
    assert "flip · Turn by turn · Standard rules" in page and "Bot (hard)" in page


def test_a_rating_its_results_and_resets_are_read_only(
    admin_client: Client, rated: dict[str, Rating]
) -> None:
    alice = rated["alice"]
    result = Result.objects.filter(user=alice.user).get()
    ratings.rating_reset(rating_id=alice.pk, moderator=make_user("mod"), reason="a test")
    reset = RatingReset.objects.get()

    shown = admin_client.get(f"{RATINGS}{alice.pk}/change/")
    edit = admin_client.post(f"{RATINGS}{alice.pk}/change/", {"mu": "50", "sigma": "1"})

    assert shown.status_code == 200 and 'name="mu"' not in shown.content.decode()
    assert edit.status_code == 403
    for path in (RATINGS, "/admin/ratings/result/", "/admin/ratings/ratingreset/"):
        assert admin_client.get(f"{path}add/").status_code == 403
    for path, pk in (
        (RATINGS, alice.pk),
        ("/admin/ratings/result/", result.pk),
        ("/admin/ratings/ratingreset/", reset.pk),
    ):
        assert admin_client.get(f"{path}{pk}/change/").status_code == 200
        assert admin_client.post(f"{path}{pk}/delete/", {"post": "yes"}).status_code == 403
    alice.refresh_from_db()
    assert alice.mu == model.MU
    assert Result.objects.filter(pk=result.pk).exists() and RatingReset.objects.count() == 1


# ----------------------------------------------------------------------------
# Reset, through the service


def test_a_reset_asks_for_a_reason_then_sets_the_rating_back_and_writes_the_audit_log(
    admin_client: Client, rated: dict[str, Rating]
) -> None:
    alice = rated["alice"]
    was = (alice.mu, alice.sigma)
    assert was != (model.MU, model.SIGMA)

    asked = _reset(admin_client, alice, reason=None)
    done = _reset(admin_client, alice, reason="  lost on purpose to a friend  ")

    assert asked.status_code == 200
    page = asked.content.decode()
    assert 'name="reason"' in page and "alice on flip · Turn by turn · Standard rules" in page
    assert done.status_code == 302 and done["Location"] == RATINGS
    alice.refresh_from_db()
    assert (alice.mu, alice.sigma) == (model.MU, model.SIGMA)
    assert alice.ordinal == model.ordinal(model.MU, model.SIGMA)
    assert alice.games == 1  # the games stay played
    reset = RatingReset.objects.get()
    assert reset.rating_id == alice.pk and reset.moderator is not None
    assert reset.moderator.username == "admin"
    assert reset.reason == "lost on purpose to a friend"
    assert (reset.mu_before, reset.sigma_before) == was
    assert reset.after_result == Result.objects.order_by("-pk").values_list("pk", flat=True)[0]
    [entry] = LogEntry.objects.filter(object_id=str(alice.pk), action_flag=CHANGE)
    assert "lost on purpose to a friend" in entry.get_change_message()
    bob = Rating.objects.get(pk=rated["bob"].pk)
    assert (bob.mu, bob.sigma) == (rated["bob"].mu, rated["bob"].sigma)  # only those chosen
    # The audit log lists it, and the rebuild replays it between the same two games.
    log = admin_client.get("/admin/ratings/ratingreset/").content.decode()
    assert "lost on purpose to a friend" in log and "alice" in log
    assert rebuild().differences == []


def test_a_reset_of_several_ratings_bots_included_writes_one_record_each(
    admin_client: Client, rated: dict[str, Rating]
) -> None:
    chosen = [rated["bob"], rated["hard"]]

    _reset(admin_client, *chosen, reason="a bug in the weights")

    assert RatingReset.objects.count() == 2
    for rating in chosen:
        rating.refresh_from_db()
        assert (rating.mu, rating.sigma) == (model.MU, model.SIGMA)
        assert RatingReset.objects.get(rating=rating).reason == "a bug in the weights"


@pytest.mark.parametrize("reason", ["", "   ", "x" * 501])
def test_a_reset_without_a_reason_or_with_too_long_a_one_changes_nothing(
    admin_client: Client, rated: dict[str, Rating], reason: str
) -> None:
    alice = rated["alice"]

    response = _reset(admin_client, alice, reason=reason)

    assert response.status_code == 200
    assert "reason" in response.context["form"].errors
    assert not RatingReset.objects.exists()
    assert Rating.objects.get(pk=alice.pk).mu == alice.mu


def test_a_moderator_with_the_change_rating_permission_may_reset(
    rated: dict[str, Rating],
) -> None:
    moderator = _staff("view_rating", "change_rating")

    _reset(_logged_in(moderator), rated["alice"], reason="a moderator's reset")

    assert RatingReset.objects.get().moderator == moderator
    assert Rating.objects.get(pk=rated["alice"].pk).mu == model.MU


def test_a_non_staff_user_cannot_reset(rated: dict[str, Rating]) -> None:
    player = User.objects.get(pk=rated["bob"].user_id)  # a player, signed in, not staff

    asked = _reset(_logged_in(player), rated["alice"], reason=None)
    posted = _reset(_logged_in(player), rated["alice"], reason="I do not like alice")

    for response in (asked, posted):
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert not RatingReset.objects.exists()
    assert Rating.objects.get(pk=rated["alice"].pk).mu == rated["alice"].mu


def test_staff_who_may_only_view_ratings_see_them_but_cannot_reset(
    rated: dict[str, Rating],
) -> None:
    viewer = _logged_in(_staff("view_rating"))

    listed = viewer.get(RATINGS)
    posted = _reset(viewer, rated["alice"], reason="not mine to do")

    assert listed.status_code == 200
    assert "reset_ratings" not in listed.content.decode()
    assert posted.status_code in (200, 302)  # Django's "no action selected", nothing done
    assert not RatingReset.objects.exists()
    assert Rating.objects.get(pk=rated["alice"].pk).mu == rated["alice"].mu
    # Staff with no permission on ratings at all do not see them.
    assert _logged_in(_staff()).get(RATINGS).status_code == 403
