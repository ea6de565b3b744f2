"""Issue 35 §11, against a real daphne: unknown sockets get 404, large bodies 413 at once.

A WebSocket handshake to a path no route serves answered 500 with a traceback
(Channels' ``URLRouter`` raises ``ValueError``), and daphne read a request's
whole body, 200 MB of it, before the application answered 413. Each test here
starts ``daphne gamenook.asgi:application`` in a process of its own (what
answers the client is daphne's behaviour, not only the application's) and
talks to it over a plain socket on the loopback.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from channels.testing import WebsocketCommunicator

from gamenook.asgi import application

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
#: Django's DATA_UPLOAD_MAX_MEMORY_SIZE, which the test settings leave at its default.
LIMIT = 2_621_440
#: What the client offers to send: far more than the limit.
OFFERED = 200 * 2**20
#: A client that reads while it sends stops at the answer; it never sends more than this.
MOST_SENT = 64 * 2**20
BLOCK = 64 * 1024
#: The close code of a refused unknown path (gamenook.asgi.NO_SUCH_SOCKET).
NO_SUCH_SOCKET = 4404


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Daphne:
    def __init__(self, tmp_path: Path) -> None:
        self.port = _free_port()
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "gamenook.settings.test",
            # Nothing here reads the database; a file of its own, whatever DATABASE_URL says.
            "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
            "GAMENOOK_TEST_CHANNEL_LAYER_URL": "",
            "PYTHONUNBUFFERED": "1",
        }
        self.log = (tmp_path / "daphne.log").open("wb")
        command = [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(self.port)]
        self.proc = subprocess.Popen(
            [*command, "gamenook.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, (tmp_path / "daphne.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("daphne did not listen")

    def peak_memory(self) -> int:
        """The process's peak resident memory so far, in bytes (Linux's VmHWM)."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmHWM")

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


@pytest.fixture
def daphne(tmp_path: Path) -> Iterator[Daphne]:
    if not Path("/proc/self/status").exists():
        pytest.skip("reads the server's memory from /proc")
    server = Daphne(tmp_path)
    yield server
    server.stop()


def _answer(sock: socket.socket, seconds: float = 30.0) -> bytes:
    """What the server sends until it closes the connection (or ``seconds`` pass)."""
    sock.settimeout(seconds)
    got = b""
    try:
        while chunk := sock.recv(65536):
            got += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    return got


def _status(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1.1 "), answer[:200]
    return int(answer.split(b" ", 2)[1])


def _handshake(daphne: Daphne, path: str) -> bytes:
    sock = daphne.connect()
    sock.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    answer = _answer(sock, 20)
    sock.close()
    return answer


@pytest.mark.parametrize("path", ["/ws/tables/abc/", "/ws/admin/", "/ws/", "/ws/tables/1/x/"])
def test_a_handshake_to_a_path_no_socket_serves_gets_404_from_daphne(
    daphne: Daphne, path: str
) -> None:
    answer = _handshake(daphne, path)
    assert _status(answer) == 404, answer[:300]
    log = daphne.log.name
    daphne.stop()
    assert "Traceback" not in Path(log).read_text(), Path(log).read_text()[-3000:]


def test_an_unknown_path_is_refused_before_the_origin_check_and_the_credentials() -> None:
    """Under a server without the denial extension (Channels' communicator): closed at
    once, with the code that says no such socket, whatever the Origin says."""

    async def scenario() -> tuple[bool, int | str | None]:
        headers = [(b"origin", b"http://evil.example")]
        comm = WebsocketCommunicator(application, "/ws/admin/", headers=headers)
        connected, code = await comm.connect(timeout=10)
        return connected, code

    from asgiref.sync import async_to_sync

    assert async_to_sync(scenario)() == (False, NO_SUCH_SOCKET)


def _send_body(daphne: Daphne, head: str, chunked: bool) -> tuple[int, bytes]:
    """Send ``head`` and a body of ``OFFERED`` bytes, reading while sending, as curl does.

    Returns how many body bytes the server let through before it answered or
    closed, and its answer.
    """
    sock = daphne.connect()
    sock.sendall(head.encode())
    block = b"x" * BLOCK
    if chunked:
        block = f"{BLOCK:x}\r\n".encode() + block + b"\r\n"
    sent = 0
    answer = b""
    try:
        while sent < min(OFFERED, MOST_SENT):
            readable, writable, _ = select.select([sock], [sock], [], 10)
            if readable:
                break
            if writable:
                sock.sendall(block)
                sent += BLOCK
    except (BrokenPipeError, ConnectionResetError):
        pass
    if sent >= OFFERED and chunked:
        sock.sendall(b"0\r\n\r\n")
    answer = _answer(sock)
    sock.close()
    return sent, answer


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_daphne_refuses_a_body_over_the_limit_before_holding_it(
    daphne: Daphne, chunked: bool
) -> None:
    before = daphne.peak_memory()
    length = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {OFFERED}"
    head = (
        f"POST /api/v1/tables/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\n{length}\r\n\r\n"
    )
    sent, answer = _send_body(daphne, head, chunked)
    assert _status(answer) == 413, answer[:300]
    body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert body["code"] == "request_too_large"  # the API's error shape under /api/
    # The server answered long before the body ended: it took the limit and what the
    # sockets' buffers hold, not the 200 MB offered.
    assert sent < 32 * 2**20, f"{sent:,} bytes sent before the answer"
    grown = daphne.peak_memory() - before
    assert grown < 32 * 2**20, f"daphne's peak memory grew by {grown:,} bytes"
    daphne.stop()
    assert "Traceback" not in Path(daphne.log.name).read_text()


def test_a_body_under_the_limit_still_reaches_the_application(daphne: Daphne) -> None:
    body = b"[" + b"1," * (LIMIT // 4) + b"1]"
    assert len(body) < LIMIT
    sock = daphne.connect()
    sock.sendall(
        b"POST /api/v1/no-such-thing/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nConnection: close\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    answer = _answer(sock)
    sock.close()
    assert _status(answer) == 404, answer[:300]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["code"] == "not_found"


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("multipart/form-data; boundary=zzz", b"garbage"),
        ("multipart/form-data", b"garbage"),
        ('multipart/form-data; boundary="', b"--\r\n\r\n"),
    ],
)
def test_an_invalid_multipart_body_under_the_api_gets_the_api_s_error_shape(
    daphne: Daphne, content_type: str, body: bytes
) -> None:
    """Twisted parsed multipart bodies itself and answered a bare 400 with no body."""
    sock = daphne.connect()
    sock.sendall(
        b"POST /api/v1/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: " + content_type.encode() + b"\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    answer = _answer(sock)
    sock.close()
    status = _status(answer)
    assert 400 <= status < 500, answer[:300]
    error = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert set(error) == {"code", "detail", "fields"}, error
