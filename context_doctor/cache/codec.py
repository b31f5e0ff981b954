"""The caches' wire format: MessagePack through msgspec, every value decoded against a type.

The caches live in a repository someone else may have prepared, so they hold data only
(never pickle), and nothing read back reaches the model before msgspec has checked it,
in C, against the type its code expects: a ``bool`` is no ``int``, a record has exactly
its fields, a tuple its length.  A value that does not decode (msgspec's
``ValidationError`` or ``DecodeError``, both ``ValueError``) is a miss.

Each cache file's body is one :class:`Envelope`: the key it was written for and its data,
kept as :class:`msgspec.Raw` until the key matched.  Files of many entries keep each
entry as ``Raw`` too, so each is decoded (and, if it does not decode, ignored) on its
own, and an entry carried over unchanged is written back as the bytes it was read as.
The history's own shape is in :mod:`context_doctor.cache.history_wire`, imported only by
a run that reads or writes the history (a replayed run does neither).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar

import msgspec

T = TypeVar("T")

# Errors a decode (or the model's constructors after it) raise on bytes that are not what
# their type says: each means "a miss".
BAD_DATA = (ValueError, TypeError, KeyError, IndexError)


class Envelope(msgspec.Struct):
    """A cache file's body: the key it was written for, and its data (decoded later)."""

    key: str
    data: msgspec.Raw


def _enc_hook(value: Any) -> Any:
    # A path is stored as its bytes, so any name round-trips (surrogate escapes included).
    if isinstance(value, Path):
        return os.fsencode(value)
    raise TypeError(f"a {type(value).__name__} is not cached")


def _dec_hook(kind: type, value: Any) -> Any:
    if kind is Path and type(value) is bytes:
        return Path(os.fsdecode(value))
    raise TypeError(f"not a {kind.__name__}")


def _ext_hook(code: int, data: memoryview) -> Any:
    raise TypeError("the caches hold no extension types")  # only a forged file has one


_ENCODER = msgspec.msgpack.Encoder(enc_hook=_enc_hook)


def encode(value: Any) -> bytes:
    """``value``'s MessagePack; TypeError for a type the caches do not hold (a subclass of
    ``str``, ``int`` or ``float`` among them: a value comes back as exactly what it was)."""
    return _ENCODER.encode(value)


def encode_after(head_size: int, value: Any) -> bytearray:
    """``head_size`` zero bytes (room for a header), then ``value``'s MessagePack, encoded
    in place: a large cache file is not copied again to put its header in front."""
    buffer = bytearray(head_size)
    _ENCODER.encode_into(value, buffer, head_size)
    return buffer


_DECODERS: dict[Any, msgspec.msgpack.Decoder[Any]] = {}


def decode(data: Any, kind: type[T]) -> T:
    """The value of type ``kind`` ``data`` holds; a ``ValueError`` (or TypeError) else."""
    found = _DECODERS.get(kind)
    if found is None:  # built once per type
        found = _DECODERS[kind] = msgspec.msgpack.Decoder(
            kind, dec_hook=_dec_hook, ext_hook=_ext_hook
        )
    value: T = found.decode(data)
    return value
