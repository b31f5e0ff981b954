"""The pushed tree's checkout (``git/push.py``): HEAD and the branch as git would write them.

Real repositories and real git: the checkout is asked with git itself what it holds.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import MakeRepo, run_git

from context_doctor.git.push import PushRepository
from context_doctor.git.repository import repository_for
from context_doctor.git.run import made_checkout_at

SCENARIO = {
    "commits": [
        {
            "date": "2026-06-01T10:00:00+00:00",
            "files": {
                "projects/index.yaml": "- id: fine\n",
                "projects/fine/CONTEXT.md": "# Fine\n",
            },
        }
    ]
}


# Written as files by the checkout, and ('@': a name git allows that the plain writing
# leaves to `symbolic-ref` and `update-ref`) by git: the same checkout either way.
@pytest.mark.parametrize("branch", ["main", "feature/deep/x", "fix/a@b"])
def test_the_pushed_tree_is_checked_out_on_its_branch(make_repo: MakeRepo, branch: str) -> None:
    root = make_repo(SCENARIO)
    commit = run_git(root, "rev-parse", "HEAD").stdout.strip()
    pusher = PushRepository(repository_for(root))
    with pusher.checked_out(commit, branch) as top:
        assert run_git(top, "symbolic-ref", "HEAD").stdout.strip() == f"refs/heads/{branch}"
        assert run_git(top, "rev-parse", "HEAD").stdout.strip() == commit
        assert run_git(top, "status", "--porcelain").stdout == ""
        assert (top / "projects" / "fine" / "CONTEXT.md").read_text() == "# Fine\n"
        assert (top / ".git" / "refs" / "heads" / Path(branch)).is_file()  # the files backend
        known = made_checkout_at(top.resolve())
        assert known is not None and (known.head, known.branch) == (commit, branch)
    assert made_checkout_at(top.resolve()) is None
    assert not top.exists()
