"""Forms of the web client. They check the shape of the input; the services check the rest."""

from __future__ import annotations

from typing import Any

from django import forms

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
    username = forms.CharField(
        max_length=150, widget=forms.TextInput(attrs={"autocomplete": "username"})
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


class TableForm(Form):
    seat_count = forms.TypedChoiceField(
        label="Seats",
        choices=[(n, str(n)) for n in _CHOICES["seat_counts"]],
        coerce=int,
        initial=3,
    )
    turn_hours = forms.TypedChoiceField(
        label="Time for each turn",
        choices=[(h, f"{h} hours") for h in _CHOICES["turn_hours"]],
        coerce=int,
        initial=24,
    )
    timeout_policy = forms.ChoiceField(
        label="When a turn's time runs out", choices=_CHOICES["timeout_policies"], initial="bot"
    )
    scoring = forms.ChoiceField(label="Scoring", choices=SCORING_CHOICES, initial="single")
    two_seat_reverse_skips = forms.BooleanField(
        label="Two-seat Reverse acts as Skip", required=False, initial=True
    )
    allow_watchers = forms.BooleanField(label="Allow watchers", required=False, initial=False)

    def service_kwargs(self) -> dict[str, Any]:
        """The ``games.services.table_create`` arguments this form stands for."""
        data = dict(self.cleaned_data)
        scoring = data.pop("scoring")
        if scoring == "single":
            data["scoring"], data["target"] = "single", 500
        else:
            data["scoring"], data["target"] = "target", int(scoring.removeprefix("target-"))
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
        label="E-mail address", widget=forms.EmailInput(attrs={"autocomplete": "email"})
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
