"""What a text's lines make references of, and what they never do (docs/references.md)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from context_doctor.model.documents import facts_of_text
from context_doctor.model.reference_text import (
    IMPORT,
    LINK,
    OUTSIDE_PATH,
    PACKAGE_SCRIPT,
    RECIPE,
    ROOT_BASE,
    SCRIPT,
    SPAN,
    Reference,
    references_in,
)


def refs(text: str) -> list[Reference]:
    return list(facts_of_text(text).references)


def found(text: str) -> list[tuple[str, str]]:
    return [(r.kind, r.target) for r in refs(text)]


def test_links_images_definitions_and_mdc_links() -> None:
    text = (
        "# Notes\n"
        'See [the plan](docs/plan.md#goals "title") and ![chart](./img/a%20b.png).\n'
        "[def]: reference/topic.md\n"
        "Rules: [web](mdc:apps/web/a.ts), [top](/docs/top.md).\n"
    )
    assert found(text) == [
        (LINK, "docs/plan.md"),
        (LINK, "./img/a b.png"),
        (LINK, "reference/topic.md"),
        (LINK, "apps/web/a.ts"),
        (LINK, "docs/top.md"),
    ]
    mdc = next(r for r in refs(text) if r.target == "apps/web/a.ts")
    assert mdc.base == ROOT_BASE and mdc.written == "apps/web/a.ts"
    line = text.splitlines()[3]
    assert line[mdc.column : mdc.column + len(mdc.written)] == mdc.written


def test_never_references() -> None:
    text = (
        "[u](https://example.org/x.md) [m](mailto:a@b.c) [a](#section) [q](?x=1)\n"
        "`src/<name>.ts` `docs/{provider}.md` `sessions/YYYY-MM.md` `packages/*` `path/to/x.py`\n"
        "`application/json` `origin/main` `feat/new-thing` `github.com/a/b` `a.b()` `$HOME/x`\n"
        "`~/notes/x.md` `/etc/hosts` `@/components/x.ts` `.tsx` `Next.js` `and/or` `foo/bar.py`\n"
        "@scope/pkg and @user and @pytest.fixture, bare src/parser.py in prose, make sure.\n"
    )
    # `Next.js` and `and/or` are path-shaped: only the tree and its history can clear them
    # (no such file, and none ever removed), model/references.py. `~/notes/x.md` is a file
    # outside the repository: counted, never judged; `/etc/hosts` has no extension (a route).
    assert found(text) == [(OUTSIDE_PATH, "~/notes/x.md"), (SPAN, "Next.js"), (SPAN, "and/or")]


def test_code_spans_drop_line_and_symbol_suffixes() -> None:
    text = "`src/a.py::Thing` `src/b.ts:12` `src/c.rs#L3-L9` `parser.py`\n"
    assert found(text) == [
        (SPAN, "src/a.py"),
        (SPAN, "src/b.ts"),
        (SPAN, "src/c.rs"),
        (SPAN, "parser.py"),
    ]


def test_imports_are_path_shaped_and_outside_code() -> None:
    text = (
        "@AGENTS.md\n"
        "Read @docs/rules.md and @./local.md, not @docs/folder or `@docs/x.md`.\n"
        "```markdown\n@docs/inert.md\n```\n"
    )
    assert found(text) == [(IMPORT, "AGENTS.md"), (IMPORT, "docs/rules.md"), (IMPORT, "./local.md")]


def test_commands_in_spans_and_shell_fences() -> None:
    text = (
        "Run `python scripts/deploy.py --all`, `./scripts/run.sh`, `npm run e2e`.\n"
        "```bash\n"
        "$ cd pkg/infra\n"
        "just build-x\n"
        "make -C tools lint\n"
        "cd web && pnpm run dev\n"
        "node ./bin/x.mjs\n"
        "python -m pytest\n"
        "```\n"
        "```python\n"
        "run('python scripts/no.py')\n"
        "```\n"
    )
    got = [(r.kind, r.target, r.base, r.tool) for r in refs(text)]
    assert got == [
        (SCRIPT, "scripts/deploy.py", "", "python"),
        (SCRIPT, "./scripts/run.sh", "", "exec"),
        (PACKAGE_SCRIPT, "e2e", "", "npm"),
        (RECIPE, "build-x", "pkg/infra", "just"),
        (RECIPE, "lint", "pkg/infra/tools", "make"),
        (PACKAGE_SCRIPT, "dev", "pkg/infra/web", "pnpm"),
        (SCRIPT, "./bin/x.mjs", "pkg/infra", "node"),
    ]


def test_a_cd_joined_to_a_command_moves_only_that_line() -> None:
    text = "```sh\ncd backend && npm run dev\ncd frontend && npm run dev\n```\n"
    assert [(r.target, r.base) for r in refs(text)] == [("dev", "backend"), ("dev", "frontend")]


def test_package_runs_that_name_no_script_of_their_own_are_not_read() -> None:
    text = "`pnpm lint` `yarn workspace @s/a vitest run x` `npm test` `bun run x.ts`\n"
    assert [(r.kind, r.target) for r in refs(text)] == [(SCRIPT, "x.ts")]
    filtered = refs("`pnpm --filter web run lint`\n")
    assert [(r.target, r.filtered) for r in filtered] == [("lint", True)]


def test_a_path_named_under_home_nearby_is_marked() -> None:
    text = "- `~/.tool/settings.json` (user)\n- `.tool/settings.json` (project)\n"
    home, reference = refs(text)
    assert home.kind == OUTSIDE_PATH
    assert reference.target == ".tool/settings.json" and reference.home_twin


def test_columns_locate_the_written_text_on_every_line() -> None:
    text = (
        "A [link](../up/a.md) and `src/x.py` and @docs/y.md here\n"
        "```bash\n   cd a && python tools/run.py\n```\n"
    )
    lines = text.splitlines()
    for reference in refs(text):
        line = lines[reference.line - 1]
        assert line[reference.column :].startswith(reference.written), reference


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet="ab/.`[]()@ \n-_*#<>{}~:$", max_size=40), max_size=8))
def test_any_text_gives_references_whose_columns_hold_what_was_written(parts: list[str]) -> None:
    text = "\n".join(parts)
    lines = text.split("\n")
    for reference in references_in(lines):
        line = lines[reference.line - 1]
        assert line[reference.column : reference.column + len(reference.written)] == (
            reference.written
        )


def test_a_line_that_says_its_target_is_gone_names_nothing_to_fix() -> None:
    text = (
        "Don't keep a separate `HISTORY.md`; the git log is the history.\n"
        "`dashboard/old.json` was removed with the\n"
        "Projects tab, and `dashboard/tab.json` with it.\n"
        "\n"
        "See `docs/live.md`.\n"
    )
    # The sentence goes on across a soft-wrapped line: the second path is gone too.
    assert found(text) == [(SPAN, "docs/live.md")]


def test_paths_the_text_places_in_another_repository() -> None:
    text = (
        "**Source of truth:** gp-props repo at `docs/implementations/`; no local copies.\n"
        "See `docs/implementations/THEME.md` and gp-props `PWA_SYSTEM.md`.\n"
        "In this repo, `docs/local.md` is ours.\n"
    )
    assert found(text) == [(SPAN, "docs/local.md")]
