"""Usernames: one rule for the API, the web client and ``services.user_register``.

A name is taken as its NFKC form (``ＡＬＩＣＥ`` is ``ALICE``, ``ﬁ`` is ``fi``),
and that form must be

- at most 150 characters, of letters, digits and ``. @ + - _`` (Django's own
  username rule, which the API always had), so no markup and no spaces;
- free of control, format and invisible characters: Unicode's categories Cc,
  Cf (the zero-width space ``U+200B``, the right-to-left override
  ``U+202E``), Co, Cs, Cn, Zl, Zp and every space, named for what they are;
- of one script, or of one of the mixes a language writes with (Unicode's
  "highly restrictive" profile, UTS #39 §5.2): Latin with Han and the
  Japanese kana, with Han and Bopomofo, or with Han and Hangul. ``pаypal``
  with a Cyrillic ``а`` is refused; ``山田taro`` is not.

Two names are the same name when their ``name_key`` is: NFKC, then the
Cyrillic, Greek and Latin letters that are drawn like a plain Latin letter
(``а``, ``ο``, ``Α``, ``ı``, small capitals) read as that letter, then
case-folded. So ``Alice``, ``ＡＬＩＣＥ``, ``alice`` and an all-Cyrillic
``АLІСЕ`` are one name. The table of look-alikes is short on purpose (the
letters of confusables.txt that look exactly like an ASCII letter in these
three scripts); look-alikes within ASCII (``l``/``I``/``1``, ``rn``/``m``)
stay different names.

The script of a character is the first word of its Unicode name
(``CYRILLIC SMALL LETTER A``), which the standard library knows; the few
names that do not start with their script (``CJK UNIFIED IDEOGRAPH``, the
Arabic-Indic digits) are mapped. A name whose first word is no script
(``MODIFIER LETTER ...``) counts as a script of its own, which refuses it
next to any other.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible

MAX_LENGTH = 150

#: Unicode categories a name may not hold: control, format (zero-width, bidirectional
#: overrides), private use, surrogates, unassigned, line and paragraph separators, spaces.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp", "Zs"})

#: The scripts that may share a name (UTS #39's "highly restrictive" level); any
#: single script may stand alone.
SCRIPT_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)

#: First words of Unicode names that are not the script's own name.
_SCRIPT_OF_WORD = {
    "CJK": "HAN",
    "IDEOGRAPHIC": "HAN",
    "KATAKANA-HIRAGANA": "KATAKANA",
    "ARABIC-INDIC": "ARABIC",
    "EXTENDED": "ARABIC",  # EXTENDED ARABIC-INDIC DIGIT ...
}

#: Letters drawn exactly like a plain Latin letter, and that letter (for ``name_key``).
_LOOK_ALIKES = str.maketrans(
    # Cyrillic
    "аеһіјоԛрсѕԝхуԁӏ"
    "АВЕЅІЈКМНОРԚСТԜХҮӀ"
    # Greek
    "αιορνυγ"
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"
    # Latin: dotless i and j, IPA letters, small capitals
    "ıȷɑɡᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ",
    "aehijoqpcswxydlABESIJKMHOPQCTWXYlaiopvuyABEZHIKMNOPTYXijagabcdeghijklmnoprstuvwyz",
)

_ALLOWED = re.compile(UnicodeUsernameValidator.regex)


def normalize_username(name: str) -> str:
    """The form a name is kept in: NFKC (``ＡＬＩＣＥ`` -> ``ALICE``)."""
    return unicodedata.normalize("NFKC", name)


def name_key(name: str) -> str:
    """What two names are compared by: NFKC, look-alike letters read as Latin, case-folded.

    >>> name_key("ＡＬＩＣＥ") == name_key("alice") == name_key("АLІСЕ")  # Cyrillic А, І, С, Е
    True
    """
    folded = normalize_username(name).translate(_LOOK_ALIKES).casefold()
    return unicodedata.normalize("NFKC", folded)


def script_of(char: str) -> str | None:
    """The script ``char`` is written in, or None for digits 0-9 and ``. @ + - _``."""
    if char.isascii() and not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    word = name.split(" ", 1)[0] if name else f"U+{ord(char):04X}"
    return _SCRIPT_OF_WORD.get(word, word)


def scripts_of(name: str) -> frozenset[str]:
    """Every script the characters of ``name`` are written in."""
    return frozenset(s for s in map(script_of, name) if s is not None)


def mixes_scripts(name: str) -> bool:
    """True when ``name`` mixes scripts that no language writes together."""
    scripts = scripts_of(name)
    return len(scripts) > 1 and not any(scripts <= mix for mix in SCRIPT_MIXES)


def username_problems(name: str) -> list[tuple[str, str]]:
    """Why the (already normalised) ``name`` is refused, as (code, sentence) pairs."""
    if any(unicodedata.category(char) in REFUSED_CATEGORIES for char in name):
        return [
            (
                "invisible",
                "A username may not hold spaces, or invisible, control or direction characters.",
            )
        ]
    problems = []
    if not name:
        problems.append(("required", "Choose a username."))
    elif not _ALLOWED.match(name):
        problems.append(("invalid", str(UnicodeUsernameValidator.message)))
    if len(name) > MAX_LENGTH:
        problems.append(("max_length", f"A username has at most {MAX_LENGTH} characters."))
    if mixes_scripts(name):
        scripts = ", ".join(sorted(s.title() for s in scripts_of(name)))
        problems.append(
            (
                "mixed_scripts",
                f"A username is written in one script; this one mixes {scripts}.",
            )
        )
    return problems


@deconstructible
class UsernameValidator(UnicodeUsernameValidator):
    """Django's username rule, checked on the NFKC form, and the rules of this module.

    A ``RegexValidator`` still, so the OpenAPI schema states its pattern.
    """

    def __call__(self, value: Any) -> None:
        problems = username_problems(normalize_username(str(value)))
        if problems:
            raise ValidationError([ValidationError(text, code=code) for code, text in problems])
