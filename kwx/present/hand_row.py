"""Hand rows as pictures: the concealed tiles, each exposed meld and the winning tile, composed from the tile
faces of kwx.present.art (the result post's and the review's images)."""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from kwx.engine.tiles import Tile
from kwx.present.art import GOLD, TILE_BOX, tile_png_bytes, to_png


@dataclass(frozen=True)
class MeldArt:
    """An exposed meld: 3 tiles (pung) or 4 (kong); a concealed kong shows both ends face down (■55■, as 雀魂
    and the board's emoji rows show one)."""

    tiles: tuple[int, ...]
    concealed: bool = False


@lru_cache(maxsize=64)
def tile_image(tile: int | None, height: int) -> Image.Image:
    with Image.open(io.BytesIO(tile_png_bytes(tile))) as full:
        face = full.convert("RGBA").crop(TILE_BOX)
    width = round(face.width * height / face.height)
    return face.convert("RGBa").resize((width, height), Image.Resampling.LANCZOS).convert("RGBA")


def _meld_tiles(meld: Any) -> tuple[list[int | None], bool]:
    """Accept MeldArt, anything with .tiles (and .concealed), or a plain sequence of tiles."""
    tiles = [int(t) for t in getattr(meld, "tiles", meld)]
    concealed = bool(getattr(meld, "concealed", False))
    if not 3 <= len(tiles) <= 4:
        raise ValueError(f"a meld has 3 or 4 tiles, not {len(tiles)}")
    shown: list[int | None] = list(tiles)
    if concealed and len(tiles) == 4:
        shown[0] = shown[3] = None
    return shown, concealed


def render_hand(
    tiles: Iterable[int],
    melds: Iterable[MeldArt | Sequence[int] | Any] = (),
    win_tile: int | None = None,
    *,
    tile_height: int = 64,
) -> bytes:
    """A PNG of one hand row: the concealed tiles in the given order, a gap, each exposed meld, and the
    winning tile set apart with a gold bar under it. The background is transparent (dark and light themes)."""
    groups: list[list[int | None]] = []
    concealed = [int(Tile(t)) for t in tiles]
    if concealed:
        groups.append(list(concealed))
    for meld in melds:
        groups.append(_meld_tiles(meld)[0])
    if win_tile is not None:
        groups.append([int(Tile(win_tile))])
    if not groups:
        raise ValueError("nothing to draw: no tiles, melds or winning tile")

    tile_w = tile_image(0, tile_height).width
    step, gap, pad, bar = max(1, tile_height // 32), tile_w // 2, 4, max(3, tile_height // 14)
    width = pad * 2 + sum(len(g) * tile_w + (len(g) - 1) * step for g in groups) + gap * (len(groups) - 1)
    height = pad * 2 + tile_height + (bar + 3 if win_tile is not None else 0)
    canvas = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    x = pad
    for gi, group in enumerate(groups):
        is_win = win_tile is not None and gi == len(groups) - 1
        for i, t in enumerate(group):
            canvas.alpha_composite(tile_image(t, tile_height), (x, pad))
            x += tile_w + (step if i < len(group) - 1 else 0)
        if is_win:
            ImageDraw.Draw(canvas).rounded_rectangle(
                [x - tile_w + 2, pad + tile_height + 3, x - 2, pad + tile_height + 3 + bar],
                radius=bar // 2,
                fill=GOLD,
            )
        x += gap
    return to_png(canvas)
