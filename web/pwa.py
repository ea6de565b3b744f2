"""The installable web app: its manifest, its service worker, and push on the account page.

The service worker is served at ``/sw.js`` so that its scope is the whole site
(a worker controls only the paths under its own); the manifest at
``/manifest.webmanifest``. Both are built once per process from the static
files, with the static URLs of the icons written in.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.views.decorators.http import require_GET

from games.errors import ServiceError
from notifications import services as notifications

STATIC = Path(__file__).resolve().parent / "static" / "web"
#: The site's accent blue (gamenook.css ``--accent``), the paper behind pages (``--paper``).
THEME_COLOUR = "#2451a6"
BACKGROUND = "#fbfaf7"


@functools.cache
def _worker_source() -> str:
    source = (STATIC / "sw.js").read_text()
    return source.replace('"__GAMENOOK_ICON__"', json.dumps(static("web/icons/icon-192.png")))


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:  # noqa: ARG001
    """``/sw.js``: a script of the site's own, at the root so its scope is ``/``."""
    response = HttpResponse(_worker_source(), content_type="text/javascript; charset=utf-8")
    # Browsers look for a new worker on each navigation; no cache keeps an old one alive.
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


def manifest_data() -> dict[str, Any]:
    """The web app manifest: the name, the icons, how it opens."""
    icon = "web/icons/icon-{}.png"
    return {
        "name": "Gamenook",
        "short_name": "Gamenook",
        "description": "Card games by correspondence and in real time.",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND,
        "icons": [
            {"src": static(icon.format(192)), "sizes": "192x192", "type": "image/png"},
            {"src": static(icon.format(512)), "sizes": "512x512", "type": "image/png"},
            {
                "src": static(icon.format("maskable-512")),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
    }


@require_GET
def manifest(request: HttpRequest) -> HttpResponse:  # noqa: ARG001
    """``/manifest.webmanifest``."""
    return JsonResponse(manifest_data(), content_type="application/manifest+json")


def push_context(user: User) -> dict[str, Any]:
    """What the account page's "Push to this device" section shows."""
    return {
        "key": notifications.push_public_key(),
        "devices": notifications.push_subscriptions_of(user=user),
        "max_devices": notifications.push_max_devices(),
    }


def push_remove(request: HttpRequest, user: User, forms: dict[str, Any]) -> str | None:  # noqa: ARG001
    """The account page's "Remove" of one push device (a form: it works without script)."""
    device = request.POST.get("device", "")
    if not device.isdigit() or len(device) > 18:  # noqa: PLR2004 (a bigint's digits)
        return "No such push device of yours."
    try:
        notifications.push_subscription_delete(user=user, subscription_id=int(device))
    except ServiceError as error:
        return error.message
    return "Push is off for that device."
