"""The fail-closed editor's Python API (docs/editor.md), raising :class:`EditRefused` instead of writing.

The editor lives in :mod:`context_doctor.editor.edit` (the verbs and the gates) and
:mod:`context_doctor.editor.apply` (batches) with the rest of the write path; this
module is the stable import path for Python callers (``add_entry(LogEntry(...), today=...)``
is ``log add``). Every file argument is a ``str`` or a ``Path``. A refusal raised here
names the keyword that would let it pass (``allow_stale_body=True``, ``count=3``), not
the command line's flag (:mod:`context_doctor.editor.vocabulary`); the CLI calls the
write path itself and keeps its flags.
"""

from context_doctor.editor import apply as _apply
from context_doctor.editor import log as _log
from context_doctor.editor.apply import ApplyResult
from context_doctor.editor.edit import EditRefused, EditResult
from context_doctor.editor.edits_file import Edit
from context_doctor.editor.gates import BODY_CURRENT, BODY_LAGS, BODY_UNVERIFIABLE, Gates
from context_doctor.editor.log import LogEntry
from context_doctor.editor.vocabulary import speaking_python

apply = speaking_python(_apply.apply)
set_field = speaking_python(_apply.set_field)
replace_once = speaking_python(_apply.replace_once)
insert_before = speaking_python(_apply.insert_before)
delete_line = speaking_python(_apply.delete_line)
add_entry = speaking_python(_log.add_entry)

__all__ = [
    "BODY_CURRENT",
    "BODY_LAGS",
    "BODY_UNVERIFIABLE",
    "ApplyResult",
    "Edit",
    "EditRefused",
    "EditResult",
    "Gates",
    "LogEntry",
    "add_entry",
    "apply",
    "delete_line",
    "insert_before",
    "replace_once",
    "set_field",
]
