"""The one write path (docs/editor.md) and the writers built on it: every byte the doctor writes goes through here.

The core is :mod:`context_doctor.write.atomic` (one file) and
:mod:`context_doctor.write.batch` (several, all or none), re-exported here; the editor
(:mod:`.edit`), the fixes (:mod:`.fixes`) and the state compiler (:mod:`.state`)
write only through it.
"""

from context_doctor.guards.contain import (
    USER_NAMED,
    contained,
    inside,
    repository_root,
)
from context_doctor.write.atomic import (
    UPDATE_ATTEMPTS,
    WRITER_WAIT_SECONDS,
    FileSnapshot,
    WriteRefused,
    append_file,
    default_mode,
    read_snapshot,
    replace_file,
    update_file,
    write_file,
)
from context_doctor.write.batch import PlannedFile, commit_files
from context_doctor.write.directory import ensure_directory, move_aside, remove_file
from context_doctor.write.lock import LOCK_TIMEOUT_SECONDS

__all__ = [
    "LOCK_TIMEOUT_SECONDS",
    "UPDATE_ATTEMPTS",
    "USER_NAMED",
    "WRITER_WAIT_SECONDS",
    "FileSnapshot",
    "PlannedFile",
    "WriteRefused",
    "append_file",
    "commit_files",
    "contained",
    "default_mode",
    "ensure_directory",
    "inside",
    "move_aside",
    "read_snapshot",
    "remove_file",
    "replace_file",
    "repository_root",
    "update_file",
    "write_file",
]
