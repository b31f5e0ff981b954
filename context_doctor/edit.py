"""The fail-closed editor's Python API (SPEC §4), raising :class:`EditRefused` instead of writing.

The editor lives in :mod:`context_doctor.write.edit` with the rest of the write path;
this module is the stable import path for Python callers.
"""

from context_doctor.write.edit import (
    EditRefused,
    EditResult,
    Gates,
    insert_before,
    replace_once,
    set_field,
)

__all__ = ["EditRefused", "EditResult", "Gates", "insert_before", "replace_once", "set_field"]
