"""Bounds on what the doctor parses: size of a file, expansion of a YAML document.

The audited tree is untrusted, and a tiny file can cost minutes (a YAML alias
bomb) or a large one can cost memory; every parse is bounded instead (SECURITY.md).

- :data:`MAX_FILE_BYTES` (4 MiB): no file the doctor parses (tier files, session
  logs, index.yaml, console.yaml, the config, graded Markdown) is read beyond it.
  A context tier is a few hundred lines; 4 MiB is some 50,000 lines of prose, so
  a file over it is a mistake (a pasted log, a binary) and is reported, quickly,
  instead of parsed: a finding for a tier file, exit 2 for a file that defines the
  corpus (index.yaml, console.yaml, the config).
- :func:`yaml_node_limit`: a YAML document may expand (aliases followed) to at
  most one node per byte of its text, and always to 100,000 nodes.  Written out
  without aliases a document has fewer nodes than bytes, so only alias reuse can
  reach the limit; a 578-byte bomb of 10 aliases over 9 levels (10^9 nodes) is
  refused after 100,000.
- :func:`resolves_within`: nothing is read through a symlink that leaves the
  repository (a tier file linked to ``~/notes/x.md`` is ``untracked-context``,
  never read or quoted).
"""

from __future__ import annotations

import errno
import os
import stat

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (status imports this)
if TYPE_CHECKING:
    from pathlib import Path

MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_WRITE_TARGET_BYTES = 64 * 1024 * 1024
"""The most the write path reads of a file it changes (a CONTEXT.md, a log, a journal, a
client's config such as ``~/.claude.json``, which grows past 4 MiB in real use): bigger is
one clear refusal, never a ``MemoryError`` (a journal linked to a 3 GiB file)."""
MIN_YAML_NODES = 100_000
MAX_FRONTMATTER_BYTES = 64 * 1024
"""The most frontmatter the careful (pure-Python, round-trip) YAML parser is given: a real
block is a few hundred bytes, and that parser spends seconds on a hostile 1 MiB one (a
1.6 MiB broken-YAML memory took over 30 s). Past it the block is refused unparsed."""
MAX_YAML_FILE_BYTES = 1024 * 1024
"""The most of an ``index.yaml`` or ``console.yaml`` the doctor parses (and of the index a
writer re-reads, or the index at a reviewed commit): every file parsed or refused in under
2 s.  libyaml reads it (``yamlio.careful_load``) at about 0.5 s per MiB of a real
index on the benchmark machine, and up to 2 s per MiB of the densest hostile text (a flow
list of empty mappings); a real index is some 80 bytes a project (the 2,000-project
benchmark index is 160 KB), so 1 MiB holds some 13,000 projects."""
MAX_YAML_COLLECTIONS = 50_000
"""The most mappings and lists one such file may hold (a real index: one per project, one
more per list-valued field): each costs libyaml's events and an object, so text of nothing
but ``{}, `` is refused after this many, within the time bound."""
MAX_CAREFUL_YAML_BYTES = 64 * 1024
"""The most YAML text ruamel's pure-Python round-trip parser is handed (about a second per
100 KiB on the benchmark machine; 1.9 MB of valid index took it 42 s): to read a construct
libyaml's path does not reproduce exactly (an explicit tag, a merge key) and to word a
syntax error.  Past it such a file is refused with one line naming the construct, or with
libyaml's syntax error at its line (``yamlio.careful_load``)."""
MAX_NOTE_FRONTMATTER_BYTES = 256 * 1024
"""The most frontmatter of a vault note that is YAML-parsed at all: libyaml (PyYAML's C
loader, with its Python constructor) reads a note's block at some 3 s per MiB on the
benchmark machine, and a real memory's block is a few hundred bytes.  A larger block is
not parsed: the note counts as unreadable (shown in the vault's coverage), never judged."""
MAX_CONFIG_BYTES = 256 * 1024
"""The most of a configuration file (``context-doctor.toml``, ``pyproject.toml``) the doctor
parses: tomllib is pure Python (a valid 2 MiB file took seconds), and a real one is a few
KiB, a large ``pyproject.toml`` some tens."""
MAX_RESCUED_ENTRIES = 64
"""The most top-level entries of a broken frontmatter block parsed one by one (Bastra's
rescue); the rest are dropped unparsed, so each file's YAML work stays bounded."""


class TooLarge(Exception):
    """A file holds more than the doctor parses."""

    def __init__(self, limit: int) -> None:
        size = f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit // 1024} KiB"
        super().__init__(f"is over {size}, the most the doctor parses")
        self.limit = limit


READ_CHUNK = 1 << 16  # most tier files fit in one read; no 4 MiB buffer is asked for


def kind_of(mode: int) -> str:
    """What a file of ``mode`` is, in words (for one that is not a regular file)."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


class NotRegularFile(OSError):
    """A FIFO, socket or device where a file was expected: never read (a FIFO blocks forever)."""

    def __init__(self, mode: int) -> None:
        super().__init__(errno.EINVAL, f"is {kind_of(mode)}, not a regular file")


def read_limited(path: Path | str, limit: int = MAX_FILE_BYTES, *, follow: bool = True) -> bytes:
    """The file's bytes, never reading more than ``limit`` + 1 of them (``TooLarge`` if over).

    Plain ``os`` calls: a warm run reads every tier file (10,000 at 2,000 projects), and
    ``Path.open`` adds a file object, a buffer, an ``fstat`` and an ``isatty`` to each.
    Opened without blocking and refused (:class:`NotRegularFile`) unless it is a regular
    file: a FIFO in the audited tree would otherwise hang the run on its first read, and a
    link to ``/dev/zero`` would never end. ``follow=False`` refuses a link itself.
    """
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    if not follow:  # the final component may not be a link (ELOOP)
        flags |= getattr(os, "O_NOFOLLOW", 0)
    handle = os.open(path, flags)
    try:
        mode = os.fstat(handle).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(mode)
        return read_descriptor(handle, limit)
    finally:
        os.close(handle)


def read_descriptor(handle: int, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the open file ``handle`` from its start, never more than ``limit`` + 1.

    The one bounded reader: every read the doctor makes of a file ends here, through
    :func:`read_limited` or the write path. Positional reads (``pread``): the handle's
    offset is left alone. ``TooLarge`` past ``limit``.
    """
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = os.pread(handle, min(limit + 1 - total, READ_CHUNK), total)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:
        raise TooLarge(limit)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def yaml_node_limit(text: str) -> int:
    """How many nodes a YAML document of ``text`` may expand to."""
    return max(MIN_YAML_NODES, len(text))


def resolves_within(path: Path, root: Path) -> bool:
    """True when ``path`` (symlinks followed) lies inside ``root``; False if it leaves or loops."""
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    # A resolved path has no symlink, `.` or `..` component, so when it lies lexically
    # under ``root`` it lies under root's real location: resolving ``root`` (half of
    # this function's cost, paid for every tier file) is only needed when it does not.
    if resolved.is_relative_to(root):
        return True
    try:
        return resolved.is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return False
