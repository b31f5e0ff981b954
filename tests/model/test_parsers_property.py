"""Random bytes, Markdown and YAML into the parsers: findings or exit 2, never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import Run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_doctor.errors import DoctorError, Unreadable
from context_doctor.model.documents import Document
from context_doctor.model.header import (
    DEFAULT_LAST_SESSION_NAMES,
    completion_reading,
    last_session_field,
)
from context_doctor.model.index import load_index
from context_doctor.model.sessions import entries_of, layout_entries

MARKDOWN_PIECES = st.sampled_from(
    [
        "# Title\n",
        "## 2026-06-01 — work\n",
        "### 2026-02-30 (round 3)\n",
        "**Status:** Active\n",
        "**Phase:** wave 4 **Last session:** 2026-08-23 (round 10)\n",
        "- [ ] todo\n",
        "- [x] done\n",
        "1. [ ] numbered\n",
        "```\n",
        "~~~\n",
        "    code\n",
        "[link](reference/a.md#x)\n",
        "| a | [b](reference/b.md) |\n|---|---|\n",
        "<!-- updated: 2026-01-01 by:me -->\n",
        "## Last Session: 2026-04-08\n",
        "- _Last updated: 2026-07-20_\n",
        "### 2026-05-13/14\n",
        "| 2026-07-29 | work |\n",
        "*State as of: 2026-08-24 (round 13)*\n",
        "---\n",
        "\n",
        "> quote\n",
        "**Status:** \n",
        "[broken](<>)\n",
        "\ufeff",
        "\r\n",
        "\t- nested\n",
    ]
)
markdown_text = st.lists(st.one_of(MARKDOWN_PIECES, st.text(max_size=40)), max_size=30).map("".join)


def _exercise(document: Document) -> None:
    try:
        _ = document.headings, document.list_items, document.links
        fields = document.header_fields
        completion_reading(
            [f for f in fields if f.name == "Status"], [f for f in fields if f.name == "Phase"]
        )
        entries_of(document, 0)
        layout_entries([document], document, log_in_context=True)
        last_session_field(document, DEFAULT_LAST_SESSION_NAMES, anywhere=True)
        _ = document.line_count, document.code_lines
    except Unreadable:
        pass  # the documented outcome for bytes that are not UTF-8 text


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=400))
def test_random_bytes_never_crash_the_markdown_model(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "CONTEXT.md"
    path.write_bytes(data)
    document = Document(path, "CONTEXT.md")
    _exercise(document)
    assert (document.problem is None) or isinstance(document.problem, str)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=markdown_text)
def test_random_markdown_never_crashes_the_model(tmp_path: Path, text: str) -> None:
    path = tmp_path / "CONTEXT.md"
    path.write_text(text, encoding="utf-8")
    _exercise(Document(path, "CONTEXT.md"))


YAML_PIECES = st.sampled_from(
    [
        "projects:\n",
        "- id: a\n",
        "  status: active\n",
        "  bounded: 'false'\n",
        "- 3\n",
        "  last_session: 2026-13-45\n",
        "  completed_date: 2026-01-01\n",
        "id: [\n",
        ": :\n",
        "- {id: b, status: 7}\n",
        "&a x\n",
        "*a\n",
        "!!python/object:os.system\n",
        "\t\n",
        "---\n",
        "...\n",
        "- id: \n",
        "'unterminated\n",
        "? complex\n",
    ]
)
yaml_text = st.lists(st.one_of(YAML_PIECES, st.text(max_size=20)), max_size=20).map("".join)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=yaml_text)
def test_random_yaml_index_is_an_index_or_a_doctor_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "index.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        index = load_index(path, "projects/index.yaml")
    except DoctorError as error:
        assert "index file" in error.problem
    else:
        for entry in index.entries:
            assert entry.project_id is None or isinstance(entry.project_id, str)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(context=st.binary(max_size=200), index=yaml_text)
def test_random_corpus_through_the_cli_exits_0_1_or_2(
    make_repo: Callable[..., Path], doctor: Callable[..., Run], context: bytes, index: str
) -> None:
    import base64

    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": index,
                        "projects/p/CONTEXT.md": {"base64": base64.b64encode(context).decode()},
                    },
                }
            ]
        }
    )
    run = doctor("check", "--source", str(root), "--today", "2026-06-20", "--json")
    assert run.exit_code in (0, 1, 2)
    assert "Traceback" not in run.stderr
    assert "internal error" not in run.stderr  # a crash hidden behind exit 2 is still a bug
    assert run.json["ok"] in (True, False)
