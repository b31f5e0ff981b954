"""Semantic-tier checks (docs/checks.md "Tier structure and budgets") on a real git corpus.

Every case is one project of ``fixtures/scenarios/references.yaml``, built once
per session. Findings are read from an audit of the whole source; "examined"
and skip reasons come from an audit narrowed to one project (``--project``),
so the coverage counts belong to that project alone.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import Run
from support import (
    Doctor,
    MakeRepo,
    assert_not_applicable,
    assert_quiet,
    assert_skipped,
    not_applicable,
    scenario_audit_fixtures,
    sole,
)

TODAY = "2026-06-20"
SCENARIO = "references"

root, corpus, one = scenario_audit_fixtures(SCENARIO, TODAY)


# -- reference-budget (bounded projects) -------------------------------------


@pytest.mark.parametrize("project", ["rb-301", "rb-bounded-true"])
def test_reference_budget_fires_for_bounded_project_over_300(corpus: Run, project: str) -> None:
    finding = sole(corpus, "reference-budget", project)
    assert finding["severity"] == "warning"
    assert finding["path"] == f"projects/{project}/REFERENCE.md"
    assert finding["line"] is None
    assert "301 lines" in finding["message"]
    # a bounded project is never told to shard
    assert corpus.findings("reference-shard", project) == []


def test_reference_budget_quiet_at_300(one: Callable[[str], Run], corpus: Run) -> None:
    assert_quiet(one("rb-300"), "reference-budget")
    assert corpus.findings("reference-budget", "rb-300") == []


@pytest.mark.parametrize(
    ("project", "reason"),
    [
        ("rb-paused", "dormant"),
        ("rb-sharded", "sharded"),
        ("rs-sharded", "sharded"),  # sharded wins over standing
        ("rs-301", "standing"),  # reference-shard judges standing projects instead
    ],
)
def test_reference_budget_skips(one: Callable[[str], Run], project: str, reason: str) -> None:
    held_back(one(project), "reference-budget", reason)


# -- reference-shard (standing projects) -------------------------------------


def test_reference_shard_fires_for_standing_project_over_300(corpus: Run) -> None:
    finding = sole(corpus, "reference-shard", "rs-301")
    assert finding["severity"] == "warning"
    assert finding["path"] == "projects/rs-301/REFERENCE.md"
    assert finding["line"] is None
    assert "301 lines" in finding["message"]
    # the remedy is to shard, not to narrow the project's scope
    assert "one file per topic under projects/rs-301/reference/" in finding["remedy"]
    assert "Do not narrow" in finding["remedy"]
    assert corpus.findings("reference-budget", "rs-301") == []


def test_reference_shard_quiet_at_300(one: Callable[[str], Run], corpus: Run) -> None:
    assert_quiet(one("rs-300"), "reference-shard")
    assert corpus.findings("reference-shard", "rs-300") == []


@pytest.mark.parametrize(
    ("project", "reason"),
    [
        ("rs-paused", "dormant"),
        ("rs-sharded", "sharded"),
        ("rb-301", "bounded"),
        ("rb-bounded-true", "bounded"),
    ],
)
def test_reference_shard_skips(one: Callable[[str], Run], project: str, reason: str) -> None:
    held_back(one(project), "reference-shard", reason)


def held_back(run: Run, check: str, reason: str) -> None:
    """`dormant` is a gate (a skip in coverage); sharded, standing and bounded are shapes."""
    if reason == "dormant":
        assert_skipped(run, check, reason)
    else:
        assert_not_applicable(run, check, reason)


# -- reference-index-budget --------------------------------------------------


@pytest.mark.parametrize(
    ("project", "lines"),
    [
        ("rib-151", 151),
        ("rs-sharded", 320),
        ("rib-completed", 151),  # dormant is no skip here: only "not sharded" is
    ],
)
def test_reference_index_budget_fires_over_150(corpus: Run, project: str, lines: int) -> None:
    finding = sole(corpus, "reference-index-budget", project)
    assert finding["severity"] == "warning"
    assert finding["path"] == f"projects/{project}/REFERENCE.md"
    assert finding["line"] is None
    assert f"{lines} lines" in finding["message"]
    assert "150-line" in finding["message"]


@pytest.mark.parametrize("project", ["rib-150", "rb-sharded"])
def test_reference_index_budget_quiet(one: Callable[[str], Run], corpus: Run, project: str) -> None:
    assert_quiet(one(project), "reference-index-budget")
    assert corpus.findings("reference-index-budget", project) == []


def test_reference_index_budget_skips_unsharded(one: Callable[[str], Run]) -> None:
    # 301 lines, but no reference/: reference-budget's business, not the index budget's
    assert_not_applicable(one("rb-301"), "reference-index-budget", "not sharded")


# -- reference-topic-budget --------------------------------------------------


def test_reference_topic_budget_fires_per_topic_over_300(corpus: Run) -> None:
    """big.md (301) fires; small.md (300) does not; archive/huge.md (400) is no topic."""
    finding = sole(corpus, "reference-topic-budget", "rtb-topics")
    assert finding["severity"] == "warning"
    assert finding["path"] == "projects/rtb-topics/reference/big.md"
    assert finding["line"] is None
    assert "301 lines" in finding["message"]


def test_reference_topic_budget_quiet(one: Callable[[str], Run], corpus: Run) -> None:
    assert_quiet(one("rib-150"), "reference-topic-budget")
    assert corpus.findings("reference-topic-budget", "rib-150") == []


def test_reference_topic_budget_skips_unsharded(one: Callable[[str], Run]) -> None:
    assert_not_applicable(one("rb-300"), "reference-topic-budget", "not sharded")


# -- reference-index-orphan --------------------------------------------------


def test_reference_index_orphan_counts_only_real_link_targets(corpus: Run) -> None:
    """Linked: plain, `./` with a #fragment, in a table, reference-style, via `../`, <a b.md>.

    Orphaned although named in REFERENCE.md: in prose, in a code span, in a code
    fence, in an HTML comment, and as an absolute URL ending in the same path.
    """
    found = corpus.findings("reference-index-orphan", "rio-links")
    assert {f["path"] for f in found} == {
        f"projects/rio-links/reference/{name}.md"
        for name in ("prose", "inline-code", "fenced", "commented", "web")
    }
    for finding in found:
        assert finding["severity"] == "warning"
        assert finding["line"] is None
        assert "not linked from REFERENCE.md" in finding["message"]
        name = finding["path"].rsplit("/", 1)[-1]
        link = f"- [{name[:-3]}](reference/{name})"
        assert f"Add `{link}` to projects/rio-links/REFERENCE.md" in finding["remedy"]
        # Unsafe: where the link goes in the index is a person's choice.
        assert finding["fix"] == {
            "path": "projects/rio-links/REFERENCE.md",
            "applicability": "unsafe",
            "description": f"append `{link}` to REFERENCE.md",
            "edits": [{"kind": "AppendLine", "text": link}],
        }


def test_reference_index_orphan_quiet_when_every_topic_is_linked(
    one: Callable[[str], Run], corpus: Run
) -> None:
    """rio-clean links its topics only from table rows, one with `./` and a fragment."""
    assert_quiet(one("rio-clean"), "reference-index-orphan")
    assert corpus.findings("reference-index-orphan", "rio-clean") == []


def test_reference_index_orphan_defers_to_index_missing(
    one: Callable[[str], Run], corpus: Run
) -> None:
    """No REFERENCE.md at all: reference-index-missing reports it, not one orphan per topic;
    the orphan and index-budget checks count a skip with its reason (docs/output.md)."""
    run = one("rim-no-index")
    assert not run.findings("reference-index-orphan")
    assert_skipped(run, "reference-index-orphan", "no REFERENCE.md")
    assert_skipped(run, "reference-index-budget", "no REFERENCE.md")
    assert corpus.findings("reference-index-missing", "rim-no-index")


def test_reference_index_orphan_skips_unsharded(one: Callable[[str], Run]) -> None:
    assert_not_applicable(one("rb-301"), "reference-index-orphan", "not sharded")


# -- reference-index-missing -------------------------------------------------


def test_reference_index_missing_fires(corpus: Run) -> None:
    finding = sole(corpus, "reference-index-missing", "rim-no-index")
    assert finding["severity"] == "defect"
    assert finding["path"] == "projects/rim-no-index/REFERENCE.md"
    assert finding["line"] is None
    assert "2 topic file(s)" in finding["message"]


def test_reference_index_missing_quiet_with_an_index(
    one: Callable[[str], Run], corpus: Run
) -> None:
    assert_quiet(one("rio-clean"), "reference-index-missing")
    assert corpus.findings("reference-index-missing", "rio-clean") == []


def test_reference_index_missing_skips_unsharded(one: Callable[[str], Run]) -> None:
    # neither REFERENCE.md nor reference/: not this check's business
    assert_not_applicable(one("rim-plain"), "reference-index-missing", "not sharded")


# -- the corpus as a whole ---------------------------------------------------


def test_reference_coverage_ledger(corpus: Run) -> None:
    """Every project is accounted for, and skip rules apply in order (dormant first); the
    shapes (not sharded, sharded, standing, bounded) are counted in not_applicable.

    17 projects: 9 sharded (rib-completed among them), 8 not; dormant: rb-paused,
    rs-paused, rib-completed; standing: rs-301, rs-300, rs-paused, rs-sharded.
    """
    coverage = corpus.json["coverage"]
    assert corpus.json["projects_audited"] == 17
    for name in ("reference-topic-budget", "reference-index-missing"):
        assert coverage[name] == {"examined": 9, "skipped": 0, "reasons": {}}, name
        assert not_applicable(corpus, name) == {"not sharded": 8}, name
    # rim-no-index: sharded without a REFERENCE.md, so there is no index to judge.
    for name in ("reference-index-budget", "reference-index-orphan"):
        assert coverage[name] == {
            "examined": 8,
            "skipped": 1,
            "reasons": {"no REFERENCE.md": 1},
        }, name
        assert not_applicable(corpus, name) == {"not sharded": 8}, name
    assert coverage["reference-budget"] == {"examined": 4, "skipped": 3, "reasons": {"dormant": 3}}
    assert not_applicable(corpus, "reference-budget") == {"sharded": 8, "standing": 2}
    assert coverage["reference-shard"] == {"examined": 2, "skipped": 3, "reasons": {"dormant": 3}}
    assert not_applicable(corpus, "reference-shard") == {"bounded": 4, "sharded": 8}


def test_root_relative_link_reaches_its_topic(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(
        {
            "remote": True,
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "- id: p\n  status: active\n",
                        "projects/p/CONTEXT.md": "# P\n\n**Status:** Active\n",
                        "projects/p/REFERENCE.md": "# P\n\n- [A](/projects/p/reference/a.md)\n",
                        "projects/p/reference/a.md": "# A\n",
                        "projects/p/reference/b.md": "# B\n",
                    },
                }
            ],
        }
    )
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    orphans = [finding["path"] for finding in run.findings("reference-index-orphan")]
    assert orphans == ["projects/p/reference/b.md"]
