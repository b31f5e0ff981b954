"""A project's views: let go once its checks are done, the same when asked again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from context_doctor.model.project import _RELEASED, Project
from context_doctor.pipeline.discover import discover


def _shown(value: object) -> str:
    """A view as text: its fields where its class shows no more than its address."""
    if type(value).__repr__ is object.__repr__:
        return repr(sorted((key, _shown(item)) for key, item in vars(value).items()))
    return repr(value)


def _views(project: Project) -> dict[str, str]:
    return {name: _shown(getattr(project, name)) for name in _RELEASED}


def test_released_views_are_computed_again_the_same(
    scenario_repo: Callable[[str], Path],
) -> None:
    """Sessions, history, state and review are dropped by ``release`` and rebuilt equal;
    the count of set-aside commits (asked after every check) is kept."""
    root = scenario_repo("demo")
    corpus = discover(sources=(str(root),), cache=False)
    projects = [project for project in corpus.projects if project.directory_exists]
    assert projects
    for project in projects:
        before = _views(project)
        project.release()
        assert "set_aside" in project.__dict__
        assert not set(_RELEASED) & set(project.__dict__)
        assert _views(project) == before
