"""Suppression comments as facts of a document (context_doctor/model/suppressions.py)."""

from __future__ import annotations

from pathlib import Path

from context_doctor.model.documents import Document
from context_doctor.model.suppression_comments import NEXT_LINE, REST_OF_FILE, yaml_suppressions


def comments(text: str) -> list[tuple[int, str, tuple[str, ...], int | None, str | None]]:
    document = Document.from_text(text, Path("CONTEXT.md"), "p/CONTEXT.md")
    return [(c.line, c.kind, c.checks, c.target_line, c.problem) for c in document.suppressions]


def test_next_line_comment_covers_the_next_non_blank_line() -> None:
    text = "# T\n\n<!-- context-doctor: disable-next-line context-budget, item-currency -->\n\n- [ ] x\n"
    assert comments(text) == [(3, NEXT_LINE, ("context-budget", "item-currency"), 5, None)]


def test_rest_of_file_comment_covers_later_lines_and_the_whole_file() -> None:
    document = Document.from_text(
        "# T\n<!-- context-doctor: disable body-currency -->\n", Path("C.md"), "C.md"
    )
    (comment,) = document.suppressions
    assert comment.kind == REST_OF_FILE
    assert comment.covers(None) and comment.covers(3) and not comment.covers(1)


def test_a_comment_inside_a_code_fence_is_an_example_not_a_suppression() -> None:
    text = "# T\n\n```\n<!-- context-doctor: disable context-budget -->\n```\n\n    <!-- context-doctor: disable x -->\n"
    assert comments(text) == []


def test_an_inline_comment_inside_a_paragraph_counts_with_its_own_line() -> None:
    text = "# T\n\nsome text\nmore <!-- context-doctor: disable-next-line item-currency -->\n- [ ] item\n"
    assert comments(text) == [(4, NEXT_LINE, ("item-currency",), 5, None)]


def test_other_comments_are_ignored_and_malformed_ones_kept_with_a_problem() -> None:
    text = (
        "<!-- updated: 2026-01-01 by:x -->\n\n"
        "<!-- context-doctor: enable foo -->\n\n"
        "<!-- context-doctor: disable-next-line -->\n\n"
        "<!-- context-doctor: disable Bad_Name -->\n\n"
        "<!-- context-doctor: disable-next-line a,,b -->\n\nx\n"
    )
    problems = [(line, problem) for line, _, _, _, problem in comments(text)]
    assert [line for line, _ in problems] == [3, 5, 7, 9]
    assert all(problem for _, problem in problems)
    assert "unknown directive" in str(problems[0][1])
    assert "names no check" in str(problems[1][1])


def test_next_line_comment_at_the_end_names_no_target() -> None:
    assert comments("x\n\n<!-- context-doctor: disable-next-line a -->\n")[0][4] == (
        "no line follows it"
    )


def test_yaml_comments_skip_block_scalars_and_strings() -> None:
    text = (
        "projects:\n"
        "  # context-doctor: disable-next-line status-vocabulary\n"
        "  - id: a\n"
        "    note: |\n"
        "      # context-doctor: disable-next-line inside-a-string\n"
        "    other: '# context-doctor: disable-next-line no'\n"
        "    # context-doctor: disable-next-line completed-date\n"
        "\n"
        "    status: completed\n"
    )
    found = [(c.line, c.checks, c.target_line) for c in yaml_suppressions(text, "i.yaml")]
    assert found == [(2, ("status-vocabulary",), 3), (7, ("completed-date",), 9)]


def test_yaml_rest_of_file_is_markdown_only() -> None:
    (comment,) = yaml_suppressions("# context-doctor: disable x\na: 1\n", "i.yaml")
    assert comment.problem is not None and "Markdown-only" in comment.problem
