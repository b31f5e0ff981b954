"""What an agent actually loads of its instruction files (docs/references.md).

Codex concatenates a folder's ``AGENTS.md`` chain up to a byte budget and drops the rest
without a word; Claude Code follows ``@`` imports five hops deep and loads nothing for an
import that is missing, loops, or goes deeper. The chains and the import graph are the
model's (``model/instructions.py``, ``model/procedural.py``); these checks word them.
"""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.checks.references import fix_of, remedy_of, what_became
from context_doctor.checks.registry import CheckFamily, Context, SkipRule
from context_doctor.guards.globs import shell_match
from context_doctor.model.instructions import MAX_IMPORT_HOPS, CodexChain
from context_doctor.model.source import Source
from context_doctor.report.findings import Issue, Severity

GROUP = "procedural"

NO_INSTRUCTIONS = SkipRule(
    "no instruction files",
    "the repository holds no instruction file an agent loads (docs/references.md)",
    source_matches=lambda s: not s.procedural.files,
    shape=True,
)
NO_CODEX_FILES = SkipRule(
    "no AGENTS.md",
    "the repository holds no AGENTS.md (nor a configured fallback name): Codex loads nothing",
    source_matches=lambda s: not s.procedural.chains,
    shape=True,
)
NO_CODEX_BUDGET = SkipRule(
    "no budget",
    "`[instructions] codex_max_bytes = 0`: no budget to hold the chains to",
    run_matches=lambda ctx: ctx.settings.instructions.codex_max_bytes <= 0,
)
NO_IMPORT_ROOTS = SkipRule(
    "no CLAUDE.md",
    "the repository holds no CLAUDE.md, rules or GEMINI.md file: nothing is imported",
    source_matches=lambda s: not any(f.family in ("claude", "gemini") for f in s.procedural.judged),
    shape=True,
)
NO_BUDGETS = SkipRule(
    "no budgets declared",
    "`[instructions] budgets` declares none (there is no default)",
    run_matches=lambda ctx: not ctx.settings.instructions.budgets,
    shape=True,
)


PROCEDURAL_CHECKS = CheckFamily(scope="repository")
"""The instruction files are the repository's, whichever project reads them: asked once per
repository."""


def _chains(source: Source, ctx: Context) -> int:
    return len(source.procedural.chains)


def _roots(source: Source, ctx: Context) -> int:
    return sum(1 for f in source.procedural.judged if f.family in ("claude", "gemini"))


def _files(source: Source, ctx: Context) -> int:
    return len(source.procedural.judged)


def _bytes(count: int) -> str:
    return f"{count:,}"


def _line_at(text: str, offset: int) -> int:
    """The 1-based line holding byte ``offset`` of ``text``'s UTF-8 encoding."""
    return text.encode("utf-8")[:offset].count(b"\n") + 1


@PROCEDURAL_CHECKS.check(
    "instructions-load-budget",
    severity=Severity.WARNING,
    skips=(NO_INSTRUCTIONS, NO_CODEX_FILES, NO_CODEX_BUDGET),
    units=_chains,
    summary="Codex loads less of a folder's AGENTS.md chain than is written: the rest is dropped",
    remedy="Shorten the chain (keep what every task needs in AGENTS.md and move the rest to "
    "files the agent reads when it needs them), or raise Codex's `project_doc_max_bytes` "
    "and `[instructions] codex_max_bytes` together.",
    explanation="""
        Codex reads one instruction file per folder from the repository's top down to the
        folder it works in (AGENTS.override.md, else AGENTS.md, else a configured fallback
        name), joins them, and stops at `project_doc_max_bytes`, 32 KiB by default: the file
        that crosses the budget is cut mid-text and every file after it is dropped, with a
        line in Codex's log and nothing to the user. The instructions nearest the code are
        the first to go. For every folder that holds such a file the chain is summed in
        bytes (a whitespace-only file costs nothing, a link costs its target's bytes) and
        held to `[instructions] codex_max_bytes` (default 32768; 0 switches this off). The
        finding is on the first file cut, names the folder, the total and the chain, and
        lists the folders below whose own files are dropped with it: one finding per cut,
        not one per folder. A folder inside a hidden one (a skill bundle's AGENTS.md under
        `.agents/skills/`) is not a chain: agents are started in the code's folders.""",
)
def instructions_load_budget(source: Source, ctx: Context) -> Iterator[Issue]:
    procedural = source.procedural
    by_cut: dict[str, list[CodexChain]] = {}
    for chain in procedural.chains:
        cut = chain.cut()
        if cut is not None:
            by_cut.setdefault(cut[0].file.rel_path, []).append(chain)
    for rel_path, chains in sorted(by_cut.items()):
        chains.sort(key=lambda chain: (chain.folder.count("/"), chain.folder))
        chain = chains[0]
        found = chain.cut()
        assert found is not None
        part, kept = found
        folder = chain.folder or "the repository's top"
        listing = " + ".join(f"{p.file.rel_path} {_bytes(p.cost)}" for p in chain.parts)
        if kept > 0:
            fate = f"{rel_path} is cut after {_bytes(kept)} of its {_bytes(part.cost)} bytes"
        else:
            fate = f"{rel_path} ({_bytes(part.cost)} bytes) is dropped whole"
        below = [c.folder for c in chains[1:]]
        also = ""
        if below:
            shown = ", ".join(below[:3]) + (f" and {len(below) - 3} more" if len(below) > 3 else "")
            also = f"; the chains of {len(below)} folder{'s' if len(below) > 1 else ''} below ({shown}) lose their own files with it"
        line = 1
        if kept > 0 and part.file.readable:
            line = _line_at(part.file.document.text, kept)
        yield Issue(
            f"Codex loads {_bytes(chain.total)} bytes of instructions in {folder} ({listing}), "
            f"over its {_bytes(chain.limit)}: {fate}{also}",
            rel_path,
            line,
            unit=procedural.unit_of(rel_path),
        )


def _chain_text(chain: tuple[str, ...], last: str) -> str:
    return " → ".join((*chain, last))


@PROCEDURAL_CHECKS.check(
    "instructions-import",
    severity=Severity.WARNING,
    skips=(NO_INSTRUCTIONS, NO_IMPORT_ROOTS),
    units=_roots,
    summary="a Claude Code `@` import is not loaded: it does not resolve, loops, or is a sixth hop",
    remedy="Point the import at an existing file of the repository, break the loop, or import "
    "the deep file from nearer the top.",
    explanation=f"""
        Claude Code loads CLAUDE.md (and .claude/CLAUDE.md, CLAUDE.local.md, the
        .claude/rules files) and follows each `@path` import in them, outside code spans
        and fences, relative to the importing file, up to {MAX_IMPORT_HOPS} hops deep; GEMINI.md
        imports follow the same rules. An import of a file that does not exist, one that
        leads back into its own chain, and one past the fifth hop are silently not loaded:
        the agent works without what the author meant it to read. Each such import is
        reported on its own line, naming the chain that reaches it; for a missing file, what
        history says became of it (renamed: `--fix` rewrites the import; deleted; never
        existed). An import of the home directory (`@~/...`) is not a file of the
        repository and is not judged. An import written inside a code span or a fence is
        inert text, never an import.""",
)
def instructions_import(source: Source, ctx: Context) -> Iterator[Issue]:
    procedural = source.procedural
    seen: set[tuple[str, int, int]] = set()
    for problem in procedural.import_problems:
        hop = problem.hop
        place = (hop.importer, hop.reference.line, hop.reference.column)
        if place in seen:
            continue
        seen.add(place)
        written = f"`@{hop.reference.written}`"
        chain = _chain_text(hop.chain, hop.target or hop.reference.target)
        if problem.kind == "missing" and problem.unresolved is not None:
            unresolved = problem.unresolved
            fix = fix_of([unresolved])
            yield Issue(
                f"{written} {what_became(unresolved)}: Claude Code loads nothing for it "
                f"({_chain_text(hop.chain, unresolved.looked_up)})",
                hop.importer,
                hop.reference.line,
                remedy=remedy_of(unresolved),
                fix=fix,
                unit=procedural.unit_of(hop.importer),
            )
        elif problem.kind == "cycle":
            yield Issue(
                f"{written} leads back into its own chain ({chain}): Claude Code does not load "
                "it again",
                hop.importer,
                hop.reference.line,
                remedy="Remove the import that closes the loop: each file is loaded once.",
                unit=procedural.unit_of(hop.importer),
            )
        elif problem.kind == "too deep":
            yield Issue(
                f"{written} is hop {hop.depth} ({chain}): Claude Code follows "
                f"{MAX_IMPORT_HOPS}, so {hop.target} is never loaded this way",
                hop.importer,
                hop.reference.line,
                remedy=f"Import {hop.target} from a file nearer the top (at most "
                f"{MAX_IMPORT_HOPS} hops from CLAUDE.md).",
                unit=procedural.unit_of(hop.importer),
            )


@PROCEDURAL_CHECKS.check(
    "instructions-budget",
    severity=Severity.WARNING,
    skips=(NO_BUDGETS, NO_INSTRUCTIONS),
    units=_files,
    summary="an instruction file is over the line or byte budget declared for it",
    remedy="Shorten the file (move detail into files read on demand), or change its budget in "
    "`[instructions] budgets`.",
    explanation="""
        An instruction file is loaded into every session before any work starts: each line
        costs every task. `[instructions] budgets` declares, by repository-relative glob,
        the most lines and bytes a file may hold (`"CLAUDE.md" = { lines = 200 }`,
        `".claude/rules/*.md" = { bytes = 4096 }`); a file over its budget is reported with
        its size and the glob that set it (the first glob that matches decides). Nothing is
        declared by default: without a table this check does not apply.""",
)
def instructions_budget(source: Source, ctx: Context) -> Iterator[Issue]:
    budgets = ctx.settings.instructions.budgets
    procedural = source.procedural
    for file in procedural.judged:
        for glob, lines, size in budgets:
            if not shell_match(file.rel_path, glob):
                continue
            over: list[str] = []
            if lines is not None and file.document.line_count > lines:
                over.append(f"{file.document.line_count:,} lines (budget {lines:,})")
            if size is not None and file.size > size:
                over.append(f"{file.size:,} bytes (budget {size:,})")
            if over:
                yield Issue(
                    f"{file.rel_path} holds {' and '.join(over)}, set by `{glob}` in "
                    "[instructions] budgets",
                    file.rel_path,
                    unit=procedural.unit_of(file.rel_path),
                )
            break
