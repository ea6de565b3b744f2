"""The installable web app: the manifest, its icons, the service worker, the account page's push.

The browser side (the worker registered, a push shown) is in ``test_browser_push.py``.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client, override_settings

from notifications import services
from scripts.make_icons import draw, png
from tests.notifications.push_service import Device, vapid_pair
from tests.web.conftest import logged_in, make_user

pytestmark = pytest.mark.django_db

PUBLIC, PRIVATE = vapid_pair()


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_names_the_app_and_its_icons_which_exist_at_their_sizes() -> None:
    response = Client().get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["start_url"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"] == "#2451a6"
    sizes = {(icon["sizes"], icon.get("purpose", "any")) for icon in manifest["icons"]}
    assert sizes == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    for icon in manifest["icons"]:
        name = icon["src"].removeprefix("/static/")
        found = finders.find(name)
        assert found, icon["src"]
        side = int(icon["sizes"].split("x")[0])
        assert png_size(Path(str(found)).read_bytes()) == (side, side)


def test_the_committed_icons_are_what_the_script_draws() -> None:
    for name, size, maskable in (
        ("icon-192.png", 192, False),
        ("icon-maskable-512.png", 512, True),
    ):
        found = finders.find(f"web/icons/{name}")
        committed = Path(str(found)).read_bytes()
        drawn = png(draw(size, maskable=maskable))
        # One IDAT chunk between the header (41 bytes to its data) and its CRC and IEND (16).
        # Compare the pixels, not the bytes: another zlib may compress them differently.
        assert zlib.decompress(committed[41:-16]) == zlib.decompress(drawn[41:-16])


def test_every_page_links_the_manifest() -> None:
    page = Client().get("/login/").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page


def test_the_service_worker_is_served_at_the_root_as_a_script_with_the_icon_written_in() -> None:
    response = Client().get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert response["Cache-Control"] == "no-cache"
    source = response.content.decode()
    assert 'const ICON = "/static/web/icons/icon-192.png";' in source
    assert "renotify: true" in source
    assert Client().post("/sw.js").status_code == 405


def test_the_account_page_says_when_push_is_off_and_loads_no_script_then() -> None:
    page = logged_in(make_user("hana")).get("/account/").content.decode()
    assert "Push is off on this server" in page
    assert "push.js" not in page


@override_settings(GAMENOOK_VAPID_PUBLIC_KEY=PUBLIC, GAMENOOK_VAPID_PRIVATE_KEY=PRIVATE)
def test_with_keys_the_account_page_offers_push_with_the_public_key() -> None:
    page = logged_in(make_user("ines")).get("/account/").content.decode()
    assert f'data-key="{PUBLIC}"' in page
    assert 'data-api="/api/v1/me/push-devices/"' in page
    assert '<script src="/static/web/push.js" defer></script>' in page
    assert "Push is off" not in page


def test_a_device_is_removed_from_the_account_page_only_by_its_owner() -> None:
    ines, joe = make_user("ines"), make_user("joe")
    with override_settings(GAMENOOK_VAPID_PUBLIC_KEY=PUBLIC, GAMENOOK_VAPID_PRIVATE_KEY=PRIVATE):
        saved = services.push_subscription_save(
            user=ines, endpoint="https://push.example.com/1", **Device().keys
        )
    device = saved.subscription.pk
    joes = logged_in(joe).post("/account/", {"form": "push_remove", "device": str(device)})
    assert joes.status_code == 302
    assert services.push_subscriptions_of(user=ines) != []
    for bad in ("", "x", "9" * 40):
        logged_in(ines).post("/account/", {"form": "push_remove", "device": bad})
    assert services.push_subscriptions_of(user=ines) != []
    client = logged_in(ines)
    assert "push.example.com" not in client.get("/account/").content.decode()  # never shown
    client.post("/account/", {"form": "push_remove", "device": str(device)})
    assert services.push_subscriptions_of(user=ines) == []
