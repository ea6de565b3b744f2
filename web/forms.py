"""Forms of the web client. They check the shape of the input; the services check the rest."""

from __future__ import annotations

from typing import Any

from django import forms

from accounts.validators import MAX_LENGTH, UsernameValidator
from games import selectors

_CHOICES = selectors.table_choices()

#: One select for the scoring option: a single round, or a target score.
SCORING_CHOICES = [("single", "Single round")] + [
    (f"target-{t}", f"Play to {t} points") for t in _CHOICES["targets"]
]


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


class TableForm(Form):
    """The new-table form: each mode's own fields, the other mode's ignored.

    The page disables the fieldset of the mode not chosen (its fields are not
    sent); without the script both show and ``mode`` decides. Whether the
    options make a table is ``games.services.table_create``'s to say.
    """

    seat_count = forms.TypedChoiceField(
        label="Seats",
        choices=[(n, str(n)) for n in _CHOICES["seat_counts"]],
        coerce=int,
        initial=3,
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
    move_timer = forms.ChoiceField(
        label="Move timer",
        choices=MOVE_TIMER_CHOICES,
        initial="normal",
        required=False,
    )
    scoring = forms.ChoiceField(label="Scoring", choices=SCORING_CHOICES, initial="single")
    two_seat_reverse_skips = forms.BooleanField(
        label="Two-seat Reverse acts as Skip", required=False, initial=True
    )
    allow_watchers = forms.BooleanField(label="Allow watchers", required=False, initial=False)

    #: The fields of each mode (the page's two fieldsets).
    MODE_FIELDS = {
        TURN_BY_TURN: ("turn_hours", "timeout_policy"),
        REAL_TIME: ("move_timer",),
    }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if "mode" in self.errors:
            return data
        mode = data["mode"] = data.get("mode") or TURN_BY_TURN
        for name in self.MODE_FIELDS[mode]:
            if data.get(name) in (None, "") and name not in self.errors:
                self.add_error(name, "Choose one.")
        return data

    def service_kwargs(self) -> dict[str, Any]:
        """The ``games.services.table_create`` arguments this form stands for."""
        data = dict(self.cleaned_data)
        mode = data.pop("mode")
        scoring = data.pop("scoring")
        if scoring == "single":
            data["scoring"], data["target"] = "single", 500
        else:
            data["scoring"], data["target"] = "target", int(scoring.removeprefix("target-"))
        # Only the chosen mode's fields go to the service.
        other = REAL_TIME if mode == TURN_BY_TURN else TURN_BY_TURN
        for name in self.MODE_FIELDS[other]:
            data.pop(name)
        if mode == TURN_BY_TURN:
            data["move_timer"] = None
        return data


class BotForm(Form):
    level = forms.ChoiceField(label="Bot level", choices=_CHOICES["bot_levels"], initial="easy")


class ActionForm(Form):
    type = forms.ChoiceField(choices=[(t, t) for t in ("play", "draw", "choose_color", "pass")])
    card = forms.CharField(required=False, max_length=64)
    color = forms.CharField(required=False, max_length=16)
    expected_seq = forms.IntegerField(required=False, min_value=0)

    def service_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "type": data["type"],
            "card": data.get("card") or None,
            "color": data.get("color") or None,
        }


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
    your_turn = forms.BooleanField(label="When it is my turn", required=False)
    reminder = forms.BooleanField(label="Halfway through my time", required=False)
    timeout = forms.BooleanField(label="When my time ran out", required=False)
    game_over = forms.BooleanField(label="When a game is over", required=False)
