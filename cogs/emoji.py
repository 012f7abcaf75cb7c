"""Tile emojis as Discord *application* emojis: owned by the bot, usable in every server and DM.

`ensure_tile_emojis(client)` uploads whichever of the 43 tile emojis are missing (21 faces, the back, and the 21
faded faces a pond shows for claimed discards; from data/tiles, drawn on the fly when a file is missing) and
returns tile -> "<:kwx_5p_1a2b3c4d:123…>". Call it once in setup_hook, after
login (it needs the application id). `TileFormatter` writes tiles with those emojis, or as text (5筒, 中) when
an emoji is unavailable, so a failed upload only makes the board plainer.

An emoji is named after its tile and a digest of its picture (kwx_5p_1a2b3c4d), because Discord cannot replace
an emoji's image: when data/tiles changes, the new pictures have new names and the next start uploads them.
Emojis of earlier pictures are left in place, so that messages already posted with them keep their tiles.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Mapping

import discord

from cogs.operations import DISCORD_ERRORS, Rest
from cogs.ratelimit import Priority
from kwx.engine.tiles import ALL_TILES, SHORT_CHINESE, Tile
from kwx.present.art import tile_png_bytes

logger = logging.getLogger(__name__)

EMOJI_PREFIX = "kwx_"
BACK_KEY = -1  # the key of the face-down tile in the emoji map
CLAIMED_KEY = 100  # CLAIMED_KEY + tile: the key of that tile's faded face (a claimed discard in a pond)
BACK_TEXT = "🀫"
_CUSTOM_EMOJI = re.compile(r"<(?P<animated>a?):(?P<name>\w+):(?P<id>\d+)>")


def emoji_name(tile: int, image: bytes) -> str:
    """kwx_5p_1a2b3c4d, kwx_7z_… (中), kwx_back_… for BACK_KEY, kwx_5p_dim_… for CLAIMED_KEY + 5p: the tile
    and a digest of its picture."""
    if tile == BACK_KEY:
        kind = "back"
    elif tile >= CLAIMED_KEY:
        kind = f"{Tile(tile - CLAIMED_KEY).compact}_dim"
    else:
        kind = Tile(tile).compact
    return f"{EMOJI_PREFIX}{kind}_{hashlib.sha256(image).hexdigest()[:8]}"


def emoji_image(key: int) -> bytes:
    """The picture of an emoji key: a face, the back, or a faded face."""
    if key == BACK_KEY:
        return tile_png_bytes(None)
    if key >= CLAIMED_KEY:
        return tile_png_bytes(key - CLAIMED_KEY, claimed=True)
    return tile_png_bytes(key)


EMOJI_KEYS = (*[int(t) for t in ALL_TILES], BACK_KEY, *[CLAIMED_KEY + int(t) for t in ALL_TILES])


async def ensure_tile_emojis(client: discord.Client, rest: Rest) -> dict[int, str]:
    """Upload the missing tile emojis; return {tile (BACK_KEY, CLAIMED_KEY + tile): '<:kwx_5p_…:id>'} for those
    that exist.

    Discord errors are logged, never raised: tiles without an emoji are missing from the result. Each call
    takes its token from the bot-wide limit: a first start uploads 43 emojis in a burst, just before resumed
    tables send their boards and prompts, and together they would pass Discord's 50 requests a second."""
    try:
        await rest.wait(Priority.BOARD)
        existing = {e.name: e for e in await client.fetch_application_emojis()}
    except DISCORD_ERRORS as e:
        logger.warning("could not list application emojis, tiles will be text: %r", e)
        return {}
    result: dict[int, str] = {}
    for key in EMOJI_KEYS:
        image = emoji_image(key)
        name = emoji_name(key, image)
        emoji = existing.get(name)
        if emoji is None:
            try:
                await rest.wait(Priority.BOARD)
                emoji = await client.create_application_emoji(name=name, image=image)
                logger.info("uploaded application emoji %s", name)
            except DISCORD_ERRORS as e:
                logger.warning("could not upload emoji %s: %r", name, e)
                continue
        result[key] = str(emoji)
    return result


class TileFormatter:
    """Writes tiles for Discord messages: emojis where known, else short Chinese text."""

    def __init__(
        self, emojis: Mapping[int, str] | None = None, names: Mapping[Tile, str] = SHORT_CHINESE
    ) -> None:
        self.emojis = dict(emojis or {})
        self.names = names

    @property
    def has_emojis(self) -> bool:
        return bool(self.emojis)

    def text(self, tile: int) -> str:
        """Always text (button labels, logs): 5筒, 中."""
        return self.names[Tile(tile)]

    def tile(self, tile: int) -> str:
        return self.emojis.get(int(tile)) or self.text(tile)

    def claimed(self, tile: int) -> str:
        """A discard another seat took, as its pond keeps it: faded, or struck through as text (~~5筒~~)."""
        return self.emojis.get(CLAIMED_KEY + int(tile)) or f"~~{self.text(tile)}~~"

    def tiles(self, tiles: Iterable[int], sep: str | None = None) -> str:
        """A row of tiles. Emojis sit side by side; text tiles are spaced (unless `sep` says otherwise)."""
        tiles = [int(t) for t in tiles]
        parts = [self.tile(t) for t in tiles]
        if sep is None:
            sep = "" if all(t in self.emojis for t in tiles) else " "
        return sep.join(parts)

    def back(self, count: int = 1) -> str:
        """Face-down tiles (an opponent's hand)."""
        return (self.emojis.get(BACK_KEY) or BACK_TEXT) * count

    def row(self, tiles: Iterable[int | None]) -> str:
        """Tiles face up and face down (None) in one row, spaced like `tiles` (a concealed kong: ■55■)."""
        tiles = list(tiles)
        parts = [self.back() if t is None else self.tile(t) for t in tiles]
        emojis = all((BACK_KEY if t is None else int(t)) in self.emojis for t in tiles)
        return ("" if emojis else " ").join(parts)

    def partial_emoji(self, tile: int) -> discord.PartialEmoji | None:
        """For `discord.ui.Button(emoji=...)`; None when the tile has no emoji (use a text label then)."""
        found = _CUSTOM_EMOJI.fullmatch(self.emojis.get(int(tile), ""))
        if found is None:
            return None
        return discord.PartialEmoji(name=found["name"], id=int(found["id"]), animated=bool(found["animated"]))
