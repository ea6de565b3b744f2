"""Issue 40, part 1: bot accounts, their ``play`` tokens and the scope those tokens have."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient
from rest_framework.views import APIView

from accounts import authentication, selectors, services
from accounts.models import ApiToken, NameKey
from accounts.signals import credentials_changed
from games import selectors as games_selectors
from games.errors import ServiceError
from live.auth import token_user
from tests.factories import make_user
from tests.games.conftest import assert_error

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]
BOTS = "/api/v1/me/bots/"


def token_client(key: str) -> APIClient:
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def bot_and_key(alice: User) -> tuple[User, str]:
    return services.bot_create(owner=alice, username="robo", description="Plays at random.")


# ----------------------------------------------------------------------------
# Making a bot account


def test_a_bot_account_has_no_password_no_address_and_a_play_token(alice: User) -> None:
    bot, key = services.bot_create(owner=alice, username="robo", description=" Random. ")

    bot.refresh_from_db()
    assert not bot.has_usable_password() and bot.email == "" and bot.is_active
    assert games_selectors.is_bot_account(bot.pk)
    assert selectors.owner_of(bot) == alice
    assert NameKey.objects.filter(user=bot).exists()
    (token,) = ApiToken.objects.filter(user=bot)
    assert token.scope == ApiToken.Scope.PLAY and token.name == "first"
    assert token.prefix == key[: len(token.prefix)]
    (listed,) = selectors.bots_of(owner=alice)
    assert (listed.username, listed.description, listed.tokens) == ("robo", "Random.", 1)


def test_a_bots_token_is_a_play_token_whatever_is_asked(
    bot_and_key: tuple[User, str],
) -> None:
    bot, _ = bot_and_key

    token, _ = services.token_create(user=bot, name="sneaky", scope=ApiToken.Scope.ACCOUNT)

    assert token.scope == ApiToken.Scope.PLAY


def test_a_persons_own_tokens_stay_account_tokens(alice: User) -> None:
    token, _ = services.token_create(user=alice, name="laptop")

    assert token.scope == ApiToken.Scope.ACCOUNT


def test_the_api_makes_a_bot_and_shows_its_token_once(alice: User, api: Api) -> None:
    response = api(alice).post(BOTS, {"username": "robo", "description": "Hi"}, format="json")

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["username"] == "robo" and body["tokens"] == 1 and body["disabled"] is False
    me = token_client(body["token"]).get("/api/v1/me/")
    assert me.status_code == 200
    assert me.json()["bot_account"] is True and me.json()["owner"] == "alice"
    listed = api(alice).get(BOTS).json()
    assert [b["username"] for b in listed] == ["robo"] and "token" not in listed[0]


def test_me_says_a_person_is_not_a_bot(alice: User, api: Api) -> None:
    body = api(alice).get("/api/v1/me/").json()

    assert body["bot_account"] is False and body["owner"] is None


@override_settings(GAMENOOK_BOTS_PER_OWNER=2)
def test_a_person_may_own_only_so_many_bots_disabled_ones_included(alice: User) -> None:
    first, _ = services.bot_create(owner=alice, username="one")
    services.bot_create(owner=alice, username="two")
    services.bot_disable(first, by=alice)

    with pytest.raises(ServiceError) as refused:
        services.bot_create(owner=alice, username="three")

    assert refused.value.code == "too_many_bots" and refused.value.status == 409
    assert not User.objects.filter(username="three").exists()


def test_the_api_answers_too_many_bots_with_409(alice: User, api: Api) -> None:
    with override_settings(GAMENOOK_BOTS_PER_OWNER=1):
        client = api(alice)
        assert client.post(BOTS, {"username": "one"}, format="json").status_code == 201
        assert_error(client.post(BOTS, {"username": "two"}, format="json"), 409, "too_many_bots")


def test_a_person_needs_a_confirmed_address_to_make_a_bot(api: Api) -> None:
    dora = make_user("dora", verified=False)

    response = api(dora).post(BOTS, {"username": "robo"}, format="json")

    assert_error(response, 403, "email_not_confirmed")
    assert not User.objects.filter(username="robo").exists()


def test_a_bot_cannot_own_bots(bot_and_key: tuple[User, str]) -> None:
    bot, key = bot_and_key

    with pytest.raises(ServiceError) as refused:
        services.bot_create(owner=bot, username="robo2")

    assert refused.value.code == "bots_not_allowed"
    # Nor through the API, where its play token is refused before anything is asked.
    response = token_client(key).post(BOTS, {"username": "robo3"}, format="json")
    assert_error(response, 403, "token_scope")


@pytest.mark.parametrize(
    "name",
    [
        "al\u200bice",  # invisible
        "ro\u202ebo",  # direction override
        "<b>bot</b>",
        "p\u0430ypal",  # a Cyrillic а among Latin letters
        "",
        "x" * 151,
        "with space",
    ],
)
def test_a_bots_name_follows_the_sign_up_rules(alice: User, api: Api, name: str) -> None:
    response = api(alice).post(BOTS, {"username": name}, format="json")

    assert_error(response, 400, "invalid")
    assert selectors.bots_of(owner=alice) == []


def test_a_bots_name_may_not_look_like_one_taken(alice: User, bob: User) -> None:
    with pytest.raises(ServiceError) as refused:
        services.bot_create(owner=alice, username="\uff22\uff2f\uff22")  # ＢＯＢ

    assert "username" in refused.value.fields


@pytest.mark.parametrize(
    "body",
    [
        {"username": 12},
        {"username": ["robo"]},
        {"username": "robo", "description": None},
        {"username": "robo", "description": "x" * 201},
        {"username": "robo", "description": "bell\x07"},
        {"username": "robo", "owner": "bob"},
        {"username": "robo\x00"},
    ],
)
def test_hostile_bodies_make_no_bot(alice: User, api: Api, body: dict[str, Any]) -> None:
    response = api(alice).post(BOTS, body, format="json")

    assert response.status_code == 400, response.content
    assert not User.objects.filter(username__startswith="robo").exists()


def test_a_body_that_is_not_an_object_makes_no_bot(alice: User, api: Api) -> None:
    response = api(alice).generic("POST", BOTS, "[1]", content_type="application/json")

    assert_error(response, 400, "invalid")


def test_no_one_signed_in_gets_401(api: Api) -> None:
    assert api(None).get(BOTS).status_code == 401
    assert api(None).post(BOTS, {"username": "robo"}, format="json").status_code == 401


# ----------------------------------------------------------------------------
# Only the owner sees a bot


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("get", "", None),
        ("patch", "", {"description": "mine now"}),
        ("delete", "", None),
        ("get", "tokens/", None),
        ("post", "tokens/", {"name": "stolen"}),
    ],
)
def test_another_persons_bot_is_not_found_as_no_bot_is(
    bot_and_key: tuple[User, str], bob: User, api: Api, method: str, suffix: str, body: Any
) -> None:
    client = api(bob)
    theirs = getattr(client, method)(f"{BOTS}robo/{suffix}", body, format="json")
    nobody = getattr(client, method)(f"{BOTS}nobody/{suffix}", body, format="json")

    assert_error(theirs, 404, "not_found")
    assert theirs.json() == nobody.json()
    bot, _ = bot_and_key
    bot.refresh_from_db()
    assert bot.is_active and ApiToken.objects.filter(user=bot).count() == 1


def test_another_persons_bots_token_cannot_be_revoked(
    bot_and_key: tuple[User, str], alice: User, bob: User, api: Api
) -> None:
    bot, _ = bot_and_key
    services.bot_create(owner=bob, username="bobbot")
    token = ApiToken.objects.get(user=bot)

    # Through Bob's own bot's URL, and through Alice's bot's.
    for name in ("bobbot", "robo"):
        response = api(bob).delete(f"{BOTS}{name}/tokens/{token.pk}/")
        assert_error(response, 404, "not_found")
    assert ApiToken.objects.filter(pk=token.pk).exists()


def test_a_person_cannot_reach_a_person_through_the_bot_urls(
    alice: User, bob: User, api: Api
) -> None:
    assert_error(api(alice).get(f"{BOTS}bob/"), 404, "not_found")
    assert_error(
        api(alice).post(f"{BOTS}bob/tokens/", {"name": "x"}, format="json"), 404, "not_found"
    )
    assert not ApiToken.objects.filter(user=bob).exists()


@pytest.mark.parametrize("name", ["x" * 500, "%00", "robo%00", "..", "%2e%2e"])
def test_odd_names_in_the_url_are_not_found(
    bot_and_key: tuple[User, str], alice: User, api: Api, name: str
) -> None:
    response = api(alice).get(f"{BOTS}{name}/")

    assert response.status_code == 404


# ----------------------------------------------------------------------------
# Tokens, disabling, enabling


def test_the_owner_makes_lists_and_revokes_a_bots_tokens(
    bot_and_key: tuple[User, str], alice: User, api: Api
) -> None:
    client = api(alice)
    made = client.post(f"{BOTS}robo/tokens/", {"name": "server"}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["scope"] == "play"
    key = made.json()["token"]
    assert token_client(key).get("/api/v1/tables/").status_code == 200

    listed = client.get(f"{BOTS}robo/tokens/").json()
    assert sorted(t["name"] for t in listed) == ["first", "server"]
    assert all("token" not in t for t in listed)

    assert client.delete(f"{BOTS}robo/tokens/{made.json()['id']}/").status_code == 204
    assert token_client(key).get("/api/v1/tables/").status_code == 401


def test_a_disabled_bots_tokens_are_refused_until_it_is_enabled(
    bot_and_key: tuple[User, str], alice: User, api: Api
) -> None:
    _, key = bot_and_key
    client = api(alice)

    assert client.delete(f"{BOTS}robo/").status_code == 204
    assert token_client(key).get("/api/v1/tables/").status_code == 401
    body = client.get(f"{BOTS}robo/").json()
    assert body["disabled"] is True and body["disabled_at"]
    new = client.post(f"{BOTS}robo/tokens/", {"name": "more"}, format="json")
    assert_error(new, 409, "bot_disabled")

    enabled = client.patch(f"{BOTS}robo/", {"disabled": False}, format="json")
    assert enabled.status_code == 200 and enabled.json()["disabled"] is False
    assert token_client(key).get("/api/v1/tables/").status_code == 200


def test_disabling_tells_the_sockets_once_it_commits(
    bot_and_key: tuple[User, str], alice: User, django_capture_on_commit_callbacks: Any
) -> None:
    bot, _ = bot_and_key
    told: list[dict[str, Any]] = []

    def listen(sender: Any, **kwargs: Any) -> None:
        told.append(kwargs)

    credentials_changed.connect(listen)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            assert services.bot_disable(bot, by=alice) is True
    finally:
        credentials_changed.disconnect(listen)

    assert [(t["user_id"], t["recheck"]) for t in told] == [(bot.pk, True)]
    assert services.bot_disable(bot, by=alice) is False  # once is enough


def test_the_owner_changes_the_description(
    bot_and_key: tuple[User, str], alice: User, api: Api
) -> None:
    response = api(alice).patch(f"{BOTS}robo/", {"description": "Greedy now."}, format="json")

    assert response.status_code == 200 and response.json()["description"] == "Greedy now."


@pytest.mark.parametrize(
    "body",
    [{"disabled": "yes"}, {"disabled": 1}, {"description": 5}, {"username": "other"}, []],
)
def test_hostile_changes_change_nothing(
    bot_and_key: tuple[User, str], alice: User, api: Api, body: Any
) -> None:
    response = api(alice).patch(f"{BOTS}robo/", body, format="json")

    assert response.status_code == 400
    bot, _ = bot_and_key
    bot.refresh_from_db()
    assert bot.is_active and bot.username == "robo"


def test_an_owner_deactivated_disables_their_bots(
    bot_and_key: tuple[User, str], alice: User
) -> None:
    bot, key = bot_and_key

    services.user_deactivate(user=alice)

    bot.refresh_from_db()
    assert not bot.is_active and selectors.bots_of(owner=alice)[0].disabled_at is not None
    assert token_client(key).get("/api/v1/tables/").status_code == 401
    with pytest.raises(ServiceError) as refused:
        services.bot_enable(bot, by=alice)
    assert refused.value.code == "owner_inactive"


def test_someone_else_may_not_disable_or_enable_a_bot(
    bot_and_key: tuple[User, str], bob: User
) -> None:
    bot, _ = bot_and_key

    with pytest.raises(ServiceError) as refused:
        services.bot_disable(bot, by=bob)

    assert refused.value.status == 404
    bot.refresh_from_db()
    assert bot.is_active


# ----------------------------------------------------------------------------
# The scope of a play token: an allowlist of URL names, default deny


def _routes(
    patterns: list[URLPattern | URLResolver], prefix: str = ""
) -> Iterator[tuple[str, URLPattern]]:
    """Every URL pattern of the project with its whole route (``path()`` syntax)."""
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, route)
        else:
            yield route, entry


_SAMPLES = {"id": "1", "int": "1", "str": "robo", "slug": "flip", "path": "x"}


def _sample_url(route: str) -> str | None:
    """A URL ``route`` matches, with sample values; None for a regular expression's route."""
    if route.startswith("^") or "(?P" in route:
        return None
    return "/" + re.sub(r"<(?:(\w+):)?\w+>", lambda match: _SAMPLES[match.group(1) or "str"], route)


def _api_views() -> list[tuple[str, str, type[APIView]]]:
    """(url name, sample url, view class) for every DRF view the project routes to."""
    found = []
    for route, pattern in _routes(get_resolver().url_patterns):
        view = getattr(pattern.callback, "cls", None)
        if isinstance(view, type) and issubclass(view, APIView):
            url = _sample_url(route)
            assert url is not None, f"{route}: an API view on a regex route, give it a sample"
            found.append((pattern.name or "", url, view))
    return found


def _methods(view: type[APIView]) -> list[str]:
    return [
        m.upper()
        for m in view.http_method_names
        if m not in {"options", "head"} and hasattr(view, m)
    ]


def _reads_tokens(view: type[APIView]) -> bool:
    classes = view.authentication_classes
    return any(issubclass(c, authentication.TokenAuthentication) for c in classes)


@override_settings(GAMENOOK_BENCH_ENDPOINTS=True)
def test_a_play_token_is_refused_everywhere_but_the_allowlist(
    bot_and_key: tuple[User, str],
) -> None:
    """Walks every URL of the project: an endpoint added later is closed to bots until it
    is named in ``PLAY_ALLOWED``."""
    _, key = bot_and_key
    client = token_client(key)
    checked = []
    for name, url, view in _api_views():
        if name in {"stream-events", "table-stream"}:
            # NDJSON streams, open for up to an hour (an ASGI client's, not this one's):
            # tests/live/test_streams.py opens both with a play token.
            assert authentication.scope_allows("play", name, "GET")
            continue
        if not _reads_tokens(view):
            # Register, log in, reset a password...: anonymous; a token means nothing there.
            assert view.authentication_classes == (), (name, view)
            continue
        for method in _methods(view):
            allowed = authentication.scope_allows("play", name, method)
            response = client.generic(method, url, "{}", content_type="application/json")
            # The error as the handler wrote it, whatever the renderer (the docs page: HTML).
            body = getattr(response, "data", None) or {}
            refused = response.status_code == 403 and body.get("code") == "token_scope"
            assert refused is not allowed, (name, method, url, response.status_code, body)
            checked.append((name, method))
    names = {name for name, _ in checked}
    # The walk saw both sides: the account's own endpoints and the tables.
    assert {"me-bots", "me-tokens", "me-password", "table-bots", "me"} <= names
    assert {"tables", "table-actions", "player"} <= names
    assert ("me", "PATCH") in checked and ("me", "GET") in checked


def test_a_play_token_reads_me_but_may_not_change_it(bot_and_key: tuple[User, str]) -> None:
    _, key = bot_and_key
    client = token_client(key)

    assert client.get("/api/v1/me/").status_code == 200
    patch = client.patch("/api/v1/me/", {"notifications": {"digest": True}}, format="json")
    assert_error(patch, 403, "token_scope")
    assert_error(client.get("/api/v1/me/tokens/"), 403, "token_scope")
    assert_error(client.post("/api/v1/auth/logout/"), 403, "token_scope")


def test_an_account_token_and_a_session_are_not_scoped(alice: User, api: Api) -> None:
    assert api(alice).get("/api/v1/me/tokens/").status_code == 200
    session = APIClient()
    session.force_login(alice)
    assert session.get(BOTS).status_code == 200


def test_the_allowlist_names_the_endpoints_of_the_design() -> None:
    expected = {
        "tables", "table", "table-join", "table-leave", "table-start", "table-view",
        "table-actions", "table-concede", "table-log", "table-record", "invitations",
        "invitation-decline", "invitation-withdraw", "table-invitations", "stream-events",
        "table-stream", "me",
        "me-webhook", "me-webhook-rotate", "player", "player-history", "player-versus",
        "leaderboard", "table-ratings", "schema",
    }  # fmt: skip
    assert expected == authentication.PLAY_ALLOWED
    assert not authentication.scope_allows("play", None, "GET")
    assert not authentication.scope_allows("play", "me", "DELETE")
    assert authentication.scope_allows("account", "me-bots", "POST")


def test_a_play_token_opens_a_table_socket(bot_and_key: tuple[User, str]) -> None:
    """The socket's handshake (live.auth) reads the token with no URL: it is not scoped."""
    bot, key = bot_and_key

    found = token_user(f"Token {key}".encode())

    assert found is not None and found[0] == bot
