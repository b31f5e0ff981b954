"""The fail-closed editor's Python API (SPEC §4), raising :class:`EditRefused` instead of writing.

The editor lives in :mod:`context_doctor.write.edit` (the verbs and the gates) and
:mod:`context_doctor.write.apply` (batches) with the rest of the write path; this
module is the stable import path for Python callers (``add_entry(LogEntry(...), today=...)``
is ``log add``).
"""

from context_doctor.write.apply import (
    ApplyResult,
    Edit,
    apply,
    delete_line,
    insert_before,
    replace_once,
    set_field,
)
from context_doctor.write.edit import (
    BODY_CURRENT,
    BODY_LAGS,
    BODY_UNVERIFIABLE,
    EditRefused,
    EditResult,
    Gates,
)
from context_doctor.write.log import LogEntry, add_entry

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
