"""Secrets (docs/checks.md `secret-in-context`) on real repositories, in both directions.

Token-shaped values are assembled at run time (``_t``) so this repository never holds
a literal that a push-protection scanner would take for a leaked credential.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import Doctor, MakeRepo, template_tail

from context_doctor.guards.redact import redact
from context_doctor.model.secrets import (
    WINDOW,
    _formats_fitting,
    _known_formats,
    _shortest_match,
    scan_lines,
)

TODAY = "2026-06-20"


def _t(*parts: str) -> str:
    return "".join(parts)


GITHUB = _t("gh", "p_", "a1B2c3D4e5F6g7H8i9J0", "k1L2m3N4o5P6q7R8")
AWS = _t("AK", "IA", "Z7QX4MPL2WRT9KBN")
GOOGLE = _t("AI", "za", "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q")
ANTHROPIC = _t("sk", "-ant-", "api03-abcdEFGH1234ijklMNOP5678qrst")
OPENAI = _t("sk", "-proj-", "AbCdEf1234567890GhIjKlMnOp")
SLACK = _t("xo", "xb-", "123456789012-1234567890123-", "AbCdEfGhIjKlMnOpQrStUvWx")
JWT = _t(
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ",
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
)
KEY_BODY = "MIIEowIBAAKCAQEA7bq98a9s8d7f6g5h4j3k2l1qwertyuiopasdfghjkl"

FIRES = {
    "github token": (f"token: {GITHUB}", "GitHub Token", "ghp_"),
    "aws key": (f"Key id {AWS} from the console", "AWS Access Key", "AKIA"),
    "google key": (f"maps {GOOGLE}", "Google API key", "AIza"),
    "anthropic key": (f"export KEY={ANTHROPIC}", "Anthropic API key", "sk-a"),
    "openai key": (f"openai {OPENAI}", "OpenAI API key", "sk-p"),
    "slack token": (f"bot {SLACK}", "Slack Token", "xoxb"),
    "jwt": (f"Authorization: Bearer {JWT}", "JSON Web Token", "eyJh"),
    "url password": (
        _t("db: postgres://admin:", "S3cretPassw0rd", "@db.internal:5432/app"),
        "URL with a password",
        "S3cr",
    ),
    "oauth code": (
        _t("callback https://app.example.com/cb?co", "de=4/0AX4XfWhQ9z8kLmN&state=xyz"),
        "URL with a `code` value",
        "4/0A",
    ),
    "client secret": (
        _t("https://api.example.com/v1?client_", "secret=Zx9Yw8Vu7Ts6Rq5P"),
        "URL with a `client_secret` value",
        "Zx9Y",
    ),
    "refresh token": (
        _t("https://auth.example.com/t?refresh_", "token=1//0gHj8Kl2Mn4Pq6Rs8Tu"),
        "URL with a `refresh_token` value",
        "1//0",
    ),
    "keyword": (
        _t("api_key: ", "9xQ2mZ7LpR4tW8vB1nK6"),
        "high-entropy value for `api_key`",
        "9xQ2",
    ),
    "token assignment": (
        _t("GITHUB_TOKEN=", "ZmFrZVRva2VuMTIzNDU2Nzg5MGFi"),
        "high-entropy value for `GITHUB_TOKEN`",
        "ZmFr",
    ),
    # #18 item 11: a human-chosen password is not random, but quoted it was pasted.
    "quoted password": (
        _t('password = "', "hunter2", 'horse"'),
        "quoted value for `password`",
        "hunt",
    ),
    "quoted api key": (
        _t("api_key: '", "sunflower42", "'"),
        "quoted value for `api_key`",
        "sunf",
    ),
    "quoted db password": (
        _t('DB_PASSWORD="', "correct-Horse-staple", '"'),
        "quoted value for `DB_PASSWORD`",
        "corr",
    ),
    "oauth ref": (
        "*Attribution — agent: Codex · model: gpt-5 · effort: high · scope: auth · "
        + _t("verified: yes · ref: https://accounts.example.com/o/oauth2/", "auth?client_id=42*"),
        "OAuth or callback URL in an attribution `ref`",
        "http",
    ),
    "callback ref": (
        _t("*Attribution — agent: Codex · ref: https://app.example.com/", "auth/callback*"),
        "OAuth or callback URL in an attribution `ref`",
        "http",
    ),
}

QUIET = [
    "Commit a1b2c3d fixed it; see 3e79b38c1f0e2d4a5b6c7d8e9f0a1b2c3d4e5f60 for details.",
    "*Attribution — agent: Claude Code · model: unknown · effort: unknown · scope: x · "
    "verified: none · ref: a1b2c3d*",
    "Run 123e4567-e89b-12d3-a456-426614174000 on 2026-06-01T10:00:00+02:00.",
    "The internationalization refactor touched authentication middleware.",
    "post_close_reviewed_through: 3e79b38c1f0e2d4a5b6c7d8e9f0a1b2c3d4e5f60",
    "password: see the team vault",
    "api_key: <your-api-key>",
    "token: ${GITHUB_TOKEN}",
    "secret: xxxxxxxxxxxxxxxx",
    "https://github.com/org/repo/blob/main/README.md?plain=1#L10",
    "https://example.com/search?q=oauth+code&key=",
    "See https://docs.example.com/oauth?code=example for the flow.",
    "| Repo | git@example.invalid:atlas.git |",
    "Never paste -----BEGIN RSA PRIVATE KEY----- blocks into notes.",
    '"CONTEXT.md": "1fed07f248970394a3abff44322070f9a00584d5e03dbadb741646e8953682bf",',
    "token_budget: 4096",
    "tokens: 128000",
    "session_id: 2026-06-18-round-2-abc123",
    "secret_sauce: v2-rollout-2026Q3plan",  # words, not key material
    "api_key_rotation: quarterly2026review",  # a key *about* a secret
    "password_policy: min12chars-rotate90days",
    "client_secret_location: vault/kb/harbor-2026",
    "Use `context-doctor check --readiness remote` before switching machines.",
    'password: "see the vault"',
    'password = "<your password>"',
    'password: "changeme"',
    'password: "required"',
    'api_key: "ANTHROPIC_API_KEY"',  # the name of a variable, not its value
    'token = "prod-database"',
    "password_policy: 'min12chars'",
    'pwd = "/home/me/work1"',
    "*Attribution — agent: Codex · model: gpt-5 · effort: high · scope: x · verified: yes · "
    "ref: https://github.com/org/repo/pull/12*",
    "The OAuth callback lives at https://app.example.com/auth/callback (not in a ref).",
]


# -- the scanner, both directions ------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(FIRES))
def test_scanner_finds_each_kind(case: str) -> None:
    line, kind, shown = FIRES[case]
    hits = scan_lines([line])
    assert [(hit.line, hit.kind) for hit in hits] == [(1, kind)]
    assert hits[0].redacted == shown + "…"


@pytest.mark.parametrize("line", QUIET)
def test_scanner_stays_quiet_on_what_is_not_a_secret(line: str) -> None:
    assert scan_lines([line]) == []


@pytest.mark.parametrize(
    "line",
    [
        _t("see https://x.example/api?access_", "token=", JWT),
        _t("aws_secret_access_key = ", AWS, "1"),
        _t("https://me:", GITHUB, "@github.com/org/repo"),
        _t('api_key = "', ANTHROPIC, '"'),
    ],
)
def test_each_secret_is_reported_once_whatever_number_of_detectors_see_it(line: str) -> None:
    assert len(scan_lines([line])) == 1


def test_a_private_key_block_is_found() -> None:
    lines = ["```", "-----BEGIN RSA PRIVATE KEY-----", KEY_BODY, "-----END RSA PRIVATE KEY-----"]
    hits = scan_lines(lines)
    assert [(hit.line, hit.kind) for hit in hits] == [(2, "private key block")]


def test_a_token_wrapped_across_a_line_break_is_found() -> None:
    first, second = GITHUB[:22], GITHUB[22:]
    hits = scan_lines([f"pasted {first}", f"{second} by mistake"])
    assert [(hit.line, hit.kind, hit.redacted) for hit in hits] == [
        (1, "GitHub Token (split across lines)", "ghp_…")
    ]


WRAPPED = {
    "GitHub Token": GITHUB,
    "AWS Access Key": AWS,
    "Google API key": GOOGLE,
    "Anthropic API key": ANTHROPIC,
    "OpenAI API key": OPENAI,
    "Slack Token": SLACK,
    "JSON Web Token": JWT,
}


@pytest.mark.parametrize("kind", sorted(WRAPPED))
def test_each_known_format_wrapped_at_any_point_is_found(kind: str) -> None:
    """A short first piece too: only formats that cannot fit the two pieces are skipped."""
    token = WRAPPED[kind]
    for cut in (3, 4, len(token) // 2):
        hits = scan_lines([f"pasted {token[:cut]}", f"{token[cut:]} by mistake"])
        assert (1, f"{kind} (split across lines)") in [(hit.line, hit.kind) for hit in hits]


def test_a_format_is_skipped_only_where_it_cannot_fit() -> None:
    assert _shortest_match(re.compile(r"(?<!x)ab{3,}c?(?=d)")) == 4
    every = [(kind, regex, jwt) for kind, regex, jwt, _ in _known_formats()]
    assert list(_formats_fitting(WINDOW)) == every
    for length in (0, 6, 8, 20, 40):
        fitting = _formats_fitting(length)
        assert list(fitting) == [entry for entry in every if entry in fitting]
        for _kind, regex, _jwt in every:
            if (_kind, regex, _jwt) not in fitting:
                assert _shortest_match(regex) > length


def test_redaction_keeps_four_characters() -> None:
    assert redact("abcdefgh") == "abcd…"


_LIGHT_DETECTORS = """
import sys
from context_doctor.model import secrets
secrets.load_detectors()
loaded = [m for m in ("requests", "urllib3", "ssl", "http.client", "multiprocessing",
                      "detect_secrets.core.scan") if m in sys.modules]
hits = secrets.scan_lines(sys.argv[1].splitlines())
import detect_secrets  # the package root still works for anyone who asks it
import detect_secrets.plugins.aws as aws
root_works = detect_secrets.SecretsCollection.__name__
http_works = aws.requests.exceptions.RequestException.__module__
print(loaded, [hit.kind for hit in hits], root_works, http_works)
"""


def test_detectors_load_without_the_scanner_or_the_http_stack() -> None:
    """detect-secrets' plugins, without its scan core or requests/urllib3/ssl; both
    still load, in full, when something else asks for them."""
    done = subprocess.run(
        [sys.executable, "-c", _LIGHT_DETECTORS, f"Key id {AWS} from the console"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split("] ", 1)[0] == "["
    assert done.stdout.rstrip().endswith("SecretsCollection requests.exceptions")
    assert "AWS Access Key" in done.stdout


_HINTED_LATER = """
import sys
from context_doctor.model import secrets
first = [hit.kind for hit in secrets.scan_lines(sys.argv[1].splitlines())]
before = "detect_secrets.plugins.keyword" in sys.modules
second = [hit.kind for hit in secrets.scan_lines(['password = "Tr0ub4dor&3xyz"'])]
print(first, before, "detect_secrets.plugins.keyword" in sys.modules, second)
"""


def test_the_keyword_detectors_load_only_for_a_line_holding_their_hint() -> None:
    """A record with no `key`, `pass` or `secret` never pays for the keyword list."""
    done = subprocess.run(
        [sys.executable, "-c", _HINTED_LATER, f"Id {AWS} from the console"],
        capture_output=True,
        text=True,
        check=True,
    )
    first, rest = done.stdout.split("] ", 1)
    assert "AWS Access Key" in first
    assert rest.startswith("False True [")
    assert "value for `password`" in rest


def test_a_five_megabyte_line_is_scanned_in_bounded_windows() -> None:
    hits = scan_lines(["x" * 5_000_000 + f" {GITHUB}"])
    assert [hit.kind for hit in hits] == ["GitHub Token"]


# -- the check on a real repository ------------------------------------------------------------


def _repo(make_repo: MakeRepo, files: dict[str, str]) -> Path:
    base = {
        "projects/index.yaml": "- id: p\n  status: active\n  last_session: 2026-06-01\n",
        "projects/p/CONTEXT.md": "# P\n\n**Status:** Active\n**Last session:** 2026-06-01\n"
        + template_tail(),
    }
    return make_repo(
        {"commits": [{"date": "2026-06-01T10:00:00+00:00", "files": {**base, **files}}]}
    )


def _audit(doctor: Doctor, root: Path, *extra: str) -> Run:
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json", *extra)
    assert run.exit_code in (0, 1), run.stderr
    return run


def test_every_tier_file_log_state_file_and_artifact_is_scanned(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = _repo(
        make_repo,
        {
            "projects/p/REFERENCE.md": f"# Ref\n\nmaps key {GOOGLE}\n",
            "projects/p/reference/auth.md": f"# Auth\n\n```\n{FIRES['jwt'][0]}\n```\n",
            "projects/p/sessions/2026-06.md": f"# June\n\n## 2026-06-01 — work\nbot {SLACK}\n",
            "projects/p/sessions/README.md": f"# Logs\n\nold key {AWS}\n",
            "projects/p/CURRENT_STATE.json": json.dumps({"note": f"{OPENAI}"}) + "\n",
            "projects/p/resources/artifacts/oauth.md": f"# OAuth\n\n{FIRES['oauth code'][0]}\n",
        },
    )
    run = _audit(doctor, root, "--select", "secret-in-context")
    found = {(f["path"], f["line"]) for f in run.findings("secret-in-context")}
    assert found == {
        ("projects/p/REFERENCE.md", 3),
        ("projects/p/reference/auth.md", 4),  # inside a code fence: still reported
        ("projects/p/sessions/2026-06.md", 4),
        ("projects/p/sessions/README.md", 3),
        ("projects/p/CURRENT_STATE.json", 1),
        ("projects/p/resources/artifacts/oauth.md", 3),
    }
    for finding in run.findings("secret-in-context"):
        assert finding["severity"] == "defect"
    assert run.exit_code == 1


@pytest.mark.parametrize("output", ["human", "concise", "json", "sarif", "github"])
def test_no_output_repeats_the_secret(
    make_repo: MakeRepo, doctor: Doctor, output: str, isolated_home: Path, tmp_path: Path
) -> None:
    root = _repo(make_repo, {"projects/p/REFERENCE.md": f"# Ref\n\ntoken: {GITHUB}\n"})
    cache = tmp_path / "last-report.json"
    run = doctor(
        "check", "--source", str(root), "--today", TODAY, "--output-format", output,
        "--report-cache", str(cache),
    )  # fmt: skip
    assert run.exit_code == 1, run.stderr
    assert "ghp_…" in run.stdout
    assert GITHUB[4:] not in run.stdout
    assert GITHUB[:8] not in run.stdout
    if cache.exists():
        assert GITHUB[4:] not in cache.read_text(encoding="utf-8")


def test_clean_corpus_is_quiet(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _repo(make_repo, {"projects/p/REFERENCE.md": "# Ref\n\n" + "\n".join(QUIET) + "\n"})
    run = _audit(doctor, root, "--select", "secret-in-context")
    assert run.findings() == []
    assert run.json["coverage"]["secret-in-context"] == {
        "examined": 1,
        "skipped": 0,
        "reasons": {},
    }


def test_a_project_without_files_is_skipped(make_repo: MakeRepo, doctor: Doctor) -> None:
    """A registered project with no directory has nothing to scan: skipped, and said so."""
    root = _repo(make_repo, {})
    index = root / "projects" / "index.yaml"
    index.write_text(index.read_text() + "- id: gone\n  status: active\n")
    run = _audit(doctor, root, "--select", "secret-in-context")
    coverage: dict[str, Any] = run.json["coverage"]["secret-in-context"]
    assert coverage["examined"] == 1
    assert coverage["reasons"] == {"no project directory": 1}


def test_secret_in_an_oversized_log_is_a_clear_skip_not_a_hang(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    big = "# June\n\n## 2026-06-01 — work\n" + ("Ordinary prose line.\n" * 260_000)
    root = _repo(make_repo, {"projects/p/sessions/2026-06.md": big + f"token: {GITHUB}\n"})
    run = _audit(doctor, root)
    unreadable = run.findings("record-unreadable")
    scanned = run.findings("secret-in-context")
    # Either the file is refused as too large (record-unreadable says so) or it is scanned.
    assert unreadable or scanned


def test_a_registered_project_without_a_directory_is_a_counted_skip_of_record_unreadable(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """docs/output.md: no directory, nothing to read; context-present reports the project."""
    root = _repo(make_repo, {})
    index = root / "projects" / "index.yaml"
    index.write_text(index.read_text() + "- id: gone\n  status: active\n")
    run = _audit(doctor, root, "--select", "record-unreadable,context-present")
    assert run.json["coverage"]["record-unreadable"]["reasons"] == {"no project directory": 1}
    assert [f["project"] for f in run.findings("context-present")] == ["gone"]
