"""Pages of ids read through an index, for the sweep to hand out a job a page."""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def pages(ids: Iterable[int], batch: int) -> Iterator[list[int]]:
    """``ids`` (a queryset's ``values_list(..., flat=True)``, read ``batch`` rows at a time)
    in lists of ``batch``; the last may be shorter.

    >>> list(pages(range(5), 2))
    [[0, 1], [2, 3], [4]]
    """
    page: list[int] = []
    iterator = ids.iterator(chunk_size=batch) if hasattr(ids, "iterator") else iter(ids)
    for one in iterator:
        page.append(one)
        if len(page) == batch:
            yield page
            page = []
    if page:
        yield page
