"""Run Gamenook on one machine: migrate, then the web server, a Celery worker and beat.

``make run`` calls this. With nothing configured the broker is kombu's
filesystem transport (files under ``.broker/``) and the database SQLite, so
no server is needed; set ``CELERY_BROKER_URL`` and ``DATABASE_URL`` to use
Redis and PostgreSQL instead. Ctrl-C stops all three.

    .venv/bin/python scripts/run_dev.py [--port 8000]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
#: The VAPID key pair of web push, made on the first start (git-ignored, like db.sqlite3).
VAPID_FILE = ROOT / ".vapid.json"


def vapid_keys(path: Path = VAPID_FILE) -> dict[str, str]:
    """The development VAPID key pair: read from ``path``, made and written there the first time.

    The public key is base64url of the uncompressed P-256 point (the browser's
    applicationServerKey), the private key base64url of the 32-byte scalar (as
    py-vapid's ``Vapid.from_string`` takes it). The file is readable by its owner only.
    """
    if path.exists():
        keys: dict[str, str] = json.loads(path.read_text())
        return keys
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415 (the venv's)
    from cryptography.hazmat.primitives.asymmetric import ec  # noqa: PLC0415

    def b64url(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")

    private = ec.generate_private_key(ec.SECP256R1())
    point = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    keys = {
        "GAMENOOK_VAPID_PUBLIC_KEY": b64url(point),
        "GAMENOOK_VAPID_PRIVATE_KEY": b64url(private.private_numbers().private_value.to_bytes(32)),
    }
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        json.dump(keys, file, indent=1)
    print(f"web push: a new VAPID key pair is in {path.name} (kept for later starts)")
    return keys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--noreload",
        action="store_true",
        help="the web server does not restart when a source file changes (scripts use it)",
    )
    args = parser.parse_args()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.setdefault("DJANGO_SETTINGS_MODULE", "gamenook.settings.local")
    # Web push needs a VAPID key pair: the environment's if it sets both, else this machine's.
    if not (env.get("GAMENOOK_VAPID_PUBLIC_KEY") and env.get("GAMENOOK_VAPID_PRIVATE_KEY")):
        env.update(vapid_keys())
    # The real-time sweep is a safety net for timer jobs a broker lost; on one machine
    # with one worker it has next to nothing to catch, and every five seconds it would
    # fill the console with its log lines. The timers themselves fire at their instant.
    env.setdefault("GAMENOOK_REALTIME_SWEEP_SECONDS", "60")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # Celery warns at length that a root worker could run a pickled payload as root.
        # Ours accepts JSON only (Celery's default), so on a developer's machine the
        # risk is not there; the warning is replaced by this one line.
        print("running as root: Celery's warning about it is hidden (tasks are JSON only)")
        quiet = "ignore:You're running the worker with superuser privileges"
        env["PYTHONWARNINGS"] = ",".join(filter(None, [env.get("PYTHONWARNINGS"), quiet]))
    python, celery = sys.executable, str(BIN / "celery")
    subprocess.run([python, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True)
    # SQLite takes one writer at a time: one worker process is plenty for a developer.
    worker = [celery, "-A", "gamenook", "worker", "-l", "info", "--concurrency", "1"]
    if env.get("DATABASE_URL", "sqlite").startswith("sqlite"):
        worker += ["--pool", "solo"]
    commands = {
        # daphne's runserver (gamenook.settings.local): HTTP and WebSockets, static files too.
        "web": [
            python,
            "manage.py",
            "runserver",
            f"127.0.0.1:{args.port}",
            *(["--noreload"] if args.noreload else []),
        ],
        "worker": [*worker, "--without-mingle", "--without-gossip"],
        "beat": [celery, "-A", "gamenook", "beat", "-l", "info"],
    }
    # A SIGTERM (kill, a process manager) stops the three like Ctrl-C does.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    procs = {name: subprocess.Popen(cmd, cwd=ROOT, env=env) for name, cmd in commands.items()}
    print(f"web, worker and beat started; http://127.0.0.1:{args.port}/ (Ctrl-C stops all)")
    print("e-mail: one line each here, the whole message under .mail/ (open the .eml files)")
    status = 0
    try:
        while status == 0:
            for name, proc in procs.items():
                if proc.poll() is not None:
                    print(f"{name} exited with {proc.returncode}; stopping the others")
                    status = proc.returncode or 1
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    return status


if __name__ == "__main__":
    sys.exit(main())
