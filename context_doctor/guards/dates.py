"""Dates as people write them (docs/layouts.md "Dates"): one reader for fields, entries and headings.

A date is a whole day with its year, in one of these forms:

- ISO, ``2026-04-30`` (a time may follow: ``2026-04-30T14:00``, ``2026-04-30 14:00 UTC``);
- day first with dots, ``30.04.2026`` (as German, Polish, Russian and others write it);
- with slashes, ``30/04/2026`` or ``04/30/2026``, **only when the order is certain**: one of
  the two numbers is over 12, or both are the same. ``04/05/2026`` is no date at all: the
  doctor never guesses between April 5 and May 4;
- a month's name, day first or month first, with an optional ordinal suffix, comma, ``.``
  or ``de``: ``April 30, 2026``, ``Apr 30 2026``, ``30 April 2026``, ``30. April 2026``,
  ``30 de abril de 2026``, ``26 maja 2025``, in English, German, French, Spanish,
  Portuguese, Italian, Dutch and Polish (its genitive month names too);
- year, month and day with their CJK marks: ``2026年4月30日``, ``2026년 4월 30일``.

A month without its day (``January 2026``) or a day without its year (``Feb 3``) is no
date: it cannot say which commits came after it. A form that names no real day
(``2026-02-30``, ``31.04.2026``) is found, with ``day`` None, so a reader can say so
rather than read past it.

:func:`find_date` finds the first date in a text, :func:`entry_date` the date a session
entry (a heading, a list item, a table cell) is dated by, and :func:`respell` writes
another day in the form a found date was written in, so a writer updates a date line
in its own spelling.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import cache

from context_doctor.guards.patterns import LazyPattern

_ENGLISH = "January February March April May June July August September October November December"
_ENGLISH_SHORT = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec"
# Each language's twelve names, January first; a name may be spelled several ways ("|").
MONTH_NAMES: dict[str, tuple[str, ...]] = {
    "en": tuple(_ENGLISH.split()),
    "en-short": (*_ENGLISH_SHORT.split()[:8], "Sep|Sept", *_ENGLISH_SHORT.split()[9:]),
    "de": tuple(
        [
            "Januar|Jänner",
            "Februar",
            "März|Maerz",
            "April",
            "Mai",
            "Juni",
            "Juli",
            "August",
            "September",
            "Oktober",
            "November",
            "Dezember",
        ]
    ),
    "fr": tuple(
        [
            "janvier",
            "février",
            "mars",
            "avril",
            "mai",
            "juin",
            "juillet",
            "août",
            "septembre",
            "octobre",
            "novembre",
            "décembre",
        ]
    ),
    "es": tuple(
        [
            "enero",
            "febrero",
            "marzo",
            "abril",
            "mayo",
            "junio",
            "julio",
            "agosto",
            "septiembre|setiembre",
            "octubre",
            "noviembre",
            "diciembre",
        ]
    ),
    "pt": tuple(
        [
            "janeiro",
            "fevereiro",
            "março",
            "abril",
            "maio",
            "junho",
            "julho",
            "agosto",
            "setembro",
            "outubro",
            "novembro",
            "dezembro",
        ]
    ),
    "it": tuple(
        [
            "gennaio",
            "febbraio",
            "marzo",
            "aprile",
            "maggio",
            "giugno",
            "luglio",
            "agosto",
            "settembre",
            "ottobre",
            "novembre",
            "dicembre",
        ]
    ),
    "nl": tuple(
        [
            "januari",
            "februari",
            "maart",
            "april",
            "mei",
            "juni",
            "juli",
            "augustus",
            "september",
            "oktober",
            "november",
            "december",
        ]
    ),
    "pl": tuple(
        [
            "styczeń",
            "luty",
            "marzec",
            "kwiecień",
            "maj",
            "czerwiec",
            "lipiec",
            "sierpień",
            "wrzesień",
            "październik",
            "listopad",
            "grudzień",
        ]
    ),
    "pl-of": tuple(
        [
            "stycznia",
            "lutego",
            "marca",
            "kwietnia",
            "maja",
            "czerwca",
            "lipca",
            "sierpnia",
            "września",
            "października",
            "listopada",
            "grudnia",
        ]
    ),
}


@cache
def _months() -> dict[str, tuple[tuple[str, int], ...]]:
    """Every spelling, casefolded -> the (language, month number) it spells, English first
    (`April` is English, German and Dutch alike)."""
    found: dict[str, tuple[tuple[str, int], ...]] = {}
    for language, names in MONTH_NAMES.items():
        for number, spellings in enumerate(names, start=1):
            for spelling in spellings.split("|"):
                key = spelling.casefold()
                found[key] = (*found.get(key, ()), (language, number))
    return found


def _language(name: str, *, dotted_day: bool) -> tuple[str, int]:
    """The language a month's name is taken in: English unless the day is written `30.`
    (German, Polish and the others that write an ordinal dot) and another language has it."""
    readings = _months()[name.casefold()]
    if dotted_day:
        return next((r for r in readings if not r[0].startswith("en")), readings[0])
    return readings[0]


def _month_alternation() -> str:
    return "|".join(re.escape(name) for name in sorted(_months(), key=len, reverse=True))


_LETTER = r"[^\W\d_]"
_ISO = r"(?<!\d)(?P<iy>\d{4})-(?P<im>\d{2})-(?P<id>\d{2})(?!\d)"
_DOTS = r"(?<![\d.])(?P<dd>\d{1,2})\.(?P<dm>\d{1,2})\.(?P<dy>\d{4})(?!\d|\.\d)"
_SLASHES = r"(?<![\d/])(?P<sa>\d{1,2})/(?P<sb>\d{1,2})/(?P<sy>\d{4})(?!\d|/\d)"
_SUFFIX = r"(?:st|nd|rd|th)"
_CJK = r"(?<!\d)(?P<cy>\d{4})\s*[年년]\s*(?P<cm>\d{1,2})\s*[月월]\s*(?P<cd>\d{1,2})(?!\d)\s*[日일]?"


@cache
def _named_forms() -> tuple[str, str]:
    names = _month_alternation()
    month_first = (
        rf"(?<!{_LETTER})(?P<mn>{names})\.?\s+(?P<md>\d{{1,2}})(?P<ms>{_SUFFIX})?(?!\d)"
        rf",?\s+(?P<my>\d{{4}})(?!\d)"
    )
    day_first = (
        rf"(?<![\d.])(?P<nd>\d{{1,2}})(?P<ns>{_SUFFIX})?\.?\s+(?:de\s+)?(?P<nn>{names})"
        rf"(?!{_LETTER})\.?(?:\s+de)?,?\s+(?P<ny>\d{{4}})(?!\d)"
    )
    return month_first, day_first


@cache
def _forms() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each form's pattern, searched alone: one alternation of them all costs 30 times more
    on the headings of a large log (most of which hold no date, or an ISO one)."""
    month_first, day_first = _named_forms()
    return (
        ("iso", re.compile(_ISO)),
        ("dots", re.compile(_DOTS)),
        ("slashes", re.compile(_SLASHES)),
        ("names", re.compile(f"{month_first}|{day_first}", re.IGNORECASE)),
        ("cjk", re.compile(_CJK)),
    )


_WORD = LazyPattern(r"[^\W\d_]+")


def _may_hold(kind: str, text: str) -> bool:
    """Cheap tests that rule a form out before its pattern is searched."""
    if kind == "dots":
        return "." in text
    if kind == "slashes":
        return "/" in text
    if kind == "cjk":
        return "年" in text or "년" in text
    if kind == "names":
        months = _months()
        return any(word.casefold() in months for word in _WORD.findall(text))
    return True


_YEAR = LazyPattern(r"\d{4}")
# Every run that reads a log asks this of each heading: compiled at import (guards/patterns.py).
_ISO_LEAD = re.compile(r"[\s\[(*_`]*((\d{4})-(\d{2})-(\d{2}))(?!\d)")
# The later day of a span written after an ISO date: `/14`, `/06-02`, `/2026-06-02`.
_SPAN = LazyPattern(r"/(?:(\d{4})-)?(?:(\d{2})-)?(\d{2})(?!\d)")


@dataclass(frozen=True)
class FoundDate:
    """A date found in a text: where, as written, which day (None: no real day), and how
    it was written (``form``: ``iso``, ``dots``, ``slashes-dmy``, ``slashes-mdy``,
    ``month-first``, ``day-first``, ``cjk``), for :func:`respell`."""

    start: int
    end: int
    spelled: str
    day: dt.date | None
    form: str
    # The spans of the day, the month and the year inside ``spelled``, and the month's
    # language (a name form), so a writer replaces each part in its own spelling.
    parts: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]
    language: str = ""


def _day(year: str, month: int, day: str) -> dt.date | None:
    try:
        return dt.date(int(year), month, int(day))
    except ValueError:
        return None


def _found(match: re.Match[str]) -> FoundDate | None:
    groups = match.groupdict()
    base = match.start()
    spelled = match.group(0).rstrip()

    def found(form: str, parts: str, month: int, language: str = "") -> FoundDate:
        """The date of ``form``, its day, month and year in the groups ``parts`` names."""
        day, month_part, year = parts.split()
        spans = tuple((match.start(g) - base, match.end(g) - base) for g in (day, month_part, year))
        return FoundDate(
            base,
            base + len(spelled),
            spelled,
            _day(groups[year], month, groups[day]),
            form,
            (spans[0], spans[1], spans[2]),
            language,
        )

    if groups.get("iy") is not None:
        return found("iso", "id im iy", int(groups["im"]))
    if groups.get("dy") is not None:
        return found("dots", "dd dm dy", int(groups["dm"]))
    if groups.get("sy") is not None:
        first, second = int(groups["sa"]), int(groups["sb"])
        if first > 12 >= second or first == second:
            return found("slashes-dmy", "sa sb sy", second)
        if second > 12 >= first:
            return found("slashes-mdy", "sb sa sy", first)
        return None  # 04/05/2026: April 5 or May 4; the doctor does not guess
    if groups.get("my") is not None:
        language, month = _language(groups["mn"], dotted_day=False)
        return found("month-first", "md mn my", month, language)
    if groups.get("ny") is not None:
        dotted = match.group(0)[match.end("nd") - base :].lstrip("stndrh").startswith(".")
        language, month = _language(groups["nn"], dotted_day=dotted)
        return found("day-first", "nd nn ny", month, language)
    return found("cjk", "cd cm cy", int(groups["cm"]))


def find_date(text: str, start: int = 0) -> FoundDate | None:
    """The first date in ``text`` (from ``start``) in any form above; None when there is none."""
    if _YEAR.search(text, start) is None:  # every form holds a four-digit year
        return None
    best: FoundDate | None = None
    for kind, pattern in _forms():
        if not _may_hold(kind, text):
            continue
        position = start
        while (match := pattern.search(text, position)) is not None:
            if best is not None and match.start() > best.start:
                break
            found = _found(match)
            if found is not None:
                if best is None or (found.start, -found.end) < (best.start, -best.end):
                    best = found
                break
            position = match.start() + 1  # an ambiguous slash date: look further
    return best


def find_dates(text: str) -> list[FoundDate]:
    """Every date in ``text``, in order."""
    found: list[FoundDate] = []
    position = 0
    while (date := find_date(text, position)) is not None:
        found.append(date)
        position = date.end
    return found


def first_day(text: str) -> tuple[str, dt.date | None] | None:
    """The first date in ``text``: its spelling and its day (None: no real day)."""
    found = find_date(text)
    return None if found is None else (found.spelled, found.day)


# -- the date a session entry is dated by -------------------------------------------

# Emphasis, code and strike marks are dropped before an entry is read (`**2026-07-20**`).
_MARKS = LazyPattern(r"[*_`~]+")
# What may stand right before an entry's date: nothing, a space, an opening bracket or a
# separator (`Session 12 — 2026-08-21`, `[2026-08-21]`, `Session: 2026-08-21`).
_BEFORE_DATE = frozenset(" \t([{|:—\u2013,·@#>")
_LEAD_WORD = LazyPattern(r"[^\W_][\w'\u2019.+#]*")
LEAD_WORDS = 4
"""At most this many words may come before an entry's date (``Session 20 - Autonomous Sprint |``)."""
_LEAD_CHARS = 60
# A lead naming a plan, not a session: `## Next session — 2026-12-10`, `Due: 2026-09-01`.
PLAN_WORDS = frozenset(
    [
        "next",
        "due",
        "deadline",
        "target",
        "eta",
        "until",
        "till",
        "planned",
        "scheduled",
        "upcoming",
        "expires",
        "expiry",
        "before",
        "by",
        "pre",
    ]
)


def entry_date(
    text: str, *, not_leads: frozenset[str] = frozenset()
) -> tuple[str, dt.date | None] | None:
    """The date a heading, list item or table cell is dated by as a session entry, as
    spelled and as a day (None: no real day); None when it is no dated entry.

    The date stands in its first words (docs/layouts.md "Session entries"), bare or
    decorated: emphasis, brackets, an emoji or a lead of at most :data:`LEAD_WORDS`
    words (``Session 12 —``, ``Session:``, ``Recent changes (``), a time or anything
    after it. A lead that is a date field's label or a status heading (``not_leads``,
    casefolded, whole or at its end: ``Last updated: …``) or that names a plan
    (:data:`PLAN_WORDS`: ``Next session — …``) makes it no entry. A span
    ``2026-05-13/14`` is its later day, 2026-05-14; a later part that is not after the
    first rolls over (``2026-05-31/01`` is 2026-06-01); a part that names no real day
    makes the whole date impossible, so it is reported rather than guessed.
    """
    leading = _ISO_LEAD.match(text)  # the common case, `2026-06-01 — …`, read at once
    if leading is not None:
        body = text
        start, end = leading.span(1)
        year, month, day_of_month = leading.group(2, 3, 4)
        day = _day(year, int(month), day_of_month)
    else:
        if _YEAR.search(text) is None:
            return None
        body = _MARKS.sub("", text) if ("*" in text or "_" in text or "`" in text) else text
        found = find_date(body)
        if found is None:
            return None
        lead = body[: found.start]
        if lead and not _lead_allowed(lead, not_leads):
            return None
        if found.form != "iso":
            return found.spelled, found.day
        start, end, day = found.start, found.end, found.day
    span = _SPAN.compiled.match(body, end)
    if span is None:
        return body[start:end], day
    spelled = body[start : span.end()]
    if day is None:
        return spelled, None
    return spelled, _later_day(day, span.group(1), span.group(2), span.group(3))


@cache
def _month_year() -> re.Pattern[str]:
    return re.compile(
        rf"(?<!{_LETTER})(?P<name>{_month_alternation()})\.?,?\s+(?P<year>\d{{4}})(?!\d)",
        re.IGNORECASE,
    )


def entry_month(text: str, *, not_leads: frozenset[str] = frozenset()) -> tuple[int, int] | None:
    """(year, month) of an entry dated by its month alone (``## Recently completed (July
    2026)``), read as :func:`entry_date` reads a day: in its first words. None: no such
    entry (or one dated to the day)."""
    if _YEAR.search(text) is None or find_date(text) is not None:
        return None
    body = _MARKS.sub("", text)
    found = _month_year().search(body)
    if found is None:
        return None
    lead = body[: found.start()]
    if lead and not _lead_allowed(lead, not_leads):
        return None
    return int(found.group("year")), _language(found.group("name"), dotted_day=False)[1]


def _lead_allowed(lead: str, not_leads: frozenset[str]) -> bool:
    if len(lead) > _LEAD_CHARS or (lead[-1] not in _BEFORE_DATE and lead[-1].isalnum()):
        return False
    if lead[-1] == "-" and not lead[:-1].endswith((" ", "\t")):
        return False  # `Pre-2026-02-14`: the date is part of a word
    words = _LEAD_WORD.findall(lead)
    if len(words) > LEAD_WORDS:
        return False
    if not words:
        return True
    folded = [word.casefold().rstrip(".") for word in words]
    if any(word in PLAN_WORDS for word in folded):
        return False
    phrase = " ".join(folded)
    # `Last updated: …`, `Current state (Updated: …`: a field's label ends the lead. A lead
    # that only starts with such a word (`Data pipeline — …`, `Status update — …`) is an
    # entry's lead still.
    return not any(phrase == name or phrase.endswith(" " + name) for name in not_leads)


def _later_day(first: dt.date, year: str | None, month: str | None, day: str) -> dt.date | None:
    later = _day(year or str(first.year), int(month or first.month), day)
    if later is None or later > first:
        return later
    if year is not None:  # a whole date not after the first: the first is the later day
        return first
    # `/01` after the 31st is the next month; `/01-02` after December the next year.
    if month is None:
        next_year, next_month = divmod(first.month, 12)
        return _day(str(first.year + next_year), next_month + 1, day)
    return _day(str(first.year + 1), int(month), day)


# -- writing a day in the form a date was found in ----------------------------------


def respell(found: FoundDate, day: dt.date) -> str:
    """``day`` written as ``found`` was: the same form, order, padding, month language and
    letter case (``30.04.2026`` -> ``14.05.2026``, ``26 maja 2025`` -> ``14 maja 2026``,
    ``April 30, 2026`` -> ``May 14, 2026``); an ordinal suffix follows the new day. A day
    that slashes could not write unambiguously (``03/06/2025``) is written ISO."""
    if found.form == "iso" or (
        found.form.startswith("slashes") and day.day <= 12 and day.day != day.month
    ):
        return day.isoformat()  # 03/06/2025 would be read as no date: ISO is never ambiguous
    text = found.spelled
    (day_start, day_end), (month_start, month_end), (year_start, year_end) = found.parts
    padded = _padded(found, text)
    new_day = _number(text[day_start:day_end], day.day, padded)
    suffix = _SUFFIX_AFTER.match(text, day_end)
    if suffix is not None:
        new_day += _ordinal(day.day, upper=suffix.group(0).isupper())
        day_end = suffix.end()
    old_month = text[month_start:month_end]
    pieces = {
        (day_start, day_end): new_day,
        (month_start, month_end): _month_name(old_month, found.language, day.month)
        if found.language
        else _number(old_month, day.month, padded),
        (year_start, year_end): f"{day.year:04}",
    }
    out = []
    cursor = 0
    for (start, end), value in sorted(pieces.items()):
        out.append(text[cursor:start])
        out.append(value)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _padded(found: FoundDate, text: str) -> bool:
    """Numbers written two digits wide: one of them starts with 0, or (a numeric month)
    both have two digits (`30.10.2026`, so `02.05.2026` next)."""
    numbers = [text[start:end] for start, end in found.parts[:2]]
    if found.language:
        numbers = numbers[:1]
    return any(n.startswith("0") for n in numbers) or (
        not found.language and all(len(n) == 2 for n in numbers)
    )


def _number(old: str, value: int, padded: bool) -> str:
    return f"{value:02}" if padded else str(value)


def _month_name(old: str, language: str, month: int) -> str:
    spellings = MONTH_NAMES[language][month - 1].split("|")
    folded = old.casefold()
    # The spelling of the old month's family: `Sept` keeps `Sep`'s row, `Maerz` keeps `ä`.
    old_number = next(n for lang, n in _months()[folded] if lang == language)
    old_row = MONTH_NAMES[language][old_number - 1].split("|")
    position = next((n for n, s in enumerate(old_row) if s.casefold() == folded), 0)
    name = spellings[min(position, len(spellings) - 1)]
    if old.isupper():
        return name.upper()
    if old[:1].isupper():
        return name[:1].upper() + name[1:]
    return name.lower()


_SUFFIX_AFTER = LazyPattern(_SUFFIX, re.IGNORECASE)


def _ordinal(day: int, *, upper: bool) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return suffix.upper() if upper else suffix
