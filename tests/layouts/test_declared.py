"""A declared layout (docs/layouts.md): `[layout]` paths relative to the repository root, contained."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from context_doctor.config.settings import validate_config
from context_doctor.errors import DoctorError
from context_doctor.layouts import DECLARED, IN_CONTEXT, LayoutFields
from context_doctor.layouts.declared import declared_layout


def declare(tmp_path: Path, **table: Any) -> Any:
    data = {"layout": table}
    validate_config(data, "context-doctor.toml")
    return declared_layout(data, tmp_path / "context-doctor.toml", tmp_path)


def test_a_full_table(tmp_path: Path) -> None:
    layout = declare(
        tmp_path,
        context="./docs/STATUS.md",
        sessions="context",
        name="comics",
        budget=120,
        work_ignore=["public/feeds/**"],
        fields={"last_session": ["Zuletzt aktualisiert"]},
    )
    assert (layout.kind, layout.context, layout.sessions) == (
        DECLARED,
        "docs/STATUS.md",
        IN_CONTEXT,
    )
    assert (layout.name, layout.budget, layout.work_ignore) == ("comics", 120, ("public/feeds/**",))
    assert layout.fields == LayoutFields(last_session=("Zuletzt aktualisiert",))
    assert layout.declared and layout.describe() == "layout docs/STATUS.md, declared"


def test_a_glob_makes_one_project_per_folder(tmp_path: Path) -> None:
    layout = declare(tmp_path, context="services/*/STATUS.md", sessions="services/*/sessions")
    assert layout.projects_folder == "services"
    assert layout.inner(layout.sessions) == "sessions"
    assert layout.records == ("STATUS.md", "sessions")


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"context": "../elsewhere/STATUS.md"}, "leaves the repository"),
        ({"context": "/etc/passwd"}, "not a relative POSIX path"),
        ({"context": ".git/config"}, "leaves the repository"),
        ({"context": "a/*/*/STATUS.md"}, "a `*` must be a whole folder name"),
        ({"context": "docs/*.md"}, "a `*` must be a whole folder name"),
        ({"context": "s/*/STATUS.md", "sessions": "logs"}, "must sit under the same `*`"),
        ({"context": "STATUS.md", "sessions": "s/*/logs"}, "has a `*` but `context` has none"),
        ({"context": "s/*/STATUS.md", "name": "x"}, "names each project by what `*` matched"),
        ({"context": "STATUS.md", "name": "a/b"}, "one plain name"),
    ],
)
def test_refusals_name_the_key(tmp_path: Path, table: dict[str, Any], said: str) -> None:
    with pytest.raises(DoctorError) as refused:
        declare(tmp_path, **table)
    assert said in refused.value.problem
    assert "layout." in refused.value.problem


def test_a_symlinked_folder_leaving_the_repository_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    repository = tmp_path / "repo"
    repository.mkdir()
    (repository / "docs").symlink_to(outside)
    data = {"layout": {"context": "docs/STATUS.md"}}
    with pytest.raises(DoctorError) as refused:
        declared_layout(data, repository / "context-doctor.toml", repository)
    assert "leads outside the repository" in refused.value.problem


def test_the_schema_refuses_unknown_keys() -> None:
    with pytest.raises(DoctorError) as refused:
        validate_config({"layout": {"context": "x.md", "log": "y"}}, "c.toml")
    assert "layout.log" in refused.value.problem
