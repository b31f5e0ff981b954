"""Applying the fixes findings carry (``check --fix``, ``--unsafe-fixes``, ``--diff``; docs/editor.md).

Checks describe repairs as data (:class:`~context_doctor.report.findings.Fix`); this
module turns them into new bytes, one file at a time, and writes them only
through :mod:`context_doctor.write`. Every edit is verified before anything is
written: an index edit must change exactly the one value it names (the file is
re-read with ruamel and compared as data), a frontmatter edit must remove
exactly its key. A fix that cannot be applied exactly is skipped with its
reason, and its finding stays in the report.

Index edits are spliced into the text at the position ruamel reports for the
value, keeping the rest of the file byte for byte: comments, key order, quoting
style, indentation and line breaks survive (decision: a ruamel dump re-indents
the whole file, which a one-value fix must not do).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from context_doctor import write
from context_doctor.editor.edit import decode, split_lines, unified_diff
from context_doctor.freshness.frontmatter import read_frontmatter
from context_doctor.guards.text import newline_of
from context_doctor.guards.yamlio import careful_load, plain
from context_doctor.model.source import Corpus, Source
from context_doctor.report.findings import (
    AppendLine,
    Applicability,
    Finding,
    Fix,
    FixEdit,
    RemoveFrontmatterKey,
    RewritePath,
    SetEntryField,
)

_PLAIN_END = re.compile(r"\s+#|\s*$")
_SAFE_SCALAR = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


class NotApplicable(Exception):
    """A fix that cannot be applied exactly to the file as it is now."""


@dataclass
class FilePlan:
    """The new bytes of one file, and the findings whose fixes produced them."""

    path: Path
    rel_path: str
    snapshot: write.FileSnapshot
    after: bytes
    within: Path
    findings: list[Finding] = field(default_factory=list)

    def diff(self) -> str:
        return unified_diff(self.snapshot.data, self.after, self.rel_path)


@dataclass
class FixPlan:
    files: list[FilePlan]
    skipped: list[tuple[Finding, str]]  # a fix that could not be applied, and why

    @property
    def fixed(self) -> int:
        return sum(len(plan.findings) for plan in self.files)

    def diff(self) -> str:
        return "".join(plan.diff() for plan in self.files)


def wanted(finding: Finding, unsafe: bool) -> bool:
    fix = finding.fix
    return fix is not None and (unsafe or fix.applicability is Applicability.SAFE)


def plan_fixes(findings: Iterable[Finding], corpus: Corpus, *, unsafe: bool) -> FixPlan:
    """Compute (never write) what ``--fix`` would write; ``unsafe`` adds the unsafe fixes."""
    sources = {source.name: source for source in corpus.sources}
    by_file: dict[tuple[str, str], list[Finding]] = {}
    for finding in findings:
        if wanted(finding, unsafe) and finding.source in sources:
            assert finding.fix is not None
            by_file.setdefault((finding.source, finding.fix.path), []).append(finding)
    files: list[FilePlan] = []
    skipped: list[tuple[Finding, str]] = []
    for (source_name, rel_path), group in sorted(by_file.items()):
        source = sources[source_name]
        plan = _plan_file(source, rel_path, group, skipped)
        if plan is not None:
            files.append(plan)
    return FixPlan(files, skipped)


def _plan_file(
    source: Source, rel_path: str, findings: list[Finding], skipped: list[tuple[Finding, str]]
) -> FilePlan | None:
    top = source.repository.toplevel
    if rel_path.startswith("/") or ".." in rel_path.split("/"):
        skipped.extend(
            (finding, f"{rel_path} is not inside the repository") for finding in findings
        )
        return None
    path = top / rel_path
    try:
        snapshot = write.read_snapshot(path, within=top)
    except write.WriteRefused as refused:
        skipped.extend((finding, refused.message) for finding in findings)
        return None
    text = decode(path, snapshot.data)
    body = text.body
    applied: list[Finding] = []
    done: dict[Fix, str] = {}  # two findings may carry the same fix: apply it once
    for finding in findings:
        fix = finding.fix
        assert fix is not None
        if fix in done:
            applied.append(finding)
            continue
        try:
            new_body = body
            for edit in fix.edits:
                new_body = apply_edit(new_body, edit)
        except NotApplicable as reason:
            skipped.append((finding, str(reason)))
            continue
        body = done[fix] = new_body
        applied.append(finding)
    after = text.encode(body)
    if after == snapshot.data:
        skipped.extend((finding, "the file already holds it") for finding in applied)
        return None
    return FilePlan(path, rel_path, snapshot, after, top, applied)


def apply_plan(plan: FixPlan) -> None:
    """Write every planned file through the one write path (refusals propagate)."""
    for file_plan in plan.files:
        write.replace_file(file_plan.snapshot, file_plan.after, within=file_plan.within)


# -- the edits ---------------------------------------------------------------------


def apply_edit(body: str, edit: FixEdit) -> str:
    if isinstance(edit, SetEntryField):
        return set_entry_field(body, edit)
    if isinstance(edit, RemoveFrontmatterKey):
        return remove_frontmatter_key(body, edit.key)
    if isinstance(edit, RewritePath):
        return rewrite_path(body, edit)
    return append_line(body, edit)


def _line_break(lines: list[str]) -> str:
    """The file's newline: guards/text.py's CRLF rule (its first line ends with its first break)."""
    return newline_of(lines[0]) if lines else "\n"


def _render(value: str | bool, quote: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if not _SAFE_SCALAR.fullmatch(value):
        raise NotApplicable(f"`{value}` is not a value the fixer writes")
    return f"{quote}{value}{quote}"


def _entries(data: Any) -> Any:
    return data.get("projects") if isinstance(data, dict) else data


def set_entry_field(body: str, edit: SetEntryField) -> str:
    """Set one key of one index entry, splicing the text; verified by reading it back."""
    try:
        data = careful_load(body)
    except Exception as error:
        raise NotApplicable(
            f"the index no longer reads as YAML ({error.__class__.__name__})"
        ) from error
    entries = _entries(data)
    index = edit.position - 1
    if not isinstance(entries, list) or not 0 <= index < len(entries):
        raise NotApplicable(f"entry {edit.position} is no longer in the index")
    entry = entries[index]
    if not isinstance(entry, dict) or entry.get("id") != edit.entry_id:
        raise NotApplicable(f"entry {edit.position} is no longer `{edit.entry_id}`")
    style = getattr(entry, "fa", None)
    if style is None or style.flow_style():
        raise NotApplicable(f"the `{edit.entry_id}` entry is written in flow style")
    lines = split_lines(body)
    if edit.key in entry:
        lines = _replace_value(lines, entry, edit)
    else:
        lines = _add_key(lines, entry, edit)
    result = "".join(lines)
    expected = plain(data)
    expected_entries = _entries(expected)
    expected_entries[index][edit.key] = edit.value
    try:
        reread = plain(careful_load(result))
    except Exception as error:
        raise NotApplicable("the edited index would not read back as YAML") from error
    if reread != expected:
        raise NotApplicable(f"setting `{edit.key}` would change more than that one value")
    return result


def _replace_value(lines: list[str], entry: Any, edit: SetEntryField) -> list[str]:
    if entry[edit.key] is None:
        raise NotApplicable(f"`{edit.key}:` has no value to replace")
    row, column = entry.lc.value(edit.key)
    line = lines[row]
    content = line.rstrip("\r\n")
    first = content[column : column + 1]
    if first in ("'", '"'):
        end = content.find(first, column + 1)
        if end < 0 or (first == "'" and content[end + 1 : end + 2] == "'"):
            raise NotApplicable(f"`{edit.key}` has a quoted value the fixer does not rewrite")
        stop, token = end + 1, _render(edit.value, first)
    elif first and first not in "|>&*!{[":
        match = _PLAIN_END.search(content, column)
        assert match is not None
        stop, token = match.start(), _render(edit.value, "")
    else:
        raise NotApplicable(f"`{edit.key}` has a value the fixer does not rewrite")
    lines[row] = line[:column] + token + line[stop:]
    return lines


def _add_key(lines: list[str], entry: Any, edit: SetEntryField) -> list[str]:
    last = list(entry)[-1]
    row, column = entry.lc.key(last)
    value_row, _ = entry.lc.value(last)
    if value_row != row or isinstance(entry[last], dict | list):
        raise NotApplicable(f"the `{edit.entry_id}` entry does not end in a one-line value")
    new = " " * column + f"{edit.key}: {_render(edit.value, '')}" + _line_break(lines)
    if not lines[row].endswith(("\n", "\r")):
        lines[row] += _line_break(lines)
    lines.insert(row + 1, new)
    return lines


def remove_frontmatter_key(body: str, key: str) -> str:
    """Remove the one-line ``key:`` from the leading frontmatter block; verified by reading it back."""
    front, problem = read_frontmatter(body)
    if front is None or key not in front.data:
        raise NotApplicable(problem or f"the frontmatter has no `{key}`")
    lines = split_lines(body)
    index = front.lines[key] - 1
    following = lines[index + 1] if index + 1 < len(lines) else ""
    if following[:1] in (" ", "\t") or not lines[index].startswith(f"{key}:"):
        raise NotApplicable(f"`{key}` is not a one-line key the fixer removes")
    result = "".join(lines[:index] + lines[index + 1 :])
    after, _ = read_frontmatter(result)
    expected = {name: value for name, value in front.data.items() if name != key}
    if after is None or after.data != expected:
        raise NotApplicable(f"removing `{key}` would change more of the frontmatter")
    return result


def append_line(body: str, edit: AppendLine) -> str:
    if "\n" in edit.text or "\r" in edit.text:
        raise NotApplicable("an appended line cannot hold a line break")
    lines = split_lines(body)
    if any(line.rstrip("\r\n") == edit.text for line in lines):
        raise NotApplicable("the file already holds that line")
    newline = _line_break(lines)
    joined = body if not body or body.endswith(("\n", "\r")) else body + newline
    last = lines[-1].strip() if lines else ""
    if edit.text.startswith("- ") and last and not last.startswith(("- ", "* ", "+ ")):
        joined += newline  # a list item after a paragraph or table starts its own block
    return joined + edit.text + newline


def rewrite_path(body: str, edit: RewritePath) -> str:
    """Rewrite one reference's path in place (docs/references.md): the line must still hold
    ``old`` at ``column``, and only those characters of the file change."""
    lines = split_lines(body)
    index = edit.line - 1
    if not 0 <= index < len(lines):
        raise NotApplicable(f"line {edit.line} is no longer in the file")
    line = lines[index]
    column = edit.column
    if edit.old and line[column : column + len(edit.old)] != edit.old and line.count(edit.old) == 1:
        column = line.index(edit.old)  # moved along its line by an earlier rewrite of it
    end = column + len(edit.old)
    if not edit.old or line[column:end] != edit.old:
        raise NotApplicable(f"line {edit.line} no longer holds `{edit.old}` where it was")
    if not edit.new or any(mark in edit.new for mark in ("\n", "\r", "`", "(", ")", " ", "]")):
        raise NotApplicable(f"`{edit.new}` is not a path the fixer writes")
    lines[index] = line[:column] + edit.new + line[end:]
    return "".join(lines)
