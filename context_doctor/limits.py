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
MAX_CAREFUL_YAML_BYTES = 256 * 1024
"""Past this an index or console file's syntax is first checked by libyaml (C), and only
what it accepts reaches the careful parser: a broken 1.6 MiB file is refused at its line in
a fraction of a second, not after half a minute (a real 2,000-project index is about this)."""
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
