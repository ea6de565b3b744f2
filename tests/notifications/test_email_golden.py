"""Every message is its copy in ``email_golden.json``, byte for byte (see ``email_corpus``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from notifications.models import OutboxMessage

from .email_corpus import CASES, GOLDEN, Case, compose, fixed_settings

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
