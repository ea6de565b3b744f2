"""``manage.py ratings_rebuild``: every rating again from the finished games' logs."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from ratings import services
from ratings.rebuild import rebuild


class Command(BaseCommand):
    help = (
        "Rate every finished game again from its log and compare with the live ratings "
        "(the default), or write the rebuilt ones (--write). Games that ended without "
        "being rated (a lost follow-up) are rated first with --rate-missing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--write", action="store_true", help="replace the live ratings by the rebuilt ones"
        )
        parser.add_argument(
            "--rate-missing",
            action="store_true",
            help="first rate every finished game that has no results yet",
        )

    def handle(self, *args: Any, **options: Any) -> None:  # noqa: ARG002 (Django's signature)
        if options["rate_missing"]:
            since = datetime(2000, 1, 1, tzinfo=UTC)
            missing = list(
                services.tables_to_rate(finished_after=since, finished_before=timezone.now())
            )
            for table_id in missing:
                services.table_rate(table_id=table_id)
            self.stdout.write(f"rated {len(missing)} game(s) that had no results")
        report = rebuild(write=options["write"])
        self.stdout.write(
            f"{report.games} games, {report.ratings} ratings: reading the logs "
            f"{report.reading:.2f} s, rating {report.rating:.2f} s, "
            f"{'writing' if options['write'] else 'comparing'} {report.writing:.2f} s"
        )
        if options["write"]:
            self.stdout.write("the live ratings are now the rebuilt ones")
            return
        for line in report.differences[:50]:
            self.stdout.write(line)
        if report.differences:
            raise CommandError(
                f"{len(report.differences)} difference(s) between the live ratings and the log"
            )
        self.stdout.write("the live ratings equal the rebuilt ones")
