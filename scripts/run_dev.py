"""Run Gamenook on one machine: migrate, then the web server, a Celery worker and beat.

``make run`` calls this. With nothing configured the broker is kombu's
filesystem transport (files under ``.broker/``) and the database SQLite, so
no server is needed; set ``CELERY_BROKER_URL`` and ``DATABASE_URL`` to use
Redis and PostgreSQL instead. Ctrl-C stops all three.

    .venv/bin/python scripts/run_dev.py [--port 8000]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.setdefault("DJANGO_SETTINGS_MODULE", "gamenook.settings.local")
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
        "web": [python, "manage.py", "runserver", f"127.0.0.1:{args.port}"],
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
