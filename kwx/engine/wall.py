"""The wall (docs/rules.md §2): a secret seed, and a reproducible shuffle of the 84 tiles from it.

The shuffle is a Fisher–Yates driven by SHA-256 in counter mode over the seed, with rejection sampling so every
index is exactly uniform. A fresh seed comes from `secrets`, so walls are unpredictable; storing the seed is
enough to rebuild the wall (and the opening dice) for a replay or an audit.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Iterator, Sequence

from kwx.engine.tiles import WALL_SIZE, Tile, TileError, full_set, parse_tiles, to_counts

_WALL_DOMAIN = b"kwx/wall/v1\x00"
_DICE_DOMAIN = b"kwx/dice/v1\x00"


def new_seed() -> str:
    """256 bits from the OS's secure RNG, as 64 hex digits."""
    return secrets.token_hex(32)


def _stream(domain: bytes, seed: str) -> Iterator[int]:
    """Bytes of SHA-256(domain ‖ seed ‖ counter) for counter = 0, 1, 2, …"""
    prefix = domain + seed.encode("utf-8") + b"\x00"
    counter = 0
    while True:
        yield from hashlib.sha256(prefix + counter.to_bytes(8, "big")).digest()
        counter += 1


def _uniform(stream: Iterator[int], n: int) -> int:
    """A uniform integer in [0, n) from 32-bit words, rejecting the biased top of the range."""
    limit = (1 << 32) - (1 << 32) % n
    while True:
        word = next(stream) << 24 | next(stream) << 16 | next(stream) << 8 | next(stream)
        if word < limit:
            return word % n


def wall_from_seed(seed: str) -> list[Tile]:
    """The 84 tiles in draw order; the same seed always gives the same wall."""
    tiles = full_set()
    stream = _stream(_WALL_DOMAIN, seed)
    for i in range(len(tiles) - 1, 0, -1):
        j = _uniform(stream, i + 1)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


def dice_from_seed(seed: str) -> tuple[int, int]:
    """The two opening dice (1–6) of the hand dealt from this seed (上楼 doubles the base when they match)."""
    stream = _stream(_DICE_DOMAIN, seed)
    return _uniform(stream, 6) + 1, _uniform(stream, 6) + 1


def check_wall(tiles: Sequence[int]) -> None:
    """Raise TileError unless `tiles` is exactly the 84 tiles, four of each kind."""
    if len(tiles) != WALL_SIZE:
        raise TileError("wall_size", size=WALL_SIZE, count=len(tiles))
    counts = to_counts(tiles)
    wrong = [f"{Tile(t).compact}×{c}" for t, c in enumerate(counts) if c != 4]
    if wrong:
        raise TileError("wall_counts", tiles=", ".join(wrong))


def parse_wall(text: str) -> list[Tile]:
    """A wall written in compact (or Chinese) notation, in draw order; checked to be the 84 tiles."""
    tiles = parse_tiles(text, check_copies=False)
    check_wall(tiles)
    return tiles


def format_sequence(tiles: Iterable[int]) -> str:
    """Tiles in the given order (not sorted), compact notation: [1p, 3p, 5s, 2p] -> '13p5s2p'."""
    out: list[str] = []
    digits: list[str] = []
    suit = ""
    for t in tiles:
        tile = Tile(t)
        if tile.suit != suit and digits:
            out.append("".join(digits) + suit)
            digits = []
        suit = tile.suit
        digits.append(str(tile.number))
    if digits:
        out.append("".join(digits) + suit)
    return "".join(out)
