"""The docs page of every check (``docs/checks/<check>.md``), written from the registry.

A page says what ``explain`` says, in Markdown: the check's severity and group,
what it finds, why it matters, how to fix it and what skips it. SARIF carries each
rule's page as its help, so a code-scanning alert holds the whole explanation; it
links the page (``helpUri``) and the project (``informationUri``) only when the
config's ``[output] docs_url`` says where the pages are published
(docs/configuration.md): the project has no address of its own to assume, and a
link that leads nowhere is worse than none. The pages are generated, never
written by hand: ``python -m context_doctor.render.check_pages DOCS_DIR`` rewrites
them, and a test fails when a registered check has no page or a page differs from
what the registry says.

Decision where the spec is silent: a check is a security check (SARIF
``security-severity`` and a ``security`` tag) when its name has the word
``secret`` (``secret-in-context``, ``secret-in-memory``): what it finds is a
credential in a file agents read and git spreads. Its security severity is 8.5,
GitHub's "high": a detected token may be a test value, so never "critical" unseen.
"""

from __future__ import annotations

import sys
from pathlib import Path

from context_doctor.checks.registry import (
    GROUPS,
    CheckSpec,
    load_checks,
    severity_lines,
    severity_words,
    shape_reasons,
    skip_reasons,
)

SECURITY_SEVERITY = "8.5"


def docs_home(docs_url: str | None) -> str | None:
    """The published ``docs/`` folder ``[output] docs_url`` names, without a trailing slash."""
    return docs_url.rstrip("/") if docs_url else None


def page_url(name: str, docs_url: str | None) -> str | None:
    """Where check ``name``'s page is published (SARIF ``helpUri``): ``checks/<name>.md``
    under ``docs_url``; None when no ``docs_url`` is set."""
    home = docs_home(docs_url)
    return f"{home}/checks/{name}.md" if home else None


def is_security_check(spec: CheckSpec) -> bool:
    return "secret" in spec.name.split("-")


def render_page(spec: CheckSpec) -> str:
    """The Markdown page of one check."""
    group = GROUPS.get(spec.group, spec.group)
    lines = [
        f"# {spec.name}",
        "",
        f"**Severity:** {severity_words(spec)} · **Group:** `{spec.group}` ({group})"
        + (" · **Security**" if is_security_check(spec) else ""),
        "",
        spec.summary,
        "",
        "## Why it matters",
        "",
        spec.explanation,
        "",
        "## How to fix",
        "",
        spec.remedy,
        "",
        *_severity_section(spec),
        "## When it is skipped",
        "",
        "Skipped units are counted in the report's coverage, never left out silently:",
        "",
    ]
    for reason, description in skip_reasons(spec):
        lines.append(f"- `{reason}`: {description}" if reason else f"- {description}")
    shapes = shape_reasons(spec)
    if shapes:
        lines += [
            "",
            "## When it does not apply",
            "",
            "Units of another shape are counted as not applicable (shown with "
            "`--show-coverage`), never judged:",
            "",
        ]
        lines += [f"- `{reason}`: {description}" for reason, description in shapes]
    lines += [
        "",
        "## See also",
        "",
        f"- `context-doctor explain {spec.name}` prints this page in the terminal.",
        f"- `context-doctor check --select {spec.name}` runs this check alone; "
        f"`--ignore {spec.name}` leaves it out.",
        "",
    ]
    return "\n".join(lines)


def page_body(spec: CheckSpec) -> str:
    """The page without its title (SARIF shows the rule's name above its help)."""
    return render_page(spec).partition("\n\n")[2]


def _severity_section(spec: CheckSpec) -> list[str]:
    """The severity each finding can have (as ``explain`` says it), when it varies."""
    if not spec.severities:
        return []
    return ["## Severity", "", *(line.strip() for line in severity_lines(spec)[1:]), ""]


def built_in_checks() -> dict[str, CheckSpec]:
    """The checks the pages document: the doctor's own, never a plugin's."""
    return load_checks(plugins=False)


def write_pages(directory: Path) -> list[Path]:
    """Write every page into ``directory`` (a developer's command); returns the paths."""
    from context_doctor.write import USER_NAMED, ensure_directory, write_file

    ensure_directory(directory, within=USER_NAMED)
    written = []
    for name, spec in sorted(built_in_checks().items()):
        path = directory / f"{name}.md"
        write_file(path, render_page(spec).encode("utf-8"), within=USER_NAMED)
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - the developer's regeneration command
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/checks")
    print(f"wrote {len(write_pages(target))} pages to {target}")
