"""Seeded streams: one PCG64 random stream per problem key and purpose, the same on every machine.

Each problem key (catalog, catalog version, problem id, seed, draw index) is hashed into one PCG64
stream per purpose (:data:`STREAMS`, :func:`stream_generator`); ``draws`` turns a stream's numbers
into points. The recipe is short enough to repeat in another language (docs/sampling.md).
"""

from __future__ import annotations

import hashlib
import json
import threading
from json.encoder import encode_basestring_ascii
from typing import Any

import numpy as np

__all__ = ["KEY_SCHEME", "STREAMS", "key_material", "reset_generator", "stream_generator"]

KEY_SCHEME = "srbf.sample/1"  # bump if the mapping from key to points ever changes
STREAMS = ("support", "validation", "ood", "noise")


def key_material(catalog: str, catalog_version: int, problem_id: str, seed: int, draw: int) -> str:
    """The text every stream of a problem key is hashed from (see :func:`stream_generator`)."""
    if type(catalog) is str and type(problem_id) is str and type(catalog_version) is type(seed) is type(draw) is int:
        # what json.dumps writes for these types, without its encoder's set-up (a draw's hot path)
        quoted, qid = encode_basestring_ascii(catalog), encode_basestring_ascii(problem_id)
        return f"{_KEY_HEAD}{quoted},{catalog_version!r},{qid},{seed!r},{draw!r}]"
    return json.dumps([KEY_SCHEME, catalog, catalog_version, problem_id, seed, draw], separators=(",", ":"))


_KEY_HEAD = json.dumps([KEY_SCHEME])[:-1] + ","


def _stream_state(material: str, stream: str) -> dict[str, Any]:
    digest = int.from_bytes(hashlib.sha256(f"{material}:{stream}".encode("ascii")).digest(), "little")
    state = digest & _LOW_128  # the first 16 bytes, little-endian
    inc = (digest >> 128) | 1  # the last 16; PCG64 increments are odd
    return {"bit_generator": "PCG64", "state": {"state": state, "inc": inc}, "has_uint32": 0, "uinteger": 0}


_LOW_128 = (1 << 128) - 1


def stream_generator(
    catalog: str, catalog_version: int, problem_id: str, seed: int, draw: int, stream: str
) -> np.random.Generator:
    """A fresh Generator positioned at the start of one stream of a problem key.

    The state of stream ``s`` is the SHA-256 of ``material + ":" + s``, where ``material`` is the
    compact JSON list ``["srbf.sample/1", catalog, catalog_version, problem_id, seed, draw]``:
    the first 16 bytes (little-endian) are the PCG64 state, the last 16 (with the low bit set)
    its increment. This is the whole recipe; docs/sampling.md repeats it for other languages.
    """
    if stream not in STREAMS:
        raise ValueError(f"stream must be one of {', '.join(STREAMS)}, got {stream!r}")
    bit_generator = np.random.PCG64(0)
    bit_generator.state = _stream_state(key_material(catalog, catalog_version, problem_id, seed, draw), stream)
    return np.random.Generator(bit_generator)


class _Generators(threading.local):
    """One reusable Generator per stream and thread: building a PCG64 costs ~25 us, a reset ~2."""

    def __init__(self) -> None:
        self.by_stream = {s: np.random.Generator(np.random.PCG64(0)) for s in STREAMS}

    def get(self, material: str, stream: str) -> np.random.Generator:
        gen = self.by_stream[stream]
        gen.bit_generator.state = _stream_state(material, stream)
        return gen


_GENERATORS = _Generators()


def reset_generator(material: str, stream: str) -> np.random.Generator:
    """This thread's reusable Generator for ``stream``, reset to the start of that stream of the key
    ``material`` (:func:`key_material`): the same numbers as :func:`stream_generator`, faster."""
    return _GENERATORS.get(material, stream)
