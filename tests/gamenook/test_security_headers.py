"""Issue 35 §12: a Content-Security-Policy and a Permissions-Policy on every page,
``Cache-Control: private`` on what belongs to one user, and the API's docs page
served from the site's own files.

The pages must keep working under the policy: none may carry an inline script,
an inline style or an event handler attribute (the admin's included), and a
real Chromium loading them reports no violation.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.models import User
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from rest_framework.test import APIClient

from accounts import services as accounts
from gamenook.middleware import SecurityHeadersMiddleware
from tests.factories import make_user, start_table
from tests.web.browser import browser, new_page

__all__ = ["browser", "new_page"]

pytestmark = pytest.mark.django_db


class Inline(HTMLParser):
    """Whatever a strict policy refuses in a page: inline scripts, styles and handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        for name, _value in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
        if tag == "style":
            self.found.append("<style> block")
        if tag == "script":
            if named.get("src"):
                self.scripts.append(str(named["src"]))
            elif named.get("type") != "application/json":  # data, never run
                self._in_script = True
        if tag == "a" and str(named.get("href", "")).lower().startswith("javascript:"):
            self.found.append("javascript: link")

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.found.append(f"inline <script>: {data.strip()[:80]}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False


def _inline(html: bytes) -> Inline:
    parser = Inline()
    parser.feed(html.decode())
    return parser


def _check_policy(response: Any) -> str:
    policy = str(response.get("Content-Security-Policy", ""))
    for rule in (
        "default-src 'self'",
        "script-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "img-src 'self' data:",
    ):
        assert rule in policy, (rule, policy)
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, policy
    assert "connect-src 'self' ws://testserver" in policy, policy
    assert "camera=()" in str(response.get("Permissions-Policy", ""))
    return policy


def _superuser() -> Client:
    user = User.objects.create_superuser("root", "root@example.com", "correct horse battery")
    client = Client()
    client.force_login(user)
    return client


def _pages() -> tuple[Client, list[str]]:
    """A logged-in player's client and the web pages they see, of every kind."""
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob, allow_watchers=True)
    client = Client()
    client.force_login(alice)
    return client, ["/", "/account/", f"/tables/{table.pk}/", f"/tables/{table.pk}/live/"]


def test_every_page_carries_the_policy_and_no_inline_script_style_or_handler() -> None:
    client, pages = _pages()
    anonymous = Client()
    visits = [(client, page) for page in pages] + [
        (anonymous, page)
        for page in (
            "/login/",
            "/signup/",
            "/password-reset/",
            "/accounts/verify-email/not-a-token/",
            "/accounts/password-reset/x/y/",
            "/notifications/unsubscribe/not-a-token/",
            "/no-such-page/",
        )
    ]
    for visitor, page in visits:
        response = visitor.get(page)
        assert response.status_code < 500, page
        _check_policy(response)
        if response["Content-Type"].startswith("text/html"):
            assert _inline(response.content).found == [], page


def test_the_api_answers_carry_the_policy_and_me_is_never_stored() -> None:
    user = make_user("alice")
    _token, key = accounts.token_create(user=user, name="t")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    me = client.get("/api/v1/me/")
    assert me.status_code == 200
    _check_policy(me)
    cache = me["Cache-Control"]
    assert "private" in cache and "no-store" in cache, cache
    tokens = client.get("/api/v1/me/tokens/")
    assert tokens.status_code == 200 and "no-store" in tokens["Cache-Control"]
    # Any other answer to a signed-in request that says nothing of caching: private.
    tables = client.get("/api/v1/tables/")
    assert tables.status_code == 200
    assert tables["Cache-Control"].startswith("private"), tables["Cache-Control"]
    # Logging in answers a new token: never stored either.
    anonymous = APIClient().post(
        "/api/v1/auth/token/",
        {"username": "alice", "password": "correct horse battery"},
        format="json",
    )
    assert anonymous.status_code == 200 and "token" in anonymous.json()
    assert "no-store" in anonymous["Cache-Control"]


def test_account_pages_are_private_and_never_stored() -> None:
    client, _pages_seen = _pages()
    for page in ("/account/",):
        response = client.get(page)
        assert response.status_code == 200
        cache = response["Cache-Control"]
        assert "private" in cache and "no-store" in cache, (page, cache)
    for page in ("/login/", "/accounts/verify-email/not-a-token/"):
        assert "no-store" in Client().get(page)["Cache-Control"], page


def test_the_admin_s_pages_carry_the_policy_and_run_no_inline_script_or_style() -> None:
    client = _superuser()
    start_table(make_user("alice"), make_user("bob"), allow_watchers=True)
    login = Client().get(reverse("admin:login"))
    _check_policy(login)
    assert _inline(login.content).found == []
    pages = [reverse("admin:index"), reverse("admin:password_change")]
    for model in admin.site._registry:
        meta = model._meta
        pages.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
        pages.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_add"))
        instance = model._default_manager.first()
        if instance is not None:
            pages.append(
                reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[instance.pk])
            )
    assert len(pages) > 10
    for page in pages:
        response = client.get(page)
        assert response.status_code in (200, 403), (page, response.status_code)
        _check_policy(response)
        found = _inline(response.content)
        assert found.found == [], (page, found.found)
        for src in found.scripts:
            assert src.startswith("/") and not src.startswith("//"), (page, src)


def test_the_docs_page_loads_swagger_ui_from_the_site_itself() -> None:
    response = Client().get("/api/v1/docs/")
    assert response.status_code == 200
    policy = _check_policy(response)
    found = _inline(response.content)
    assert found.scripts, "the docs page loads no script"
    for src in found.scripts:
        parts = urlsplit(src)
        assert not parts.scheme and not parts.netloc, src  # same origin: a path
        if parts.path.startswith("/static/"):
            assert finders.find(parts.path.removeprefix("/static/")), src  # the sidecar's
    assert not [f for f in found.found if f.startswith("inline <script>")], found.found
    # The starting script is this view's own answer, not inline.
    script = next(src for src in found.scripts if "script" in urlsplit(src).query)
    started = Client().get(script)
    assert started.status_code == 200 and b"SwaggerUIBundle" in started.content
    # drf-spectacular's own <style> block: allowed by its hash, nothing else inline.
    assert "style-src 'self' 'sha256-" in policy


PAGES_IN_A_BROWSER = [
    "/login/",
    "/signup/",
    "/",
    "/account/",
    "/tables/{table}/",
    "/tables/{table}/replay/",
    "/accounts/verify-email/not-a-token/",
    "/notifications/unsubscribe/not-a-token/",
    "/admin/",
    "/admin/games/table/",
    "/admin/games/table/{table}/change/",
    "/admin/auth/user/{user}/change/",
    "/api/v1/docs/",
]

_LISTEN = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${where}`);
});
"""


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_pages_work_in_chromium_with_no_violation_of_the_policy(
    new_page: Any, live_server: Any
) -> None:
    root = User.objects.create_superuser("root", "root@example.com", "correct horse battery")
    alice = make_user("alice")
    table = start_table(root, alice, allow_watchers=True)
    page = new_page()
    page.context.add_init_script(_LISTEN)
    page.goto("/admin/login/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "correct horse battery")
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")
    seen: dict[str, list[str]] = {}
    for path in PAGES_IN_A_BROWSER:
        url = path.format(table=table.pk, user=alice.pk)
        page.goto(url)
        page.wait_for_load_state("networkidle")
        if url == "/api/v1/docs/":
            page.wait_for_selector(".swagger-ui .opblock", timeout=20_000)  # it rendered
        seen[url] = page.evaluate("window.__violations")
    assert {url: v for url, v in seen.items() if v} == {}
    assert page.js_errors == []
    # The listener hears a violation when there is one: an injected inline style.
    page.evaluate("document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">x</p>')")
    page.wait_for_function("() => window.__violations.length > 0")
    assert "style-src" in page.evaluate("window.__violations")[0]


def test_a_signed_in_answer_no_view_read_the_user_of_is_private_under_asgi() -> None:
    """Under an ASGI server the headers are added on the event loop, where reading the
    lazy ``request.user`` queries the session and Django refuses it (a 500 that
    schemathesis found for an URL under /api/ that no view serves). The middleware is
    driven on an event loop of its own, as daphne drives it, with the user left lazy
    as Django's AuthenticationMiddleware leaves it."""
    request = RequestFactory().post("/api/v1/tables/x/bots/")
    request.COOKIES[settings.SESSION_COOKIE_NAME] = "a session"
    request.user = SimpleLazyObject(lambda: User.objects.first())  # type: ignore[assignment]

    async def view(request: HttpRequest) -> HttpResponse:
        return HttpResponse(status=404)

    middleware = SecurityHeadersMiddleware(view)
    # A thread of its own: a browser test of the same run may leave an event loop in this one.
    with ThreadPoolExecutor(1) as thread:
        answer = thread.submit(asyncio.run, middleware(request)).result()
    assert answer.status_code == 404
    assert answer["Cache-Control"] == "private, no-cache"
