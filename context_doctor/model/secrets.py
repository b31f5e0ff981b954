"""Credential material in the context layer: found once per file, never repeated.

The seed's rule is "never record secrets: no token values, OAuth or callback
URLs, credential material".  Known token formats and private-key blocks are
found by ``detect-secrets`` (Yelp's well-kept detector library); this module
adds what its plugin set lacks for this domain: Google, Anthropic and newer
OpenAI key formats, GitHub fine-grained tokens, URLs whose query carries a
credential (`client_secret`, `code`, `access_token`, `refresh_token`, `token`,
`key`), and high-entropy values assigned to a key named like a secret.

Only a redacted form (the first 4 characters, then `…`) ever leaves this
module, so no report, cache or annotation can spread a secret.

Plugins are chosen explicitly, not detect-secrets' default set: its two
unanchored high-entropy plugins flag every commit sha (hex) and many long
identifiers (base64 charset) in prose, its keyword plugin (quotes required)
misses Markdown's unquoted `key: value`, and plugins for public IP addresses or
vendor keywords add no credential signal.  Calling the chosen plugins' regexes
directly also skips detect-secrets' global settings and verification machinery
(no network, no configuration file).

Bounded: a line longer than :data:`WINDOW` characters is scanned in overlapping
windows, so a minified blob cannot make one regex run unboundedly; lines with
no candidate run of token characters are skipped by one cheap regex.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from context_doctor.guards.patterns import LazyPattern
from context_doctor.guards.redact import redact

if TYPE_CHECKING:
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector


WINDOW = 4096
OVERLAP = 256


@dataclass(frozen=True)
class SecretHit:
    line: int  # 1-based; for a secret split across lines, the line it starts on
    kind: str
    redacted: str


class _Pattern:
    """A format detect-secrets does not know, in its detectors' shape (a type, regexes)."""

    def __init__(self, secret_type: str, *patterns: str) -> None:
        self.secret_type = secret_type
        self.denylist = tuple(re.compile(pattern) for pattern in patterns)


@dataclass(frozen=True)
class _Detectors:
    known_formats: tuple[RegexBasedDetector | _Pattern, ...]
    jwt: JwtTokenDetector


@dataclass(frozen=True)
class _HintedDetectors:
    """The detectors a line is asked about only when it holds their literal hint."""

    private_key: RegexBasedDetector
    basic_auth: RegexBasedDetector
    entropy: Any  # Base64HighEntropyString: only its Shannon entropy is used
    keyword_regexes: dict[re.Pattern[str], int]


PLUGIN_PACKAGE = "detect_secrets"
HTTP_LIBRARY = "requests"


def _import_plugins_without_the_scanner(plugins: tuple[str, ...]) -> None:
    """Load detect-secrets' plugin modules without its scanner and HTTP stack.

    Importing ``detect_secrets.plugins.x`` runs the package's ``__init__`` (its whole
    scan core: baselines, filters, ``multiprocessing``) and each plugin's ``import
    requests`` (urllib3, ``ssl``, ``http``): ~60% of the doctor's import time on a cold
    small run, for regexes and two small methods. So, when neither is loaded yet, the
    package's root is registered without running its ``__init__`` (which runs, into that
    same module, the first time anything else asks it for a name), and ``requests`` is a
    stand-in while the plugins load that imports the real library the first time one of
    them uses it (verification, which the doctor never asks for). Nothing else changes:
    each plugin is detect-secrets' own module and class.
    """
    import importlib.util
    import sys
    import types

    registered: list[str] = []
    if PLUGIN_PACKAGE not in sys.modules:
        spec = importlib.util.find_spec(PLUGIN_PACKAGE)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            return
        root = importlib.util.module_from_spec(spec)
        loader = spec.loader
        state = {"ran": False}

        def complete_root(name: str) -> object:
            # The root's own __init__, run once, on the first name it lacks.
            if state["ran"]:
                raise AttributeError(f"module {PLUGIN_PACKAGE!r} has no attribute {name!r}")
            state["ran"] = True
            loader.exec_module(root)
            return getattr(root, name)

        root.__dict__["__getattr__"] = complete_root
        sys.modules[PLUGIN_PACKAGE] = root
        registered.append(PLUGIN_PACKAGE)
    stand_in = types.ModuleType(HTTP_LIBRARY, "imports the real library on first use")
    if HTTP_LIBRARY not in sys.modules:

        def real_library(name: str) -> object:
            if sys.modules.get(HTTP_LIBRARY) is stand_in:
                del sys.modules[HTTP_LIBRARY]
            return getattr(importlib.import_module(HTTP_LIBRARY), name)

        stand_in.__dict__["__getattr__"] = real_library
        sys.modules[HTTP_LIBRARY] = stand_in
    try:
        for plugin in plugins:
            importlib.import_module(f"{PLUGIN_PACKAGE}.plugins.{plugin}")
    except Exception:
        # Whatever went wrong, what this loaded is forgotten, and the plain imports in
        # _detectors and _hinted load detect-secrets as it is (or fail as it would have).
        if registered:
            for name in [n for n in sys.modules if n.partition(".")[0] == PLUGIN_PACKAGE]:
                del sys.modules[name]
    finally:
        # The loaded plugins keep the stand-in; an import of the library from now on
        # loads the real one.
        if sys.modules.get(HTTP_LIBRARY) is stand_in:
            del sys.modules[HTTP_LIBRARY]


FORMAT_PLUGINS = (
    "aws",
    "azure_storage_key",
    "discord",
    "github_token",
    "gitlab_token",
    "jwt",
    "mailchimp",
    "npm",
    "openai",
    "pypi_token",
    "sendgrid",
    "slack",
    "square_oauth",
    "stripe",
    "telegram_token",
    "twilio",
)
"""The detect-secrets plugin modules of the known token formats (the imports in
:func:`_detectors`), asked about every candidate line."""
HINTED_PLUGINS = ("basic_auth", "high_entropy_strings", "keyword", "private_key")
"""The plugin modules asked only about a line holding their hint (:func:`_hinted`): the
keyword list alone costs about as much to import as the sixteen formats, and most records
hold no `key`, `pass` or `secret` at all."""


@cache
def _detectors() -> _Detectors:
    """The chosen plugins, built on first use.

    detect-secrets costs ~35 ms to import even without its scanner and HTTP stack
    (:func:`_import_plugins_without_the_scanner`), paid by every command at start-up when
    imported at module level; a run whose documents all come from the cache never scans,
    so it is imported here.
    """
    _import_plugins_without_the_scanner(FORMAT_PLUGINS)
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
    from detect_secrets.plugins.discord import DiscordBotTokenDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.mailchimp import MailchimpDetector
    from detect_secrets.plugins.npm import NpmDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.square_oauth import SquareOAuthDetector
    from detect_secrets.plugins.stripe import StripeDetector
    from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
    from detect_secrets.plugins.twilio import TwilioKeyDetector

    jwt = JwtTokenDetector()
    return _Detectors(
        known_formats=(
            AWSKeyDetector(),
            AzureStorageKeyDetector(),
            DiscordBotTokenDetector(),
            GitHubTokenDetector(),
            GitLabTokenDetector(),
            jwt,
            MailchimpDetector(),
            NpmDetector(),
            OpenAIDetector(),
            PypiTokenDetector(),
            SendGridDetector(),
            SlackDetector(),
            SquareOAuthDetector(),
            StripeDetector(),
            TelegramBotTokenDetector(),
            TwilioKeyDetector(),
            _Pattern("Google API key", r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
            _Pattern("Anthropic API key", r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}"),
            _Pattern(
                "OpenAI API key",
                r"(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}",
                r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9]{48}(?![A-Za-z0-9])",
            ),
            _Pattern("GitHub fine-grained token", r"(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}"),
        ),
        jwt=jwt,
    )


@cache
def _hinted() -> _HintedDetectors:
    """The private-key, basic-auth, entropy and keyword detectors, built the first time a
    line holds one's hint (see :func:`_line_hits`)."""
    _import_plugins_without_the_scanner(HINTED_PLUGINS)
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString
    from detect_secrets.plugins.keyword import CONFIG_DENYLIST_REGEX_TO_GROUP
    from detect_secrets.plugins.private_key import PrivateKeyDetector

    return _HintedDetectors(
        private_key=PrivateKeyDetector(),
        basic_auth=BasicAuthDetector(),
        entropy=Base64HighEntropyString(),
        keyword_regexes=CONFIG_DENYLIST_REGEX_TO_GROUP,
    )


# A line worth asking the detectors about: a long run of token characters, a URL, a key block,
# a quoted value assigned to something.
_CANDIDATE = re.compile(
    r"[A-Za-z0-9_+/=.:@-]{12,}|PRIVATE KEY|PuTTY-User-Key|[:=]\s*[\"'][^\s\"']{8}"
)
# The characters a token can be wrapped between (ASCII only: a membership test is exact).
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=-")
_URL_CREDENTIAL = LazyPattern(
    r"[?&#](client_secret|code|access_token|refresh_token|id_token|token|api_key|apikey|key)"
    r"=([^&#\s)\]>\"'`<]+)",
    re.IGNORECASE,
)
# detect-secrets' keyword list has no `token`; these assignments are asked about too.
_TOKEN_ASSIGNMENT = LazyPattern(
    r"(?<![A-Za-z0-9])([A-Za-z0-9_.-]*(?:token|bearer|credential)s?)[\"'`]?\s*[:=]\s*[\"'`]?"
    r"([A-Za-z0-9_+/=.~-]{12,})",
    re.IGNORECASE,
)
# A quoted literal assigned to a key named like a secret (`password = "…"`, `api_key: '…'`):
# the quotes say a value was pasted, so a real-looking one is reported even when it is not
# random enough for the entropy rule (a human-chosen password).
_QUOTED_ASSIGNMENT = LazyPattern(
    r"(?<![A-Za-z0-9])([A-Za-z0-9_.-]*(?:passw(?:or)?d|passphrase|pwd|secret|api[_-]?key|apikey"
    r"|access[_-]?key|private[_-]?key|token|credential)s?)[\"'`]?\s*[:=]\s*"
    r"([\"'])([^\s\"']{8,200})\2",
    re.IGNORECASE,
)
_QUOTED_HINTS = ("pass", "pwd", "secret", "key", "token", "credential")
_ENVIRONMENT_NAME = LazyPattern(r"^[A-Z][A-Z0-9_]*$")
# The seed names OAuth and callback URLs as credential material: in an attribution's `ref`
# (where agents paste the page they worked from) such a URL is reported whatever its query.
_ATTRIBUTION_REF = LazyPattern(r"\bref\s*:\s*<?([a-z][a-z0-9+.-]*://[^\s\u00b7*>]+)", re.I)
_OAUTH_URL = LazyPattern(
    r"oauth|callback|authori[sz]e|redirect_uri|[/?&](?:auth|token|consent)(?:[/?&#=]|$)", re.I
)
_PLACEHOLDER = LazyPattern(
    r"^(?:<.*>|\{.*\}|\$\{.*\}|\$[A-Z_][A-Z0-9_]*|%[A-Z_]+%|[xX*.\u2026_-]+)$"
    r"|redacted|example|placeholder|changeme|dummy|your[_-]|xxxx|\.\.\.",
    re.IGNORECASE,
)
_HEX = LazyPattern(r"^[0-9a-fA-F]+$")
_UUID = LazyPattern(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")
_DATE_LIKE = LazyPattern(r"^\d{4}-\d{2}-\d{2}(?:[T ][\d:.+Z-]*)?$")
_KEY_ARMOR_BODY = LazyPattern(r"^[A-Za-z0-9+/=]{40,}$|^(?:Proc-Type|Comment|DEK-Info):", re.I)


def _looks_like_an_identifier(value: str) -> bool:
    """Shas, UUIDs, dates and numbers: what a knowledge base is full of and a secret is not."""
    if _UUID.match(value) or _DATE_LIKE.match(value) or value.isdigit():
        return True
    return bool(_HEX.match(value)) and (7 <= len(value) <= 12 or len(value) in (40, 64))


def _credential_value(value: str, minimum: int) -> bool:
    value = value.strip("\"'`")
    return (
        len(value) >= minimum
        and not _PLACEHOLDER.search(value)
        and not _looks_like_an_identifier(value)
    )


# A key that names something *about* a secret (its policy, location, length...), not the secret.
_DESCRIPTIVE_KEY = LazyPattern(
    r"(?:policy|rotation|location|path|file|manager|length|hint|name|store|vault|format|type"
    r"|url|env|var|id|ttl|expiry|expires|limit|budget|count)s?$",
    re.IGNORECASE,
)
# Six lowercase letters in a row: a word ("rollout", "harbor"), rare in generated key material.
_WORDY = LazyPattern(r"[a-z]{6,}")


def _key_of(assignment: str) -> str:
    return re.split(r"[\s:=\"'`\]\[]", assignment.strip("\"'`["), maxsplit=1)[0]


def _high_entropy(value: str) -> bool:
    """A value that reads like generated key material, not a word, path or version."""
    value = value.strip("\"'`")
    if len(value) < 12 or " " in value or value.lower().startswith(("http:", "https:")):
        return False
    if _WORDY.search(value):
        return False
    if not (re.search(r"[A-Za-z]", value) and re.search(r"\d", value)):
        return False
    if not _credential_value(value, 12):
        return False
    entropy: float = _hinted().entropy.calculate_shannon_entropy(value)
    return entropy >= 3.0


def _real_looking(value: str) -> bool:
    """A quoted value that reads like a chosen password or key, not a word, name or variable."""
    if not _credential_value(value, 8) or _ENVIRONMENT_NAME.match(value):
        return False
    if "://" in value or value.startswith(("/", "~", "./")):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    mixed_case = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return (letters and digits) or mixed_case


def _windows(text: str) -> Iterator[str]:
    if len(text) <= WINDOW:
        yield text
        return
    for start in range(0, len(text), WINDOW - OVERLAP):
        yield text[start : start + WINDOW]


def _shortest_match(regex: re.Pattern[str]) -> int:
    """The fewest characters any match of ``regex`` spans, from Python's own regex parser.

    It is the bound ``re`` itself compiles into the pattern (a shorter string fails at
    once), so a string shorter than this cannot match.  0 (ask every time) should
    that private parser ever be missing or different.
    """
    try:
        parser = importlib.import_module("re._parser")
        shortest = parser.parse(regex.pattern, regex.flags).getwidth()[0]
    except Exception:  # a private module of the standard library: never trusted blindly
        return 0
    return shortest if isinstance(shortest, int) and shortest >= 0 else 0


@cache
def _known_formats() -> tuple[tuple[str, re.Pattern[str], bool, int], ...]:
    """Every known format's regexes in the detectors' order: (kind, regex, is JWT, shortest)."""
    detectors = _detectors()
    return tuple(
        (detector.secret_type, regex, detector is detectors.jwt, _shortest_match(regex))
        for detector in detectors.known_formats
        for regex in detector.denylist
    )


def load_detectors() -> None:
    """Import and build the detectors now (before a pool forks, so no worker repeats it)."""
    _known_formats()
    _hinted()


@cache
def _formats_fitting(length: int) -> tuple[tuple[str, re.Pattern[str], bool], ...]:
    """The known formats' regexes that can match within ``length`` characters, in order.

    Most strings asked about are short (the two words at a line break, below): they
    pay for the two or three formats short enough to fit, not for thirty regexes.
    """
    return tuple(
        (kind, regex, jwt) for kind, regex, jwt, shortest in _known_formats() if shortest <= length
    )


def _format_hits(text: str) -> Iterator[tuple[str, str]]:
    """Known token formats: each detector's own patterns, whole matches (not capture groups)."""
    for window in _windows(text):
        for (
            kind,
            regex,
            jwt,
        ) in _formats_fitting(min(len(window), WINDOW)):
            for match in regex.finditer(window):
                value = match.group(0)
                if jwt and not _detectors().jwt.is_formally_valid(value):
                    continue
                yield kind, value


# A name worth asking the token formats about: every known format has a run this long.
_NAME_CANDIDATE = re.compile(r"[A-Za-z0-9_]{16,}")


def secrets_in_name(name: str) -> list[tuple[str, str]]:
    """(kind, token) for each known token format in a file or folder ``name``.

    Known formats only: a name is no assignment, and a long slug is not a high-entropy
    secret, so the keyword and entropy detectors are not asked (no false defect on a name).
    """
    if not _NAME_CANDIDATE.search(name):
        return []
    return list(dict.fromkeys(_format_hits(name)))


_SECRET_WORDS = ("key", "pass", "pwd", "secret", "contrase")
_TOKEN_WORDS = ("token", "bearer", "credential")


def _line_hits(text: str, following: str) -> Iterator[tuple[str, str]]:
    """(kind, secret value) for one line; ``following`` is the next line (key blocks).

    Each family of patterns runs only when the line holds its cheap literal hint
    (`://`, `PRIVATE KEY`, a secret-like word): most lines pay for none of them.
    """
    yield from _format_hits(text)
    for window in _windows(text):
        lowered = window.lower()
        url = "://" in window
        if "PRIVATE KEY" in window or "PuTTY-User-Key" in window:
            markers = list(_hinted().private_key.analyze_string(window))
            if markers and _KEY_ARMOR_BODY.match(following.strip()):
                yield "private key block", markers[0]
        if url and "@" in window:
            for value in _hinted().basic_auth.analyze_string(window):
                if _credential_value(value, 3):
                    yield "URL with a password", value
        if url and "=" in window:
            for match in _URL_CREDENTIAL.finditer(window):
                if "://" in window[: match.start()] and _credential_value(match.group(2), 6):
                    yield f"URL with a `{match.group(1)}` value", match.group(2)
        if any(word in lowered for word in _SECRET_WORDS):
            for regex, group in _hinted().keyword_regexes.items():
                found = regex.search(window)
                if (
                    found
                    and not _DESCRIPTIVE_KEY.search(_key_of(found.group(0)))
                    and _high_entropy(found.group(group))
                ):
                    yield (
                        f"high-entropy value for `{found.group(1)}`",
                        found.group(group).strip("\"'`"),
                    )
        if any(word in lowered for word in _TOKEN_WORDS):
            for match in _TOKEN_ASSIGNMENT.finditer(window):
                if not _DESCRIPTIVE_KEY.search(match.group(1)) and _high_entropy(match.group(2)):
                    yield f"high-entropy value for `{match.group(1)}`", match.group(2)
        if ("'" in window or '"' in window) and any(word in lowered for word in _QUOTED_HINTS):
            for match in _QUOTED_ASSIGNMENT.finditer(window):
                if not _DESCRIPTIVE_KEY.search(match.group(1)) and _real_looking(match.group(3)):
                    yield f"quoted value for `{match.group(1)}`", match.group(3)
        if url and "ttribution" in window:
            for match in _ATTRIBUTION_REF.finditer(window):
                if _OAUTH_URL.search(match.group(1)):
                    yield "OAuth or callback URL in an attribution `ref`", match.group(1)


class Found(NamedTuple):
    """A secret as found: never cached, never printed (only :func:`redact` of it leaves)."""

    line: int
    kind: str
    value: str


def find_secrets(lines: Iterable[str]) -> list[Found]:
    """Every secret in ``lines`` (code fences included: every byte of the record counts).

    One finding per secret: where detectors agree on overlapping text of one line (a
    GitHub token that is also a URL's `token` value and a high-entropy assignment) the
    first, most specific, is kept.  A known token format wrapped across a line break
    is found at the junction of the two lines and reported on the first.
    """
    found: list[Found] = []
    spans: dict[int, list[tuple[int, int]]] = {}
    numbered = list(lines)

    def add(line: int, kind: str, value: str, text: str) -> None:
        start = text.find(value)
        span = (start, start + len(value)) if start >= 0 else (len(text), len(text) + len(value))
        taken = spans.setdefault(line, [])
        if any(span[0] < end and begin < span[1] for begin, end in taken):
            return
        taken.append(span)
        found.append(Found(line, kind, value))

    shortest = min((entry[3] for entry in _known_formats()), default=0)
    for index, text in enumerate(numbered):
        following = numbered[index + 1] if index + 1 < len(numbered) else ""
        if _CANDIDATE.search(text):
            for kind, value in _line_hits(text, following):
                add(index + 1, kind, value, text)
        head = following.lstrip()
        if text and head and text[-1] in _TOKEN_CHARS and head[0] in _TOKEN_CHARS:
            tail = text[-200:].rsplit(None, 1)[-1]  # str.split and re's \s: the same whitespace
            start = head[:200].split(None, 1)[0]
            if len(tail) + len(start) < shortest:
                continue  # the usual two words at a line break: no format fits in them
            joined = tail + start
            for kind, value in _format_hits(joined):
                if value not in tail and value not in start:
                    # Not within the line: its span starts past the line's end.
                    add(index + 1, f"{kind} (split across lines)", value, text)
    return found


def scan_lines(lines: Iterable[str]) -> list[SecretHit]:
    """:func:`find_secrets`, redacted: what may be kept and shown."""
    return [SecretHit(hit.line, hit.kind, redact(hit.value)) for hit in find_secrets(lines)]


# -- redaction: no quoted text may carry a secret out ---------------------------------
