"""A push service of the tests' own, and a browser's side of web push, for real.

``PushService`` is an HTTP server in a thread that records every POST (its
path, headers and body) and answers with the status the test sets, as a push
service would (201, or 410 for a device gone, 500 for trouble). ``Device`` is
what a browser holds for one subscription: an ECDH P-256 key pair and a
16-byte auth secret, made as a browser makes them; it decrypts a recorded
body with http_ece (RFC 8188 aes128gcm, RFC 8291 keys), so a test reads the
payload exactly as the browser would. ``vapid_pair`` makes the server's VAPID
keys in the settings' formats, and ``vapid_verified`` checks an Authorization
header against the public key.
"""

from __future__ import annotations

import base64
import json
import os
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _point(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )


def vapid_pair() -> tuple[str, str]:
    """(public, private): base64url of the 65-byte point and of the 32-byte scalar."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(_point(key)), b64url(key.private_numbers().private_value.to_bytes(32))


@dataclass
class Posted:
    """One POST the push service received."""

    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Device:
    """A browser's keys for one subscription: the halves ``toJSON()`` shows, and the secret."""

    private_key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def keys(self) -> dict[str, str]:
        return {"p256dh": b64url(_point(self.private_key)), "auth": b64url(self.auth)}

    def decrypt(self, posted: Posted) -> dict[str, Any]:
        """The JSON payload of a push, decrypted with this device's private key and secret."""
        assert posted.headers.get("content-encoding") == "aes128gcm", posted.headers
        plain = http_ece.decrypt(
            posted.body, private_key=self.private_key, auth_secret=self.auth, version="aes128gcm"
        )
        payload: dict[str, Any] = json.loads(plain)
        return payload


def vapid_verified(authorization: str, public_key: str) -> dict[str, Any]:
    """The JWT claims of a ``vapid t=...,k=...`` header signed by ``public_key``'s pair.

    Fails the test when the header names another key or its signature does not verify.
    """
    scheme, _, params = authorization.partition(" ")
    assert scheme == "vapid", authorization
    parts = dict(part.split("=", 1) for part in params.split(","))
    assert parts["k"] == public_key, "signed with another key than the settings' one"
    assert Vapid02.verify(authorization), "the VAPID signature does not verify"
    claims: dict[str, Any] = json.loads(unb64url(parts["t"].split(".")[1]))
    return claims


class PushService:
    """An HTTP server in a thread: records each POST, answers ``status`` (201 by default)."""

    def __init__(self) -> None:
        self.posted: list[Posted] = []
        self.status = 201
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                headers = {name.lower(): value for name, value in self.headers.items()}
                with service.lock:
                    service.posted.append(Posted(self.path, headers, body))
                    status = service.status
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # quiet

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def endpoint(self, name: str) -> str:
        return f"{self.origin}/push/{name}"

    def start(self) -> PushService:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
