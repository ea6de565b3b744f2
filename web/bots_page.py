"""The account page's "Bots" section (issue 40): a person's bot accounts and their tokens.

Every write is ``accounts.services``': ``bot_create``, ``bot_token_create``,
``bot_disable`` and ``bot_enable``, as the API's ``/api/v1/me/bots/``. This
module reads the forms, puts a refusal's sentence next to its form, and shows a
new token once: the page that answers the form shows it (never stored, never
in a redirect's message), with ``Cache-Control: no-store``.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.http import HttpRequest

from accounts import conf as account_conf
from accounts import selectors as account_selectors
from accounts import services as accounts
from accounts.validators import MAX_LENGTH, UsernameValidator
from games.errors import ServiceError
from notifications import services as notifications

from .forms import Form

Context = dict[str, Any]

#: The key of the page's forms under which a token made just now waits to be shown.
NEW_KEY = "bot_new_key"


class BotForm(Form):
    username = forms.CharField(
        label="The bot's name",
        max_length=MAX_LENGTH,
        validators=[UsernameValidator()],
        help_text="As a person's name: letters (of one alphabet), digits and . @ + - _ only.",
    )
    description = forms.CharField(
        label="What it is",
        max_length=accounts.BOT_DESCRIPTION_LENGTH,
        required=False,
        help_text="For the people who meet it at a table.",
    )


class BotTokenForm(Form):
    bot = forms.CharField(max_length=MAX_LENGTH, widget=forms.HiddenInput)
    name = forms.CharField(
        label="Token name",
        max_length=64,
        help_text="Which program holds it; a token of the same name is replaced.",
    )


class BotChoiceForm(Form):
    bot = forms.CharField(max_length=MAX_LENGTH, widget=forms.HiddenInput)


def initial_forms() -> Context:
    """The section's forms as a GET shows them."""
    return {"bot_form": BotForm(), "bot_errors": {}}


def context(user: User) -> Context:
    """What the section shows: the person's bots, and whether they may make one."""
    bots = account_selectors.bots_of(owner=user)
    limit = account_conf.bots_per_owner()
    is_bot = account_selectors.is_bot(user)
    return {
        "list": bots,
        "limit": limit,
        "confirmed": notifications.email_is_verified(user),
        "may_make": not is_bot and len(bots) < limit,
        "is_bot": is_bot,
    }


def make_bot(request: HttpRequest, user: User, forms: Context) -> str | None:
    """Make a bot account; its first token is shown on the page that answers."""
    form = forms["bot_form"] = BotForm(request.POST)
    if not form.is_valid():
        return None
    try:
        bot, key = accounts.bot_create(owner=user, **form.cleaned_data)
    except ServiceError as error:
        for field, errors in error.fields.items():
            for message in errors:
                form.add_error(field if field in form.fields else None, message)
        if not error.fields:
            form.add_error(None, error.message)
        return None
    forms[NEW_KEY] = {"bot": bot.username, "name": accounts.FIRST_BOT_TOKEN_NAME, "key": key}
    forms["bot_form"] = BotForm()
    return None


def _bot_of(user: User, name: str) -> User | None:
    found = account_selectors.bot_of(owner=user, username=name)
    return None if found is None else found.user


def new_token(request: HttpRequest, user: User, forms: Context) -> str | None:
    """A new token for one of the person's bots, shown on the page that answers."""
    form = BotTokenForm(request.POST)
    name = str(request.POST.get("bot", ""))[:MAX_LENGTH]
    if not form.is_valid():
        forms["bot_errors"] = {name: "Give the token a name of at most 64 characters."}
        return None
    bot = _bot_of(user, form.cleaned_data["bot"])
    if bot is None:
        forms["bot_errors"] = {"": "You have no bot of that name."}
        return None
    try:
        _token, key = accounts.bot_token_create(owner=user, bot=bot, name=form.cleaned_data["name"])
    except ServiceError as error:
        forms["bot_errors"] = {bot.username: error.message}
        return None
    forms[NEW_KEY] = {"bot": bot.username, "name": form.cleaned_data["name"], "key": key}
    return None


def _switch(request: HttpRequest, user: User, forms: Context, *, disable: bool) -> str | None:
    form = BotChoiceForm(request.POST)
    bot = _bot_of(user, form.cleaned_data["bot"]) if form.is_valid() else None
    if bot is None:
        forms["bot_errors"] = {"": "You have no bot of that name."}
        return None
    try:
        if disable:
            accounts.bot_disable(bot, by=user)
        else:
            accounts.bot_enable(bot, by=user)
    except ServiceError as error:
        forms["bot_errors"] = {bot.username: error.message}
        return None
    if disable:
        return f"{bot.username} is disabled: its tokens stop working until you enable it."
    return f"{bot.username} is enabled again: its tokens work again."


def disable_bot(request: HttpRequest, user: User, forms: Context) -> str | None:
    return _switch(request, user, forms, disable=True)


def enable_bot(request: HttpRequest, user: User, forms: Context) -> str | None:
    return _switch(request, user, forms, disable=False)


#: The section's forms by the page's ``form`` field (``web.views._ACCOUNT_FORMS``).
ACCOUNT_FORMS = {
    "bot_make": make_bot,
    "bot_token": new_token,
    "bot_disable": disable_bot,
    "bot_enable": enable_bot,
}
