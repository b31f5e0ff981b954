"""Bastra-shaped vault files for the memory-vault tests (docs/vaults.md).

Memories are written the way Bastra's own writer and sample vaults write them:
YAML frontmatter with the ten required fields in Bastra's order, flow lists,
an indented `recall_when`, then prose.  Audit-log lines carry every field
Bastra's `AuditLog.record` writes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

LOG = ".bastra/audit-log.ndjson"
TODAY = "2026-06-15"


def memory(
    memory_id: str,
    *,
    type: str = "lesson",
    title: str | None = None,
    body: str | None = None,
    omit: tuple[str, ...] = (),
    extra: str = "",
) -> str:
    """One memory file's text; ``omit`` drops frontmatter lines by key, ``extra`` adds lines."""
    fields = [
        ("id", memory_id),
        ("title", json.dumps(title or memory_id.replace("-", " ").capitalize())),
        ("type", type),
        (
            "summary",
            json.dumps(
                f"What {memory_id} taught us, in one dense sentence for the recall hit list."
            ),
        ),
        ("topic_path", "[betrieb, ausrollen]"),
        ("tags", "[deployment, rollback]"),
        ("scope", "all-projects"),
        ("recall_when", "\n  - before the deployment starts\n  - when a rollout goes wrong"),
        ("related", "[]"),
        ("related_via", "[]"),
        ("sensitivity", "team"),
        ("source", '"synthetic fixture, Bastra-shaped"'),
        ("confidence", "0.85"),
        ("created", "2026-01-01"),
        ("updated", "2026-01-01"),
    ]
    lines = ["---"]
    for key, value in fields:
        if key in omit:
            continue
        lines.append(f"{key}:{'' if value.startswith(chr(10)) else ' '}{value}")
    if extra:
        lines.extend(extra.rstrip("\n").split("\n"))
    lines.append("---")
    lines.append("")
    lines.append(
        body
        if body is not None
        else (
            "Agree on the rollback window before the rollout starts, not during the incident:\n"
            "how far back can we go without losing data, and who decides."
        )
    )
    return "\n".join(lines) + "\n"


def entry(
    memory_id: str,
    operation: str,
    *,
    timestamp: str = "2026-01-01T09:00:00.000Z",
    number: int = 1,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
    **extra: Any,
) -> str:
    """One audit-log line as Bastra's `AuditLog.record` writes it."""
    snapshot = {"id": memory_id, "type": "lesson", "title": memory_id}
    data: dict[str, Any] = {
        "id": f"mf{number:04x}-a1b2c3",
        "memory_id": memory_id,
        "timestamp": timestamp,
        "actor": "assistant",
        "actor_detail": "claude-code",
        "operation": operation,
        "diff_before": dict(before)
        if before is not None
        else (None if operation in ("create", "restore") else snapshot),
        "diff_after": dict(after)
        if after is not None
        else (None if operation == "delete" else snapshot),
        "file_path": f"/Users/someone/vault/memories/all-projects/{memory_id}.md",
        "reason": "the user asked to keep this",
        "session_id": "0b7d2f3e-5a7c-4d1e-9f0a-1c2d3e4f5a6b",
    }
    data.update(extra)
    return json.dumps(data, ensure_ascii=False)


def log(*lines: str) -> str:
    return "".join(line + "\n" for line in lines)


def floors_file(path: Path, *floors: Mapping[str, Any]) -> Path:
    """Bastra's floors.json (an indented JSON array, as its writer lays it out)."""
    path.write_text(json.dumps(list(floors), indent=2) + "\n", encoding="utf-8")
    return path


def floor(memory_id: str, *, affirmed: str, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "memory_id": memory_id,
        "condition": "decision:rollout-v2",
        "reason": "the rollout decision is still open",
        "floored_at": "2026-05-01T08:00:00.000Z",
        "last_affirmed": affirmed,
    }
    data.update(extra)
    return data


def clean_vault_files() -> dict[str, str]:
    """A healthy vault: sample-shaped memories, a plain note, a trash that matches its log."""
    return {
        "memories/all-projects/deployment-rollback-window.md": memory(
            "deployment-rollback-window",
            body=(
                "Agree on the rollback window before the rollout starts.\n\n"
                "See [[back-up-before-migration]] and [[times-in-utc|UTC]].\n\n"
                "```\n[[not-a-link-in-code]]\n```\n"
            ),
            extra="aliases: [rollback-window]",
        ),
        "memories/all-projects/back-up-before-migration.md": memory(
            "back-up-before-migration", type="workflow"
        ),
        "memories/all-projects/times-in-utc.md": memory("times-in-utc", type="preference"),
        "memories/user/answer-tersely.md": memory("answer-tersely", type="user-preference"),
        "REPORT.md": "<!-- bastra-report:start -->\n# Vault Health\n\n- [[answer-tersely]]\n",
        "Inbox/meeting notes.md": "# Meeting notes\n\nPlain Obsidian note, not a memory.\n",
        ".obsidian/app.json": "{}\n",
        ".bastra/trash/old-staging-host.md": memory("old-staging-host", type="project-fact"),
        LOG: log(
            entry("deployment-rollback-window", "create", number=1),
            entry("back-up-before-migration", "create", number=2),
            entry("times-in-utc", "create", number=3),
            entry("answer-tersely", "create", number=4, actor="user"),
            entry("old-staging-host", "create", number=5),
            entry("old-staging-host", "delete", number=6, timestamp="2026-02-01T09:00:00.000Z"),
        ),
    }


def vault_scenario(files: Mapping[str, Any], **more: Any) -> dict[str, Any]:
    """A one-commit scenario holding ``files`` (a vault at the repository root)."""
    return {
        "commits": [
            {"date": "2026-06-01T09:00:00+00:00", "message": "vault", "files": dict(files)}
        ],
        **more,
    }
