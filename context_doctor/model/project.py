"""A project: its tier files, its index entry and what they say together.

Every property is lazy and cached, so a check pays only for what it reads and
no file is read twice.
"""

from __future__ import annotations

from datetime import date
from functools import cached_property
from pathlib import Path

from context_doctor.errors import HistoryUnavailable
from context_doctor.git.commits import ProjectCommit
from context_doctor.guards.redact import redact
from context_doctor.layouts import DEFAULT_LAST_SESSION
from context_doctor.model import lifecycle
from context_doctor.model.artifacts import ARTIFACTS_DIR, Artifact, read_artifacts
from context_doctor.model.attribution import Attribution, attributions
from context_doctor.model.currency import AsOfMarker, OpenItem, as_of_markers, open_items
from context_doctor.model.document_facts import HeaderField
from context_doctor.model.documents import Document
from context_doctor.model.header import (
    completion_reading,
    fields_named,
    last_session_field,
    pause_reading,
    record_date,
    section_range,
)
from context_doctor.model.project_files import ProjectFiles
from context_doctor.model.review import PostCloseReview, review_of
from context_doctor.model.secrets import SecretHit, secrets_in_name
from context_doctor.model.sessions import (
    EVERY_HEADING_LEVEL,
    SessionEntry,
    entries_of,
    is_month_file,
    new_entry_form,
    new_file_form,
    newest,
    spell_entry,
)
from context_doctor.model.state_file import STATE_FILE, StructuredState
from context_doctor.model.work import WorkFilter, bots_own_job


class Project(ProjectFiles):
    """A project: its files (:class:`ProjectFiles`) and what they say together.

    Every property is lazy and cached, so a check pays only for what it reads and
    no file is read twice.
    """

    def release(self) -> None:
        """Let go of the views the checks derived (sessions, history, state, review).

        Each is computed again, the same, if asked for: the engine calls this once the
        project's checks are done, so a corpus holds one project's views at a time rather
        than all of them (at 8,000 projects they held ~60 MB). The report's count
        of set-aside commits is taken first: it is asked after every check has run.
        """
        kept = self.__dict__
        kept["set_aside"] = self.set_aside
        for name in _RELEASED:
            kept.pop(name, None)

    @cached_property
    def _in_file_log(self) -> str:
        """The log inside the context file, named by the section holding its newest entry."""
        where = self.context.rel_path
        newest = self.newest_session
        if newest is None or not self.context.exists or self.context.problem:
            return f"a dated log section in {where} (`## Session Log`, one `### YYYY-MM-DD` per session)"
        entry = next((h for h in self.context.headings if h.line == newest.line), None)
        level = entry.level - 1 if entry is not None else 6
        section = self.context.heading_above(
            newest.line if entry is None else newest.line - 1, level
        )
        return f"the `{section.text}` log in {where}" if section else f"the dated log in {where}"

    def log_place(self, day: date) -> str:
        """Where a session of ``day`` is logged, as a remedy names it."""
        if self.layout.is_seed:
            return f"{self.path_to('sessions')}/{day:%Y-%m}.md"
        if self.log_inner is None:
            return self._in_file_log
        if (self.directory / self.log_inner).is_dir():
            # As `log add` chooses (editor/log.py): a month file when the folder keeps month
            # files or no log yet; its one other log file; else a file of your own naming.
            names = [d.path.name for d in self.session_logs]
            others = [name for name in names if not is_month_file(name)]
            folder = self.path_to(self.log_inner)
            if len(others) < len(names) or not others:
                return f"{folder}/{day:%Y-%m}.md"
            if len(others) == 1:
                return f"{folder}/{others[0]}"
            return f"a new dated file in {folder}/"
        return self.path_to(self.log_inner)

    def new_entry(self, day: date) -> str:
        """A new entry of ``day`` as ``log add`` writes it in :meth:`log_place`'s file
        (``### 2026-08-12 — …``, ``| 2026-08-12 | … |``): what a remedy proposes."""
        place = self.log_place(day)
        if self.log_in_context or (not self.layout.is_seed and self.log_inner is None):
            target: Document | None = self.context if self.context.exists else None
        else:
            target = next((d for d in self.session_logs if d.rel_path == place), None)
        if target is not None:
            entries = [e for e in self.session_entries if e.path == target.rel_path]
            in_context = target is self.context
            return spell_entry(day, new_entry_form(target, entries, in_context=in_context))
        months = [d for d in self.session_logs if is_month_file(d.path.name)]
        if self.layout.is_seed or not months or not is_month_file(place.rpartition("/")[2]):
            return spell_entry(day, new_file_form(None, []))
        sibling = max(months, key=lambda d: d.path.name)
        entries = [e for e in self.session_entries if e.path == sibling.rel_path]
        return spell_entry(day, new_file_form(sibling, entries))

    # -- the index entry --------------------------------------------------

    @property
    def registered(self) -> bool:
        return self.entry is not None

    @cached_property
    def status(self) -> str | None:
        return lifecycle.normalise(self.entry.status) if self.entry else None

    @property
    def is_dormant(self) -> bool:
        return self.status in lifecycle.DORMANT

    @property
    def is_terminal(self) -> bool:
        return self.status in lifecycle.TERMINAL

    @property
    def is_standing(self) -> bool:
        """Only a real boolean ``bounded: false`` marks a standing project."""
        return self.entry is not None and self.entry.fields.get("bounded") is False

    # -- what the files say -----------------------------------------------

    @cached_property
    def session_entries(self) -> list[SessionEntry]:
        entries: list[SessionEntry] = []
        seed = self.layout.is_seed
        for order, log in enumerate(self.session_logs):
            if seed:
                entries.extend(entries_of(log, order))
            else:  # docs/layouts.md: headings of any level and dated table rows
                entries.extend(
                    entries_of(
                        log,
                        order,
                        heading_levels=EVERY_HEADING_LEVEL,
                        table_rows=True,
                        list_items=log is not self.context,
                    )
                )
        return entries

    @cached_property
    def newest_session(self) -> SessionEntry | None:
        return newest(self.session_entries)

    @cached_property
    def session_dates(self) -> set[date]:
        return {entry.date for entry in self.session_entries if entry.date is not None}

    def header(self, name: str) -> list[HeaderField]:
        if self.layout.is_seed:
            return self.context.field_values(name)
        return self.fields(name)

    def fields(self, *names: str) -> list[HeaderField]:
        """A layout's fields named ``names``, anywhere in its file (or its status section),
        in file order (docs/layouts.md: the first occurrence wins)."""
        if self.layout.is_seed:
            return [field for name in names for field in self.context.field_values(name)]
        return fields_named(self.context, names, anywhere=True, within=self._record_range)

    @cached_property
    def _record_range(self) -> tuple[int, int] | None:
        """The lines (first, end excluded) of the ``## Current status`` section an
        instructions file keeps its record in; None: the whole file."""
        section = self.layout.section
        if section is None:
            return None
        return section_range(self.context, section) or (0, 0)

    @cached_property
    def header_last_session(self) -> tuple[HeaderField, date | None] | None:
        """The ``**Last session:**`` field (a layout's last-session field) and its first date.

        In a layout other than the seed's, an ``<!-- Updated: DATE -->`` comment comes after
        the layout's names; then, unless the layout declares its own names, the date its
        section's heading carries or a date line among its first lines in any language
        (:func:`~context_doctor.model.header.record_date`); failing that, the record's own
        newest commit that is no bulk sweep,
        merge or maintenance pass stands for it (:attr:`last_session_from_git`).
        """
        if self.layout.is_seed:
            return last_session_field(self.context, ("Last session",), anywhere=False)
        if not self.context.exists or self.context.problem:
            return None
        found = last_session_field(
            self.context, self.layout.fields.last_session, anywhere=True, within=self._record_range
        )
        if found is not None:
            return found
        if self.layout.fields.last_session == DEFAULT_LAST_SESSION:  # nothing better declared
            dated = record_date(self.context, self._record_range)
            if dated is not None:
                return dated.field, dated.day
        committed = self.record_commit
        if committed is None:
            return None
        day = committed.commit.work_date
        return HeaderField("last commit", day.isoformat(), 0), day

    @property
    def last_session_from_git(self) -> bool:
        """The record carries no date: its own newest commit's work date stands for it."""
        header = self.header_last_session
        return header is not None and header[0].line == 0

    @cached_property
    def record_commit(self) -> ProjectCommit | None:
        """The newest commit touching the context file that is a session (not a bulk sweep,
        merge or maintenance pass) and not a bot's; None without history or such a commit."""
        if not self.history_available:
            return None
        inner = self.layout.inner(self.layout.context) or ""
        touching = [
            entry
            # A bot's edit is no one bringing the record up to date: it never dates it.
            for entry in self._all_commits or []
            if entry.commit.is_session and not entry.commit.bot and entry.touched(inner)
        ]
        return max(touching, key=lambda entry: entry.commit.authored, default=None)

    @cached_property
    def header_reads_completed(self) -> bool | None:
        return completion_reading(self._status_fields, self._phase_fields)

    @cached_property
    def header_reads_paused(self) -> HeaderField | None:
        """The Status (or Phase) field that says `Paused`/`On hold`/`Parked`, if one decides."""
        return pause_reading(self._status_fields, self._phase_fields)

    @cached_property
    def _status_fields(self) -> list[HeaderField]:
        return self.fields(*self.layout.fields.status)

    @cached_property
    def _phase_fields(self) -> list[HeaderField]:
        return self.fields(*self.layout.fields.phase)

    @property
    def states_active(self) -> bool:
        """The record itself says the project is active: an index status, else a Status (or
        Phase) field that reads as not completed. A record silent about its status is never
        called active (docs/layouts.md)."""
        if self.status is not None:
            return not self.is_dormant
        return self.header_reads_completed is False

    @property
    def reads_dormant(self) -> bool:
        """Dormant by the index; with no index status, by a header reading paused or completed."""
        if self.status is not None:
            return self.is_dormant
        return self.header_reads_paused is not None or self.header_reads_completed is True

    @property
    def reads_completed(self) -> bool:
        """Completed for the budget: the index's status decides when it gives one (docs/layouts.md).

        Only a project the index gives no status (a single-project repository, an
        unregistered directory) is judged by its own header.
        """
        if self.status is not None:
            return self.is_terminal
        return self.header_reads_completed is True

    @property
    def claims_completed(self) -> bool:
        """Terminal by the index, or completed by its own header (either one says so)."""
        return self.is_terminal or self.header_reads_completed is True

    @cached_property
    def index_last_session(self) -> date | None:
        return self.entry.date_field("last_session") if self.entry else None

    @cached_property
    def as_of_markers(self) -> list[AsOfMarker]:
        return as_of_markers(self.context)

    @cached_property
    def open_items(self) -> list[OpenItem]:
        return open_items(self.context)

    @cached_property
    def _attributions(self) -> dict[str, list[Attribution]]:
        return {}

    def attributions(self, document: Document) -> list[Attribution]:
        """The attribution lines of one of the project's documents, parsed once."""
        if document.rel_path not in self._attributions:
            self._attributions[document.rel_path] = attributions(document)
        return self._attributions[document.rel_path]

    @cached_property
    def _secret_covered(self) -> list[Path]:
        """The files the seed's no-secrets rule covers: tier files (CONTEXT.md, REFERENCE.md,
        reference/*.md, every sessions/*.md, CURRENT_STATE.json) and artifacts
        (resources/artifacts/*.md), whether or not they resolve inside the repository."""
        paths = list(self.durable_tier_paths)
        # Nothing at all named resources: no artifacts, without asking for them.
        artifacts = (
            None
            if not self.layout.is_seed or self._listing.absent("resources")
            else self.directory / ARTIFACTS_DIR
        )
        if artifacts is not None and artifacts.is_dir() and not artifacts.is_symlink():
            paths += sorted(
                path for path in artifacts.glob("*.md") if path.is_file() and not path.is_symlink()
            )
        return paths

    @cached_property
    def _secret_documents(self) -> list[Document]:
        """The covered files holding credential material. A file that resolves outside the
        repository is never read; one that cannot be read is record-unreadable's and is
        passed over here."""
        known = {
            document.path: document
            for document in (self.context, self.reference, *self.topics, *self.session_logs)
        }
        found: list[Document] = []
        for path in self._secret_covered:
            if not self.resolves_inside_repository(path):
                continue
            document = known.get(path) or Document(path, self.relative(path))
            if document.problem is None and document.secret_hits:
                found.append(document)
        return found

    @cached_property
    def _secret_names(self) -> list[tuple[str, str, str]]:
        """(path, kind, token) for a known token format in a covered file's path: a
        token pasted into a file or folder name is printed by every finding about that
        file, so it is reported and redacted like one in the text."""
        found: dict[str, tuple[str, str, str]] = {}  # one finding per token: the first file
        for rel_path in dict.fromkeys(self.relative(path) for path in self._secret_covered):
            for kind, value in secrets_in_name(rel_path):
                where = "file" if value in rel_path.rpartition("/")[2] else "folder"
                found.setdefault(value, (rel_path, f"{kind} in a {where} name", value))
        return list(found.values())

    @property
    def secret_hits(self) -> list[tuple[str, SecretHit]]:
        """Each secret in the files the seed's no-secrets rule covers (or in their names)."""
        in_text = [(d.rel_path, hit) for d in self._secret_documents for hit in d.secret_hits]
        in_names = [
            (rel_path, SecretHit(0, kind, redact(value)))
            for rel_path, kind, value in self._secret_names
        ]
        return in_text + in_names

    @property
    def secret_values(self) -> set[str]:
        """The secrets themselves (in memory only): what every output is redacted of."""
        in_text = {value for document in self._secret_documents for value in document.secret_values}
        return in_text | {value for _, _, value in self._secret_names}

    @cached_property
    def structured_state(self) -> StructuredState:
        listing = self._listing
        path = listing.path(STATE_FILE)
        rel_path = self._rel_in(None, STATE_FILE)
        return StructuredState(
            self.directory,
            self.relative(path) if rel_path is None else rel_path,
            self.context,
            path=path,
            absent=listing.absent(STATE_FILE),
        )

    @cached_property
    def artifacts(self) -> list[Artifact]:
        if self._listing.absent("resources"):  # what read_artifacts finds then, unasked
            return []
        return read_artifacts(self.directory, self.relative)

    @property
    def has_structured_state(self) -> bool:
        """A *valid* CURRENT_STATE.json: only a valid one may switch a check off.

        An unreadable, malformed or schema-invalid state file reads as no
        structured state, so the checks it would replace still run (the seed's
        pairing rule) while ``semantic-current-state`` reports the file.
        """
        return self.structured_state.valid

    # -- history (read once per repository by context_doctor.git) -------------------

    @property
    def history_available(self) -> bool:
        return self.source.repository_facts().history() is not None

    @cached_property
    def _all_commits(self) -> list[ProjectCommit] | None:
        history = self.source.repository_facts().history()
        return None if history is None else history.of(self.source.scope, self.id)

    @cached_property
    def _work(self) -> WorkFilter:
        config = Path(self.layout.origin) if self.layout.declared else None
        inside = config is not None and config.is_relative_to(self.directory)
        extra = (config.relative_to(self.directory).as_posix(),) if inside and config else ()
        return WorkFilter(self.layout, self.log_inner, extra)

    @cached_property
    def _commits(self) -> list[ProjectCommit] | None:
        """The seed's layouts: every commit touching the project. Any other layout: its
        *work* (docs/layouts.md), commits touching a file besides its own records and
        ``work_ignore``. In every layout a bot's commit that changes no code is set aside
        (:func:`context_doctor.model.work.bots_own_job`, the one rule for bots)."""
        found = self._all_commits
        if found is None:
            return found
        if self.layout.is_seed:
            if not any(entry.commit.bot for entry in found):
                return found
            return [entry for entry in found if not _bots_own(entry)]
        return [entry for entry in found if self._work.is_work(entry.files, entry.commit.bot)]

    @cached_property
    def set_aside(self) -> int:
        """How many commits ``work_ignore`` (or a bot's authorship) kept from counting as
        work: the verdict line says so (never of a file that is not working memory)."""
        if not self.layout.working_memory:
            return 0
        if self.layout.is_seed:
            # Counted from what the checks read, never by reading the history for it (the
            # seed's projects/ verdict line has no such clause: thousands of projects).
            found = self.__dict__.get("_all_commits")
            return sum(1 for entry in found or () if _bots_own(entry))
        found = self._all_commits
        if found is None:
            return 0
        return sum(1 for entry in found if self._work.set_aside(entry.files, entry.commit.bot))

    def touches_log(self, entry: ProjectCommit) -> bool:
        """Whether a commit changed the project's log (a folder, a file, or the in-file log)."""
        if self.layout.is_seed:
            return entry.touched_under("sessions")
        if self.log_in_context:
            return entry.touched(self.layout.inner(self.layout.context) or "")
        inner = self.log_inner
        return inner is not None and (entry.touched(inner) or entry.touched_under(inner))

    @property
    def commits(self) -> list[ProjectCommit]:
        """Commits touching the project, newest first.

        Raises :class:`HistoryUnavailable` for a shallow clone audited under
        ``--allow-shallow``: a check that needs history cannot answer then.
        """
        if self._commits is None:
            raise HistoryUnavailable("the repository is a shallow clone; its history is incomplete")
        return self._commits

    @property
    def newest_session_commit(self) -> ProjectCommit | None:
        """The session commit (neither a merge nor a bulk sweep) with the latest author date.

        By author date rather than log order, so a cherry-picked or rebased
        commit carrying a later work date is not hidden behind an older one.
        """
        sessions = [entry for entry in self.commits if entry.commit.is_session]
        return max(sessions, key=lambda entry: entry.commit.authored, default=None)

    @cached_property
    def post_close_review(self) -> PostCloseReview:
        return review_of(
            self.entry,
            self.source.repository_facts(),
            index_rel_path=self.source.index_rel_path,
            scope=self.source.scope,
            project_id=self.id,
            has_uncommitted=lambda: bool(self.uncommitted_paths),
        )

    # -- durability (one git status and one git ls-files per repository) --


# What :meth:`Project.release` lets go: the views its checks derive, pure functions of
# the model (never one a later step of the audit asks, such as its secrets).
_RELEASED = (
    "session_entries",
    "newest_session",
    "session_dates",
    "_record_range",
    "header_last_session",
    "record_commit",
    "_status_fields",
    "_phase_fields",
    "as_of_markers",
    "open_items",
    "_attributions",
    "structured_state",
    "artifacts",
    "_all_commits",
    "_work",
    "_commits",
    "post_close_review",
    "shape_problems",
)


def _bots_own(entry: ProjectCommit) -> bool:
    """A bot's commit that changes no code: set aside in the seed's layouts too."""
    return entry.commit.bot and bots_own_job(entry.files)
