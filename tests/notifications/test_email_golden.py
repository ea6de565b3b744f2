"""Every message is its copy in ``email_golden.json``, byte for byte (see ``email_corpus``)."""

from __future__ import annotations

import json
from typing import Any

import jinja2
import pytest

from notifications import outbox
from notifications.models import OutboxMessage

from .email_corpus import ACCOUNT_TEMPLATES, CASES, GOLDEN, Case, compose, fixed_settings

GOLDEN_MESSAGES: dict[str, dict[str, Any]] = json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_the_corpus_is_the_golden_file_and_has_every_kind_of_mail() -> None:
    assert sorted(case.name for case in CASES) == sorted(GOLDEN_MESSAGES)
    assert {case.kind for case in CASES} == set(OutboxMessage.Kind.values)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_message_is_its_golden_copy_byte_for_byte(case: Case) -> None:
    with fixed_settings():
        message = compose(case)
    golden = GOLDEN_MESSAGES[case.name]
    for part in ("subject", "text", "html", "headers"):
        assert message.get(part) == golden.get(part), part


#: The corpus's messages whose context leaves variables out on purpose (as the warm-up of
#: scripts/bench_sweep.py does): they print nothing there, as under Django's templates.
LEAVES_OUT = {
    "your_turn-missing-deadline-and-hours",
    "reminder-missing-deadline-and-hours",
    "timeout-missing-left",
}


@pytest.mark.parametrize(
    "case",
    [case for case in CASES if case.kind not in ACCOUNT_TEMPLATES],
    ids=[case.name for case in CASES if case.kind not in ACCOUNT_TEMPLATES],
)
def test_every_name_a_template_prints_is_in_its_context(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With StrictUndefined a misspelled name raises; production prints nothing for it."""
    strict = outbox.mail_environment(jinja2.StrictUndefined)
    monkeypatch.setattr(outbox, "mail_environment", lambda: strict)
    with fixed_settings():
        if case.name in LEAVES_OUT:
            with pytest.raises(jinja2.UndefinedError):
                compose(case)
        else:
            assert compose(case) == GOLDEN_MESSAGES[case.name]


def test_a_misspelled_name_prints_nothing_in_production_and_raises_in_the_tests() -> None:
    template = "Hello {{ usr.get_username() }}{{ tabel.id }}{{ hours|pluralize }}{{ at|minute }}."
    assert outbox.mail_environment().from_string(template).render() == "Hello ."
    with pytest.raises(jinja2.UndefinedError):
        outbox.mail_environment(jinja2.StrictUndefined).from_string(template).render()
