"""The 21 tile kinds of Ka Wu Xing (docs/rules.md §1): parsing and formatting in compact and Chinese notation.

A tile is a small int (its display-order index) wrapped in an IntEnum, so hot code can treat it as an int
and index count arrays with it:
    0–8   筒 dots 1–9      compact 1p…9p
    9–17  条 bamboo 1–9    compact 1s…9s
    18    中 red dragon    compact 7z
    19    发 green dragon  compact 6z
    20    白 white dragon  compact 5z
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import IntEnum

NUM_KINDS = 21
COPIES = 4
WALL_SIZE = NUM_KINDS * COPIES  # 84


class Tile(IntEnum):
    P1 = 0
    P2 = 1
    P3 = 2
    P4 = 3
    P5 = 4
    P6 = 5
    P7 = 6
    P8 = 7
    P9 = 8
    S1 = 9
    S2 = 10
    S3 = 11
    S4 = 12
    S5 = 13
    S6 = 14
    S7 = 15
    S8 = 16
    S9 = 17
    RED = 18  # 中 7z
    GREEN = 19  # 发 6z
    WHITE = 20  # 白 5z

    # -- properties -------------------------------------------------------------------------------
    @property
    def suit(self) -> str:
        """'p', 's' or 'z'."""
        return "p" if self < 9 else "s" if self < 18 else "z"

    @property
    def is_dragon(self) -> bool:
        return self >= 18

    @property
    def number(self) -> int:
        """1–9 for suited tiles; the compact digit (5/6/7) for dragons."""
        if self < 18:
            return self % 9 + 1
        return _DRAGON_DIGIT[self]

    @property
    def compact(self) -> str:
        return f"{self.number}{self.suit}"

    @property
    def chinese(self) -> str:
        return CHINESE_NAMES[self]

    def __str__(self) -> str:  # compact form reads well in logs and errors
        return self.compact

    def __repr__(self) -> str:
        return f"Tile({self.compact})"

    def __format__(self, spec: str) -> str:
        return format(self.compact, spec)


ALL_TILES: tuple[Tile, ...] = tuple(Tile)
DRAGONS: tuple[Tile, ...] = (Tile.RED, Tile.GREEN, Tile.WHITE)
_DRAGON_DIGIT = {Tile.WHITE: 5, Tile.GREEN: 6, Tile.RED: 7}
_DIGIT_DRAGON = {5: Tile.WHITE, 6: Tile.GREEN, 7: Tile.RED}

_CN_NUM = "一二三四五六七八九"
CHINESE_NAMES: dict[Tile, str] = {}
for _i in range(9):
    CHINESE_NAMES[Tile(_i)] = f"{_CN_NUM[_i]}筒"
    CHINESE_NAMES[Tile(9 + _i)] = f"{_CN_NUM[_i]}条"
CHINESE_NAMES[Tile.RED] = "红中"
CHINESE_NAMES[Tile.GREEN] = "发财"
CHINESE_NAMES[Tile.WHITE] = "白板"

# Short Chinese labels for compact displays (buttons, boards): 5筒, 7条, 中, 发, 白.
SHORT_CHINESE: dict[Tile, str] = {t: f"{t.number}{'筒' if t < 9 else '条'}" for t in ALL_TILES[:18]}
SHORT_CHINESE |= {Tile.RED: "中", Tile.GREEN: "发", Tile.WHITE: "白"}


EXCERPT = 12  # the most characters of a player's input an error echoes back


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """A short piece of input to quote back: at most `limit` characters, '…' where it was cut."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# English lines for logs and the command-line tools; players read the catalog's `tile.error.<code>`.
TILE_ERRORS = {
    "bad_number": '"{token}" is not a tile: suited tiles are numbered 1–9',
    "bad_dragon": '"{token}" is not a tile: dragons are 5z 白, 6z 发, 7z 中',
    "no_characters": '"{token}" is not a tile: Ka Wu Xing has no 万 (characters); suits are p 筒 and s 条',
    "bad_suit": '"{token}" is not a tile: suits are p 筒, s 条 and z (dragons 5z 白, 6z 发, 7z 中)',
    "no_suit": '"{token}" is not a tile: write digits then a suit letter, e.g. 1123p 456s 77z',
    "unknown": '"{token}" is not a tile: use compact notation (1123p 456s 77z) or names like 五筒 七条 红中',
    "not_one": '"{token}" is not one tile',
    "empty": "no tile given",
    "too_many": '"{tile}" appears {count} times: there are only four of each tile',
    "wall_size": "a wall has {size} tiles, not {count}",
    "wall_counts": "a wall has four of each tile; this one has {tiles}",
}


class TileError(ValueError):
    """Bad tile text or an impossible tile collection. `code` says what was wrong (a key of TILE_ERRORS) and
    `fmt` what it was about (`token`: a short excerpt of the input); the presentation floor renders it in the
    player's language (`tile.error.<code>`). str() is the English line."""

    catalog = "tile.error"

    def __init__(self, code: str, **fmt: object) -> None:
        self.code = code
        self.fmt = fmt
        super().__init__(TILE_ERRORS[code].format(**fmt))


# -- Chinese names -------------------------------------------------------------------------------
_CN_SUIT = {"筒": 0, "饼": 0, "餅": 0, "条": 9, "條": 9, "索": 9}
_CN_DIGITS = {c: i + 1 for i, c in enumerate(_CN_NUM)} | {str(i): i for i in range(1, 10)}
_CN_DRAGON_WORDS = {
    "红中": Tile.RED, "紅中": Tile.RED, "中": Tile.RED,
    "发财": Tile.GREEN, "發財": Tile.GREEN, "发財": Tile.GREEN, "發财": Tile.GREEN, "发": Tile.GREEN, "發": Tile.GREEN,
    "白板": Tile.WHITE, "白": Tile.WHITE,
}
# Longest first so 红中 wins over 中.
_CN_TOKEN = re.compile(
    "|".join(sorted((re.escape(w) for w in _CN_DRAGON_WORDS), key=len, reverse=True))
    + r"|[一二三四五六七八九1-9][筒饼餅条條索]"
)
_COMPACT_GROUP = re.compile(r"(\d+)([a-zA-Z])")
_VALID_COMPACT = re.compile(r"(?:[1-9]+[psPS]|[5-7]+[zZ])+")
# Suit letter -> digit -> tile, for the common case of a valid compact group (both letter cases).
_COMPACT_DIGITS: dict[str, dict[str, Tile]] = {}
for _letter, _tiles in (("p", {str(n): Tile(n - 1) for n in range(1, 10)}),
                        ("s", {str(n): Tile(8 + n) for n in range(1, 10)}),
                        ("z", {str(d): t for d, t in _DIGIT_DRAGON.items()})):
    _COMPACT_DIGITS[_letter] = _COMPACT_DIGITS[_letter.upper()] = _tiles


def _parse_compact_group(digits: str, suit: str) -> list[Tile]:
    table = _COMPACT_DIGITS.get(suit)
    if table is not None:  # fast path: every digit a valid tile of the suit
        try:
            return [table[d] for d in digits]
        except KeyError:
            pass
    suit_l = suit.lower()
    out: list[Tile] = []
    for i, d in enumerate(digits):
        n = int(d)
        # A 0 after another digit was meant as a number above 9 (10p): name both digits, as the player wrote them.
        token = f"{digits[i - 1] if d == '0' and i else ''}{d}{suit}"
        if suit_l == "p" or suit_l == "s":
            if n == 0:
                raise TileError("bad_number", token=token)
            out.append(Tile((0 if suit_l == "p" else 9) + n - 1))
        elif suit_l == "z":
            if n not in _DIGIT_DRAGON:
                raise TileError("bad_dragon", token=token)
            out.append(_DIGIT_DRAGON[n])
        elif suit_l == "m":
            raise TileError("no_characters", token=token)
        else:
            raise TileError("bad_suit", token=token)
    return out


def parse_tiles(text: str, *, check_copies: bool = True) -> list[Tile]:
    """Parse compact (`1123p456s77z`) and/or Chinese (五筒 5饼 七条 红中 发财 白板) notation.

    Spaces and commas are ignored. Raises TileError naming the bad token, or a fifth copy of a tile.
    """
    s = text.strip()
    if _VALID_COMPACT.fullmatch(s):  # fast path: plain compact notation with valid digits only
        tiles: list[Tile] = []
        for digits, suit in _COMPACT_GROUP.findall(s):
            tiles += map(_COMPACT_DIGITS[suit].__getitem__, digits)
        if check_copies:
            check_counts(tiles)
        return tiles
    tiles = []
    pos = 0
    n = len(s)
    while pos < n:
        ch = s[pos]
        if ch in " ,，、\t":
            pos += 1
            continue
        if ch.isdigit() and ch.isascii():
            m = _COMPACT_GROUP.match(s, pos)
            if m:
                tiles.extend(_parse_compact_group(m.group(1), m.group(2)))
                pos = m.end()
                continue
            # Digits followed by a Chinese suit character, e.g. 5饼 or 55筒? Only a single digit is a tile.
            m2 = _CN_TOKEN.match(s, pos)
            if m2:
                tiles.append(_cn_token_tile(m2.group(0)))
                pos = m2.end()
                continue
            end = pos
            while end < n and s[end].isdigit():
                end += 1
            if end < n and s[end] not in " ,，、\t":
                end += 1  # show the character that stopped the digits
            raise TileError("no_suit", token=excerpt(s[pos:end]))
        m = _CN_TOKEN.match(s, pos)
        if m:
            tiles.append(_cn_token_tile(m.group(0)))
            pos = m.end()
            continue
        end = pos + 1
        while end < n and s[end] not in " ,，、\t" and not (s[end].isascii() and s[end].isdigit()):
            end += 1
        raise TileError("unknown", token=excerpt(s[pos:end]))
    if check_copies:
        check_counts(tiles)
    return tiles


def _cn_token_tile(tok: str) -> Tile:
    if tok in _CN_DRAGON_WORDS:
        return _CN_DRAGON_WORDS[tok]
    return Tile(_CN_SUIT[tok[1]] + _CN_DIGITS[tok[0]] - 1)


def parse_tile(text: str) -> Tile:
    """Exactly one tile, in either notation."""
    tiles = parse_tiles(text, check_copies=False)
    if len(tiles) != 1:
        raise TileError("not_one", token=excerpt(text.strip())) if tiles else TileError("empty")
    return tiles[0]


def parse_tile_arg(tile: Tile | str | None) -> Tile | None:
    """A tile argument from a front end: a Tile, compact/Chinese text, or None. Raises TileError."""
    if tile is None or isinstance(tile, Tile):
        return tile
    return parse_tile(str(tile))


def check_counts(tiles: Iterable[int], extra: Iterable[int] = ()) -> None:
    counts = to_counts((*tiles, *extra))
    for t in range(NUM_KINDS):
        if counts[t] > COPIES:
            raise TileError("too_many", tile=Tile(t).compact, count=counts[t])


def format_compact(tiles: Iterable[int]) -> str:
    """Tiles in display order, grouped: [0,0,1,13,18] -> '112p5s7z'. Dragons order 中发白 -> 765z."""
    groups: dict[str, list[str]] = {"p": [], "s": [], "z": []}
    for t in sorted(tiles):
        tile = Tile(t)
        groups[tile.suit].append(str(tile.number))
    return "".join(f"{''.join(ds)}{suit}" for suit, ds in groups.items() if ds)


def format_chinese(tiles: Iterable[int], sep: str = " ") -> str:
    return sep.join(SHORT_CHINESE[Tile(t)] for t in sorted(tiles))


def to_counts(tiles: Iterable[int]) -> list[int]:
    counts = [0] * NUM_KINDS
    for t in tiles:
        counts[t] += 1
    return counts


def from_counts(counts: list[int]) -> list[Tile]:
    return [Tile(t) for t in range(NUM_KINDS) for _ in range(counts[t])]


def full_set() -> list[Tile]:
    """The 84 tiles in display order (a wall before shuffling)."""
    return [t for t in ALL_TILES for _ in range(COPIES)]
