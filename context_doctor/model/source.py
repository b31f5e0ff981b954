"""Sources and the corpus (docs/layouts.md "Sources and projects"): what discovery hands the engine."""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from context_doctor.config.instruction_options import InstructionOptions
from context_doctor.config.settings import RegistryEntry
from context_doctor.git.commits import Scope
from context_doctor.git.facts import RepositoryFacts
from context_doctor.git.repository import Repository
from context_doctor.guards.limits import resolves_within
from context_doctor.layouts import MEMORY_BANK, Layout, seed, seed_single
from context_doctor.layouts.tree import DirectoryTree
from context_doctor.model.index import Index
from context_doctor.model.procedural import Procedural
from context_doctor.model.project import Project
from context_doctor.model.project_files import SEED_RECORD_FILES, SEED_RECORD_FOLDERS
from context_doctor.report.findings import Issue

if TYPE_CHECKING:
    from collections.abc import Callable

    from context_doctor.freshness.grades import GradedFile
    from context_doctor.vault.model import Vault

DEFAULT_PROJECTS_DIR = "projects"


@dataclass
class Source:
    name: str
    root: Path
    projects_dir: str | None  # None: a single-project repository
    repository: Repository
    only: set[str] | None = None  # --project narrows a source to these ids
    # A tree with graded files and no projects (a LifeOS install): only the grades speak.
    grades_only: bool = False
    index: Index | None = None
    projects: list[Project] = field(default_factory=list)
    facts: RepositoryFacts | None = None
    registry: list[RegistryEntry] = field(default_factory=list)
    thresholds: dict[str, int] = field(default_factory=dict)  # [freshness.thresholds]
    # Whether each file the run already read declares the freshness convention, by
    # absolute path (audit.prepare_corpus fills it): the freshness walk opens them no more.
    known_heads: dict[str, bool] = field(default_factory=dict)
    _graded: list[GradedFile] | None = None  # freshness.grades.graded_files, once per run
    # The layout its projects are built from (docs/layouts.md): declared, detected, or the seed's.
    given_layout: InitVar[Layout | None] = None
    layout: Layout = field(init=False)
    # What the project ids of a single-project layout stand on when nothing names them:
    # the pushing repository's identity in the pre-push hook's temporary checkout.
    identity: Callable[[], str | None] | None = None  # asked only when needed
    named_by_project: bool = False  # a single project's source takes the project's id as name
    # A repository with instruction files and no working memory (docs/references.md): only
    # the procedural tier's checks speak.
    instructions_only: bool = False
    # The `[instructions]` table of the configuration it is audited under.
    instruction_options: InstructionOptions = field(default_factory=InstructionOptions)
    id_source: str = ""  # where a single project's id came from (docs/layouts.md "Project ids")

    def __post_init__(self, given_layout: Layout | None) -> None:
        if given_layout is not None:
            self.layout = given_layout
        elif self.projects_dir is None:
            self.layout = seed_single.layout(DirectoryTree(self.root))
        else:
            self.layout = seed.layout(self.projects_dir, origin=f"{self.projects_dir}/")

    @cached_property
    def procedural(self) -> Procedural:
        """Its procedural tier: the instruction files of its repository (those of its
        projects' folders and above them, for a ``--project`` run), read once."""
        return Procedural(self, self.instruction_options)

    @property
    def scope(self) -> Scope:
        return Scope(self.repository.relative(self.projects_path), single=self.is_single_project)

    def repository_facts(self) -> RepositoryFacts:
        if self.facts is None:  # a source built outside discover(): give it its own facts
            self.facts = RepositoryFacts(self.repository)
            self.facts.add_scope(self.scope, self.record_pathspecs)
        return self.facts

    @property
    def record_rel_path(self) -> str:
        """A single project's working-memory file, repository-relative (what a finding about
        the whole repository names)."""
        inner = self.layout.inner(self.layout.context) or "CONTEXT.md"
        return self.repository.relative(self.root / inner)

    @cached_property
    def record_pathspecs(self) -> tuple[str, ...]:
        """A single project's records as repository-relative paths (folders whole), the
        pathspecs publication is asked about (docs/layouts.md); empty for the seed's
        projects/ and for a layout of one project per ``*`` folder."""
        if not self.is_single_project or self.layout.is_glob:
            return ()
        layout = self.layout
        if layout.is_seed:
            inner: tuple[str, ...] = (*SEED_RECORD_FILES, *SEED_RECORD_FOLDERS)
        else:
            inner = layout.records
            if layout.kind == MEMORY_BANK:
                inner = (*inner, layout.context.rpartition("/")[0])
        return tuple(
            sorted({self.repository.relative(self.root / path.rstrip("/")) for path in inner})
        )

    @property
    def is_single_project(self) -> bool:
        return self.projects_dir is None

    @cached_property
    def projects_path(self) -> Path:
        # Cached: checks ask for it per project, and root and projects_dir never change.
        return self.root / (self.projects_dir or ".")

    @cached_property
    def index_rel_path(self) -> str:
        return self.repository.relative(self.projects_path / "index.yaml")

    @cached_property
    def index_outside(self) -> str | None:
        """Where ``index.yaml`` leads when it is a symlink leaving the repository, else None.

        Only the link is committed: every other machine and clone holds a dangling one.
        """
        path = self.projects_path / "index.yaml"
        if not path.is_symlink() or resolves_within(path, self.repository.toplevel):
            return None
        try:
            return str(path.resolve())
        except (OSError, RuntimeError):  # a loop: not leaving, just broken
            return None

    def index_issues(self) -> list[Issue]:
        """Index problems that belong to no single project (shape, entries without an id)."""
        if self.index is None:
            return []
        issues = [
            Issue(f"index.yaml {problem}", self.index.rel_path) for problem in self.index.problems
        ]
        for entry in self.index.entries:
            if entry.project_id is None:
                for problem in entry.problems or ["has no `id`"]:
                    issues.append(
                        Issue(
                            f"index.yaml {entry.label()}: {problem}",
                            self.index.rel_path,
                            entry.line,
                        )
                    )
        return issues


@dataclass(frozen=True)
class UnauditedSource:
    """A console source the doctor lists but cannot audit, and why (e.g. ``no projects_dir``)."""

    name: str
    root: str
    reason: str
    error: str | None = None  # an unreachable source: what could not be read, and where


@dataclass
class Corpus:
    sources: list[Source]
    from_console: bool = False
    console_path: Path | None = None
    unaudited: list[UnauditedSource] = field(default_factory=list)
    vaults: list[Vault] = field(default_factory=list)  # memory vaults (docs/vaults.md)

    def assign_instructions(self, options: InstructionOptions) -> None:
        """The ``[instructions]`` table every source's procedural tier is read with."""
        for source in self.sources:
            if source.instruction_options != options:
                source.instruction_options = options
                source.__dict__.pop("procedural", None)

    def assign_registry(
        self, registry: list[RegistryEntry], thresholds: dict[str, int] | None = None
    ) -> None:
        """Each registered file goes to the source whose root holds it, else to the first.

        ``thresholds`` (the config's slug overrides) apply to every source.
        """
        for source in self.sources:
            source.thresholds = dict(thresholds or {})
        for entry in registry:
            path = Path(entry.path)
            owner = next((s for s in self.sources if path.is_relative_to(s.root)), None)
            if owner is None and not self.sources:
                continue  # no audited source at all: "nothing to audit" says so
            (owner or self.sources[0]).registry.append(entry)

    @property
    def projects(self) -> list[Project]:
        return [project for source in self.sources for project in source.projects]

    def whole_repository(self) -> Path | None:
        """The top of the one repository this corpus holds whole (one source, no
        ``--project`` narrowing, no file, nothing unaudited), whose report cache a run
        writes (docs/surfaces.md); None for any other corpus."""
        if len(self.sources) != 1 or self.unaudited:
            return None
        (source,) = self.sources
        return source.repository.toplevel if source.only is None else None
