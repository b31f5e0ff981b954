"""The per-user secret every cache entry is authenticated with (docs/caches.md).

The caches live in a repository's git directory, which someone else may have
prepared (a tarball, a shared folder): what the doctor reads back from them is
only believed when it carries a keyed BLAKE2b tag made with a random secret
kept outside every repository, ``$XDG_CACHE_HOME/context-doctor/replay-secret``
(``~/.cache`` by default), mode 0600.

The secret is refused, and nothing is cached or replayed, when it is a symlink,
not a regular file, not owned by the user running the doctor, or readable or
writable by anyone else: then someone else may know it, or choose it, and could
forge a tag.  A refused secret is never replaced (the user decides what to do
with it); a missing one is made on first use.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

from context_doctor.cache.debug import DebugLog
from context_doctor.errors import DoctorError
from context_doctor.write import USER_NAMED, WriteRefused, ensure_directory, write_file

SECRET_NAME = "replay-secret"  # the name the replay store's secret always had
SECRET_BYTES = 32
_warned: set[str] = set()
LOG = DebugLog("context_doctor.cache")


class SecretRefused(Exception):
    """The secret file exists but cannot be trusted (the message says why)."""


def secret_directory() -> Path:
    configured = os.environ.get("XDG_CACHE_HOME")
    base = Path(configured) if configured and os.path.isabs(configured) else Path.home() / ".cache"
    return base / "context-doctor"


def secret_path() -> Path:
    return secret_directory() / SECRET_NAME


def read_secret(path: Path) -> bytes:
    """The secret's bytes (at most one more than a secret has); SecretRefused if untrustworthy."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        handle = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        if error.errno == errno.ELOOP or (error.errno != errno.ENOENT and path.is_symlink()):
            raise SecretRefused("is a symlink") from error
        raise
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):
            raise SecretRefused("is not a regular file")
        owner = getattr(os, "geteuid", None)
        if owner is not None and status.st_uid != owner():
            raise SecretRefused(f"is owned by user id {status.st_uid}, not by you")
        if stat.S_IMODE(status.st_mode) & 0o077:
            mode = stat.S_IMODE(status.st_mode)
            raise SecretRefused(f"can be read or written by others (mode {mode:04o})")
        return os.read(handle, SECRET_BYTES + 1)
    finally:
        os.close(handle)


def _warn_once(path: Path, why: str) -> None:
    """A refused secret turns every cache off: said once per process, on stderr."""
    if str(path) in _warned:
        return
    _warned.add(str(path))
    print(
        f"context-doctor: warning: caching is off: {path} {why} "
        f"(remedy: delete it; a new one is made with mode 0600)",
        file=sys.stderr,
    )


def machine_secret() -> bytes | None:
    """The per-user secret, created on first use; None when it is missing and cannot be made,
    or exists and is refused (see the module docstring)."""
    path = secret_path()
    for _ in range(2):
        try:
            secret = read_secret(path)
        except FileNotFoundError:
            secret = b""
        except SecretRefused as refused:
            _warn_once(path, str(refused))
            LOG.debug(f"cache off: {path} {refused}")
            return None
        except OSError as error:
            LOG.debug(f"cache off: {path} cannot be read ({error})")
            return None
        if len(secret) == SECRET_BYTES:
            return secret
        if secret:
            _warn_once(path, f"is not {SECRET_BYTES} bytes long")
            LOG.debug(f"cache off: {path} is not a secret of ours")
            return None
        try:
            # $XDG_CACHE_HOME: the user's environment names it, never the audited tree.
            ensure_directory(path.parent, within=USER_NAMED)
            write_file(
                path, os.urandom(SECRET_BYTES), mode=0o600, exclusive=True, within=USER_NAMED
            )
        except WriteRefused as refused:
            if refused.rule != "exists":  # another run made it first: read theirs
                LOG.debug(f"cache off: {path} not written ({refused.message})")
                return None
        except (DoctorError, OSError) as error:
            LOG.debug(f"cache off: {path} not written ({error})")
            return None
    return None
