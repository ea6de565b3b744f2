"""Forms of the web client. They check the shape of the input; the services check the rest."""

from __future__ import annotations

import zoneinfo
from datetime import datetime
from typing import Any

from django import forms

from accounts.validators import MAX_LENGTH, UsernameValidator
from games import conf as games_conf
from games import selectors
from notifications import services as notifications

from .present import choice_words

_CHOICES = selectors.table_choices()


class Form(forms.Form):
    """Labels without Django's trailing colon: the page lays them out itself."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class SignUpForm(Form):
    # The API's rule, checked here to answer sooner; ``user_register`` checks it again.
    username = forms.CharField(
        max_length=MAX_LENGTH,
        validators=[UsernameValidator()],
        help_text="Letters (of one alphabet), digits and . @ + - _ only.",
        widget=forms.TextInput(attrs={"autocomplete": "username"}),
    )
    email = forms.EmailField(widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    password = forms.CharField(
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}), strip=False
    )
    password_again = forms.CharField(
        label="Password again",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        strip=False,
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("password") and data.get("password") != data.get("password_again"):
            self.add_error("password_again", "The two passwords differ.")
        return data


#: How a table plays: turn by turn (hours a turn) or in real time (a move timer).
TURN_BY_TURN, REAL_TIME = "turn_by_turn", "real_time"
MODE_CHOICES = [(TURN_BY_TURN, "Turn by turn"), (REAL_TIME, "Real time")]
#: The move timers, as the host reads them: "Fast: 15 seconds a move".
MOVE_TIMER_CHOICES = [
    (name, f"{name.capitalize()}: {seconds} seconds a move")
    for name, seconds in _CHOICES["move_timers"]
]
#: The reliability a host may ask of the players who join (percent; 0: anyone).
MIN_RELIABILITY_CHOICES = [(0, "Anyone"), *((n, f"{n}%") for n in (70, 80, 90, 95))]
#: The games a table can be opened for, each with its options (``OptionSpec``s), in the
#: registry's order: the first is the default.
GAMES: list[dict[str, Any]] = _CHOICES["games"]


def option_field_name(game: str, option: str) -> str:
    """The form field of ``game``'s ``option``: each game's options are fields of their own.

    >>> option_field_name("wildcards", "stacking")
    'wildcards-stacking'
    """
    return f"{game}-{option}"


def _option_field(spec: Any) -> forms.Field:
    """The form field of one ``OptionSpec``: a checkbox, a select, or a number.

    Never required by the field itself: the other game's fields are not sent when
    the page's script disables their fieldset, and ``TableForm.clean`` asks for the
    chosen game's.
    """
    common: dict[str, Any] = {"label": spec.label, "help_text": spec.sentence, "required": False}
    if spec.kind == "bool":
        return forms.BooleanField(initial=spec.default, **common)
    if spec.kind == "choice":
        return forms.ChoiceField(
            choices=[(c, choice_words(c).capitalize()) for c in spec.choices],
            initial=spec.default,
            **common,
        )
    if spec.choices:
        return forms.TypedChoiceField(
            choices=[(c, str(c)) for c in spec.choices], coerce=int, initial=spec.default, **common
        )
    return forms.IntegerField(
        min_value=spec.minimum,
        max_value=spec.maximum,
        initial=spec.default,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
        **common,
    )


#: The new-table form's "Bot accounts" choice, one sentence each (``Table.bot_accounts``).
BOT_ACCOUNT_CHOICES = [
    ("refused", "Refused: only people take a seat at this table."),
    ("invited", "Invited only: a bot account sits here only if you invite it by name."),
    ("welcome", "Welcome: any bot account may take a free seat, as a person may."),
]


class TableForm(Form):
    """The new-table form: the game and its options, each mode's own fields, the
    other game's and the other mode's ignored.

    The page disables the fieldsets of the game and the mode not chosen (their
    fields are not sent); without the script all show and ``game`` and ``mode``
    decide. Every option field comes from the game's ``OptionSpec``s; whether
    the options make a table is ``games.services.table_create``'s to say.
    """

    seat_count = forms.TypedChoiceField(
        label="Seats",
        choices=[(n, str(n)) for n in _CHOICES["seat_counts"]],
        coerce=int,
        initial=3,
    )
    game = forms.ChoiceField(
        label="Game",
        choices=[(g["id"], g["name"]) for g in GAMES],
        initial=GAMES[0]["id"],
        widget=forms.RadioSelect,
        required=False,  # as the API: the first game unless asked
    )
    mode = forms.ChoiceField(
        label="How the table plays",
        choices=MODE_CHOICES,
        initial=TURN_BY_TURN,
        widget=forms.RadioSelect,
        required=False,  # as the API: turn by turn unless asked
    )
    turn_hours = forms.TypedChoiceField(
        label="Time for each turn",
        choices=[(h, f"{h} hours") for h in _CHOICES["turn_hours"]],
        coerce=int,
        initial=24,
        required=False,
    )
    timeout_policy = forms.ChoiceField(
        label="When a turn's time runs out",
        choices=_CHOICES["timeout_policies"],
        initial="bot",
        required=False,
    )
    autopilot = forms.BooleanField(
        label="Away players' turns are played at once by their autopilot",
        help_text="A player who marked themselves away has the bot they chose play their "
        "turns at once. Off: their seat waits for its deadline like anyone's.",
        required=False,
        initial=True,
        widget=forms.CheckboxInput(attrs={"aria-describedby": "id_autopilot-why"}),
    )
    move_timer = forms.ChoiceField(
        label="Move timer",
        choices=MOVE_TIMER_CHOICES,
        initial="normal",
        required=False,
    )
    allow_watchers = forms.BooleanField(label="Allow watchers", required=False, initial=False)
    # Issue 39: whether the game moves its players' ratings, and whom the table admits.
    rated = forms.BooleanField(
        label="Rated game",
        help_text="The game moves its players' ratings. Off: it counts for nothing.",
        required=False,
        initial=True,
        widget=forms.CheckboxInput(attrs={"aria-describedby": "id_rated-why"}),
    )
    min_reliability = forms.TypedChoiceField(
        label="Minimum reliability",
        help_text="Who may join: the lower of a player's shares of turns played on time and "
        f"of games played to the end, over the last {games_conf.reliability_days()} days.",
        choices=MIN_RELIABILITY_CHOICES,
        coerce=int,
        empty_value=None,
        initial=0,
        required=False,
        widget=forms.Select(attrs={"aria-describedby": "id_min_reliability-why"}),
    )
    # Issue 40: whether bot accounts (programs people run, marked BOT) may take a seat.
    bot_accounts = forms.ChoiceField(
        label="Bot accounts",
        choices=BOT_ACCOUNT_CHOICES,
        initial="invited",
        required=False,
        widget=forms.RadioSelect,
    )

    #: The fields of each mode (the page's two fieldsets).
    MODE_FIELDS = {
        TURN_BY_TURN: ("turn_hours", "timeout_policy", "autopilot"),
        REAL_TIME: ("move_timer",),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for game in GAMES:
            for spec in game["options"]:
                name = option_field_name(game["id"], spec.name)
                self.fields[name] = _option_field(spec)
                # The option's one sentence is read with the field (the hint under it).
                self.fields[name].widget.attrs["aria-describedby"] = f"id_{name}-why"

    def game_fieldsets(self) -> list[dict[str, Any]]:
        """Each game's options as the page lays them out: the game, and each bound
        field with its one sentence (house rules apart)."""
        out = []
        for game in GAMES:
            fields = [
                {"field": self[option_field_name(game["id"], spec.name)], "spec": spec}
                for spec in game["options"]
            ]
            out.append(
                {
                    "id": game["id"],
                    "name": game["name"],
                    "settings": [f for f in fields if not f["spec"].house_rule],
                    "house_rules": [f for f in fields if f["spec"].house_rule],
                }
            )
        return out

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        game = data["game"] = data.get("game") or GAMES[0]["id"]
        # The other games' options are not this table's: their errors are not the host's.
        for other in GAMES:
            if other["id"] == game:
                continue
            for spec in other["options"]:
                self.errors.pop(option_field_name(other["id"], spec.name), None)
        chosen = next((g for g in GAMES if g["id"] == game), None)
        for spec in chosen["options"] if chosen else []:
            name = option_field_name(game, spec.name)
            if spec.kind != "bool" and data.get(name) in (None, "") and name not in self.errors:
                self.add_error(name, "Choose one." if spec.choices else "Enter a whole number.")
        if "mode" in self.errors:
            return data
        mode = data["mode"] = data.get("mode") or TURN_BY_TURN
        for name in self.MODE_FIELDS[mode]:
            if data.get(name) in (None, "") and name not in self.errors:
                self.add_error(name, "Choose one.")
        return data

    def service_kwargs(self) -> dict[str, Any]:
        """The ``games.services.table_create`` arguments this form stands for."""
        data = self.cleaned_data
        game = data["game"]
        chosen = next(g for g in GAMES if g["id"] == game)
        kwargs: dict[str, Any] = {
            "seat_count": data["seat_count"],
            "game": game,
            "options": {
                spec.name: data[option_field_name(game, spec.name)] for spec in chosen["options"]
            },
            "allow_watchers": data["allow_watchers"],
            "rated": data["rated"],
            # Not sent (an older page): anyone may join, as the API's default.
            "min_reliability": data["min_reliability"] or 0,
            # Not sent (an older page): only the bot accounts the host invites, as the API's.
            "bot_accounts": data.get("bot_accounts") or "invited",
        }
        # Only the chosen mode's fields go to the service.
        for name in self.MODE_FIELDS[data["mode"]]:
            kwargs[name] = data[name]
        if data["mode"] == TURN_BY_TURN:
            kwargs["move_timer"] = None
        return kwargs

    def add_service_error(self, error: ValueError) -> None:
        """Put the service's refusal of the options on the field it names
        (``tabletop.ruleset.OptionError.option``), else on the whole form."""
        option = getattr(error, "option", None)
        game = self.cleaned_data.get("game", GAMES[0]["id"])
        name = None if option is None else option_field_name(game, option)
        if name not in self.fields:
            name = None
        self.add_error(name, f"The table cannot be opened: {error}.")


class BotForm(Form):
    level = forms.ChoiceField(label="Bot level", choices=_CHOICES["bot_levels"], initial="easy")


class ActionForm(Form):
    """A move as the table page's buttons send it; the game's ``parse_request`` checks it."""

    type = forms.ChoiceField(
        choices=[(t, t) for t in ("play", "draw", "choose_color", "pass", "take_penalty")]
    )
    card = forms.CharField(required=False, max_length=64)
    color = forms.CharField(required=False, max_length=16)
    #: The seat a 7 swaps hands with (the classic game's 7-0 rule).
    target = forms.IntegerField(required=False, min_value=0, max_value=99)
    expected_seq = forms.IntegerField(required=False, min_value=0)

    def service_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        out = {
            "type": data["type"],
            "card": data.get("card") or None,
            "color": data.get("color") or None,
        }
        # Only a request that names a target carries the field: a game without
        # targets refuses any field it does not know.
        if data.get("target") is not None:
            out["target"] = data["target"]
        return out


class EmailForm(Form):
    email = forms.EmailField(
        label="New e-mail address", widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    # A session alone does not change the address (issue 35 §3).
    current_password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class PasswordChangeForm(Form):
    current_password = forms.CharField(
        label="Current password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    new_password = forms.CharField(
        label="New password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    new_password_again = forms.CharField(
        label="New password again",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("new_password") != data.get("new_password_again"):
            self.add_error("new_password_again", "The two new passwords differ.")
        return data


class PasswordForgotForm(Form):
    email = forms.EmailField(
        label="Your account's e-mail address",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


class PreferencesForm(Form):
    """What the user is told and how (``notifications.preferences``): the account page
    shows the switches as a table, a kind a row, e-mail and push its columns."""

    your_turn = forms.BooleanField(label="When it is my turn", required=False)
    reminder = forms.BooleanField(label="Halfway through my time", required=False)
    last_call = forms.BooleanField(label="A last call before my time runs out", required=False)
    timeout = forms.BooleanField(label="When my time ran out", required=False)
    game_over = forms.BooleanField(label="When a game is over", required=False)
    your_turn_push = forms.BooleanField(label="When it is my turn, by push", required=False)
    reminder_push = forms.BooleanField(label="Halfway through my time, by push", required=False)
    last_call_push = forms.BooleanField(label="A last call, by push", required=False)
    game_over_push = forms.BooleanField(label="When a game is over, by push", required=False)
    # Not required: a form posted without them (an older page) keeps what is saved.
    last_call_when = forms.ChoiceField(
        required=False,
        label="The last call comes",
        choices=[
            ("tenth", "when a tenth of the turn's time is left"),
            ("hour", "when one hour is left"),
            ("off", "never: no last call"),
        ],
    )
    digest = forms.BooleanField(label="A daily digest by e-mail", required=False)
    digest_hour = forms.TypedChoiceField(
        required=False,
        empty_value=None,
        label="at",
        coerce=int,
        choices=[(hour, f"{hour:02d}:00") for hour in range(24)],
    )
    time_zone = forms.CharField(
        required=False,
        label="in the time zone",
        max_length=64,
        help_text="A name such as Europe/Paris, America/New_York or UTC.",
        widget=forms.TextInput(attrs={"autocomplete": "off", "list": "time-zones"}),
    )

    #: The rows of the table of switches: a kind's words, its e-mail and push fields.
    ROWS = (
        ("It is my turn", "your_turn", "your_turn_push"),
        ("Halfway through my time", "reminder", "reminder_push"),
        ("Last call", "last_call", "last_call_push"),
        ("My time ran out", "timeout", None),
        ("A game is over", "game_over", "game_over_push"),
    )

    def changes(self) -> dict[str, Any]:
        """The preferences to save: the choices left empty keep what is saved."""
        return {name: value for name, value in self.cleaned_data.items() if value not in ("", None)}

    def rows(self) -> list[tuple[str, Any, Any]]:
        return [
            (words, self[mail], None if push is None else self[push])
            for words, mail, push in self.ROWS
        ]

    def clean_time_zone(self) -> str:
        zone: str = self.cleaned_data["time_zone"].strip()
        if zone and not notifications.valid_time_zone(zone):
            raise forms.ValidationError(
                "We do not know that time zone: use a name such as Europe/Paris or UTC."
            )
        return zone


#: The autopilot's levels (``Seat.BotLevel``): Easy, Normal, Hard.
AUTOPILOT_LEVELS = _CHOICES["bot_levels"]


class AwayForm(Form):
    """The account page's time away (ruling 20): from now or a date and time, until a date
    and time or until the player returns, and the autopilot's level.

    A date and time is read in the player's own time zone (``zone``, the one of
    their daily digest). Whether the time away can be had (the allowance, an end
    after the start) is ``games.away.away_set``'s to say.
    """

    start = forms.ChoiceField(
        label="From",
        choices=[("now", "now"), ("at", "a date and time:")],
        initial="now",
        widget=forms.RadioSelect,
    )
    starts_at = forms.DateTimeField(
        label="Start",
        required=False,
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )
    end = forms.ChoiceField(
        label="Until",
        choices=[("return", "I return"), ("at", "a date and time:")],
        initial="return",
        widget=forms.RadioSelect,
    )
    ends_at = forms.DateTimeField(
        label="End",
        required=False,
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )
    level = forms.ChoiceField(
        label="The bot that plays for me",
        choices=AUTOPILOT_LEVELS,
        initial="normal",
    )

    def __init__(self, *args: Any, zone: str = "UTC", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.zone = zoneinfo.ZoneInfo(zone)

    def _instant(self, name: str) -> datetime | None:
        value: datetime | None = self.cleaned_data.get(name)
        if value is None:
            return None
        # Django made it aware in the site's zone (UTC): the player meant their own.
        return value.replace(tzinfo=None).replace(tzinfo=self.zone)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        wanted = (
            ("start", "starts_at", "Enter the date and time it begins."),
            ("end", "ends_at", "Enter the date and time it ends."),
        )
        for choice, name, message in wanted:
            if data.get(choice) == "at" and data.get(name) is None and name not in self.errors:
                self.add_error(name, message)
        return data

    def service_kwargs(self) -> dict[str, Any]:
        """The ``games.away.away_set`` arguments this form stands for (without the user)."""
        data = self.cleaned_data
        return {
            "starts_at": self._instant("starts_at") if data["start"] == "at" else None,
            "ends_at": self._instant("ends_at") if data["end"] == "at" else None,
            "level": data["level"],
        }


class PlayForm(Form):
    """How the table plays for the player (``games.away.play_settings_update``)."""

    forced_moves = forms.BooleanField(
        label="Play my forced moves at once (a draw when nothing can be played, the only "
        "card I may play)",
        required=False,
    )
