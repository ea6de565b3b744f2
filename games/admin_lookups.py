"""Admin changelists that take only the lookups of their own filters (issue 35 §2).

Django's admin applies any lookup on a model's own fields that the query
string names (``?state__seed__startswith=4``), so a changelist answers
yes-or-no questions about a field no page shows: a running game's seed came
back one character at a time. ``FilterLookupsOnly`` refuses every lookup but
those its list's filters and date hierarchy make, and those it names in
``extra_lookups``; a field added later is refused until someone lists it.
A refused lookup answers 400 (Django's ``DisallowedModelAdminLookup``) and is
never applied.
"""

from __future__ import annotations

from typing import TypeVar

from django.contrib import admin
from django.contrib.admin import widgets
from django.contrib.admin.filters import SimpleListFilter
from django.contrib.admin.utils import get_fields_from_path
from django.db.models import Model
from django.http import HttpRequest

#: What Django's own field filters write after a field's path: choices and booleans
#: (``__exact``, ``__isnull``), all values (the bare path, ``__isnull``), dates (``__gte``,
#: ``__lt``), "empty or not" (``__isempty``).
_FIELD_FILTER_LOOKUPS = ("", "__exact", "__isnull", "__gte", "__lt", "__isempty")
#: What a date hierarchy writes after its field.
_DATE_HIERARCHY_LOOKUPS = ("year", "month", "day")

_M = TypeVar("_M", bound=Model)


class FilterLookupsOnly(admin.ModelAdmin[_M]):
    """A model admin whose changelist refuses lookups its own filters do not make.

    Subclass it as ``FilterLookupsOnly[Table]``, before ``UserAdmin`` if need be. Name in
    ``extra_lookups`` any further lookup a link or a bookmark needs, e.g.
    ``"table__id__exact"``; never one on a field that holds something secret.
    """

    extra_lookups: tuple[str, ...] = ()

    def filter_lookups(self, request: HttpRequest) -> set[str]:
        """Every query-string lookup this changelist takes: its filters', its dates', the extras."""
        lookups = set(self.extra_lookups)
        for item in self.get_list_filter(request):
            if isinstance(item, type) and issubclass(item, SimpleListFilter):
                if item.parameter_name:
                    lookups.add(item.parameter_name)
                continue
            path = item[0] if isinstance(item, list | tuple) else item
            if not isinstance(path, str):
                continue  # a field object: Django's system checks refuse it anyway
            lookups.update(f"{path}{lookup}" for lookup in _FIELD_FILTER_LOOKUPS)
            # A relation's filter names the related row by its key: ``table__id__exact``.
            target = getattr(get_fields_from_path(self.model, path)[-1], "target_field", None)
            if target is not None:
                lookups.add(f"{path}__{target.name}__exact")
        if self.date_hierarchy:
            lookups.update(f"{self.date_hierarchy}__{part}" for part in _DATE_HIERARCHY_LOOKUPS)
        return lookups

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        if lookup not in self.filter_lookups(request) and not _limits_choices(
            self.model, lookup, value
        ):
            return False
        return super().lookup_allowed(lookup, value, request)


def _limits_choices(model: type[Model], lookup: str, value: str) -> bool:
    """Whether ``lookup=value`` is a ``limit_choices_to`` of a raw-id popup opening this list.

    Django's ``lookup_allowed`` lets these through so that such popups work; so does this.
    """
    for fk_lookup in model._meta.related_fkey_lookups:
        limits = fk_lookup() if callable(fk_lookup) else fk_lookup
        if (lookup, value) in widgets.url_params_from_lookup_dict(limits).items():
            return True
    return False
