"""Issue 40 in the browser: the host invites a player from the table page and withdraws
the invitation, each by clicking, the list redrawn by the page's script."""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from games.models import Invitation
from tests.web.browser import browser, new_page, screenshot
from tests.web.conftest import make_user
from tests.web.test_browser import log_in

__all__ = ["browser", "new_page", "screenshot"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, reset_sequences=True)]


def test_the_host_invites_and_withdraws_by_clicking(new_page: Any, screenshot: Any) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = services.table_create(host=alice, seat_count=3)
    host = new_page()
    log_in(host, alice)
    host.goto(f"/tables/{table.pk}/")
    host.get_by_label("Invite a player or a bot").fill("bob")
    host.get_by_role("button", name="Invite", exact=True).click()
    invited = host.locator('[data-invited="bob"]')
    invited.wait_for()
    screenshot(host, "table-lobby-invited")
    assert Invitation.objects.get(table=table, user=bob).status == "pending"

    host.get_by_role("button", name="Withdraw the invitation to bob").click()
    invited.wait_for(state="detached")
    assert Invitation.objects.get(table=table, user=bob).status == "withdrawn"
    assert host.locator("[data-invitations]").count() == 0
