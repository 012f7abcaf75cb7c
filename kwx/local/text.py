"""Text for the local front ends: the terminal's strings (catalog keys `local.*`), verb labels, tiles in colour."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text

from kwx.engine.tiles import Tile, TileError, parse_tile, parse_tiles
from kwx.present.i18n import catalog, resolve_lang, tile_label, tr

# Both names of every verb, for choices and help: 胡(hu).
VERB_LABELS: dict[str, tuple[str, str]] = {
    "discard": ("打", "discard"), "liangdao": ("亮倒", "liangdao"), "gang": ("杠", "gang"),
    "peng": ("碰", "peng"), "hu": ("胡", "hu"), "pass": ("过", "pass"),
}



def say(key: str, lang: str, **fmt: Any) -> str:
    """A terminal string (catalog key `local.<key>`) in `lang` (zh-CN or en), without the backticks that mark
    code in the catalog (Discord renders them; a terminal would print them)."""
    return plain_code(tr(f"local.{key}", lang, **fmt))


def plain_code(text: str) -> str:
    """Catalog text for the terminal: `code` marks dropped."""
    return text.replace("`", "")


def catalog_text(key: str, lang: str, **fmt: Any) -> str | None:
    """The shared catalog's text for `key`, or None when the catalog has no such key."""
    if catalog().template(key, lang) is None:
        return None
    return tr(key, lang, **fmt)


def verb_label(verb: str, lang: str) -> str:
    zh, en = VERB_LABELS[verb]
    return f"{en} {zh}" if resolve_lang(lang) == "en" else f"{zh}({en})"



# -- tiles in colour ------------------------------------------------------------------------------------------
DOT_DIGIT, DOT_SUIT = "bold red", "bold blue"  # 筒: red and blue circles
BAMBOO = "bold green"
DRAGON_STYLE = {Tile.RED: "bold red", Tile.GREEN: "bold green", Tile.WHITE: "bold grey62"}


def tile_text(tile: Tile, lang: str) -> Text:
    label = tile_label(tile, lang)
    if tile.is_dragon:
        return Text(label, style=DRAGON_STYLE[tile])
    if tile.suit == "p":
        return Text.assemble((label[:-1], DOT_DIGIT), (label[-1], DOT_SUIT))
    return Text(label, style=BAMBOO)


def tile_markup(tile: Tile, lang: str) -> str:
    return tile_text(tile, lang).markup


def tiles_markup(tiles: Iterable[Tile], lang: str, sep: str = " ") -> str:
    return sep.join(tile_markup(x, lang) for x in tiles)


def tiles_text(tiles: Iterable[Tile], lang: str, sep: str = " ") -> Text:
    return Text(sep).join(tile_text(x, lang) for x in tiles)


_DRAGON_WORDS = {"red": Tile.RED, "green": Tile.GREEN, "grn": Tile.GREEN, "white": Tile.WHITE, "wht": Tile.WHITE}


def read_tile(text: str) -> Tile:
    """A typed tile: any notation parse_tile reads, or a dragon by the English name the screen shows (Red, Grn,
    Wht; green, white). Raises TileError like parse_tile."""
    word = _DRAGON_WORDS.get(text.strip().lower())
    return word if word is not None else parse_tile(text)


def tile_or_none(text: str | None) -> Tile | None:
    if not text:
        return None
    try:
        return read_tile(text)
    except TileError:
        return None


def tiles_or_none(text: str | None) -> list[Tile]:
    """Tiles in compact notation ("123p4s", "5p 7z"); none when the text is not that."""
    try:
        return parse_tiles(text or "", check_copies=False)
    except TileError:
        return []



def money_style(n: int) -> str:
    return "green" if n > 0 else "red" if n < 0 else "dim"
