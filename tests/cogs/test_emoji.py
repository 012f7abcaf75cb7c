"""Tile emojis: uploaded once as application emojis, formatted as <:kwx_5p:id>, text when unavailable."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import discord
import pytest
from PIL import Image

from cogs.emoji import BACK_KEY, BACK_TEXT, CLAIMED_KEY, TileFormatter, emoji_name, ensure_tile_emojis
from cogs.fake_discord import FakeDiscord, discord_error
from cogs.operations import Rest
from cogs.ratelimit import Budget
from kwx.engine.tiles import ALL_TILES, Tile, parse_tiles
from kwx.present import art
from kwx.present.art import tile_png_bytes


@pytest.fixture
async def fake() -> FakeDiscord:
    f = await FakeDiscord.create()
    yield f
    await f.close()


def test_emoji_names_are_the_tile_in_compact_notation_and_a_digest_of_its_picture() -> None:
    names = [emoji_name(t, tile_png_bytes(t)) for t in (Tile.P5, Tile.S1, Tile.RED, Tile.GREEN, Tile.WHITE)]
    assert [n.rsplit("_", 1)[0] for n in names] == ["kwx_5p", "kwx_1s", "kwx_7z", "kwx_6z", "kwx_5z"]
    assert emoji_name(BACK_KEY, tile_png_bytes(None)).startswith("kwx_back_")
    assert all(re.fullmatch(r"kwx_\w+_[0-9a-f]{8}", n) and len(n) <= 32 for n in names)  # Discord: 2-32 \w
    assert emoji_name(Tile.P5, b"other picture") != names[0]


async def test_first_run_uploads_every_tile_and_the_back_with_the_tile_pictures(fake: FakeDiscord) -> None:
    emojis = await ensure_tile_emojis(fake.client, Rest())
    assert set(emojis) == {int(t) for t in ALL_TILES} | {BACK_KEY} | {CLAIMED_KEY + int(t) for t in ALL_TILES}
    by_name = {e["name"]: int(e["id"]) for e in fake.emojis.values()}
    p5, red = emoji_name(Tile.P5, tile_png_bytes(Tile.P5)), emoji_name(Tile.RED, tile_png_bytes(Tile.RED))
    assert emojis[Tile.P5] == f"<:{p5}:{by_name[p5]}>"
    assert emojis[Tile.RED] == f"<:{red}:{by_name[red]}>"
    image = fake.emoji_images[by_name[p5]]
    assert image == tile_png_bytes(Tile.P5)
    assert Image.open(io.BytesIO(image)).size == (128, 128)


async def test_second_run_uploads_nothing_and_returns_the_same_map(fake: FakeDiscord) -> None:
    first = await ensure_tile_emojis(fake.client, Rest())
    count = len(fake.emojis)
    assert await ensure_tile_emojis(fake.client, Rest()) == first
    assert len(fake.emojis) == count == 43


async def test_only_missing_emojis_are_uploaded(fake: FakeDiscord) -> None:
    await ensure_tile_emojis(fake.client, Rest())
    gone = next(eid for eid, e in fake.emojis.items() if e["name"].startswith("kwx_9s_"))
    kept = {eid for eid in fake.emojis if eid != gone}
    del fake.emojis[gone]
    emojis = await ensure_tile_emojis(fake.client, Rest())
    assert kept < set(fake.emojis) and len(fake.emojis) == 43
    assert str(gone) not in emojis[Tile.S9]


async def test_failures_leave_tiles_as_text(fake: FakeDiscord) -> None:
    fake.inject("GET", "/applications/{application_id}/emojis", discord_error(503, 0, "oops"))
    assert await ensure_tile_emojis(fake.client, Rest()) == {}
    fake.inject("POST", "/applications/{application_id}/emojis", discord_error(400, 30008, "Maximum emojis"))
    emojis = await ensure_tile_emojis(fake.client, Rest())
    assert Tile.P1 not in emojis and len(emojis) == 42  # the first upload failed, the rest went through
    fmt = TileFormatter(emojis)
    assert fmt.tile(Tile.P1) == "1筒" and fmt.tile(Tile.P2).startswith("<:kwx_2p_")


async def test_changed_art_is_uploaded_under_a_new_name_and_the_old_emoji_stays(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await ensure_tile_emojis(fake.client, Rest())
    redrawn = tmp_path / "tiles"
    shutil.copytree(art.TILE_DIR, redrawn)
    (redrawn / "5p.png").write_bytes(art.to_png(art.draw_tile(Tile.P6)))  # as if the 5筒 art had changed
    monkeypatch.setattr(art, "TILE_DIR", redrawn)
    second = await ensure_tile_emojis(fake.client, Rest())
    assert len(fake.emojis) == 44  # one upload: the changed picture; the old 5筒 stays for old messages
    assert second[Tile.P5] != first[Tile.P5]
    assert {k: v for k, v in second.items() if k != Tile.P5} == {k: v for k, v in first.items() if k != Tile.P5}
    new_id = int(second[Tile.P5].rsplit(":", 1)[1].rstrip(">"))
    assert fake.emoji_images[new_id] == (redrawn / "5p.png").read_bytes()


async def test_a_claimed_discard_has_a_faded_emoji_of_its_own_and_is_struck_through_as_text(
        fake: FakeDiscord) -> None:
    emojis = await ensure_tile_emojis(fake.client, Rest())
    fmt = TileFormatter(emojis)
    faded = fmt.claimed(Tile.S8)
    assert faded.startswith("<:kwx_8s_dim_") and faded != fmt.tile(Tile.S8)
    eid = int(faded.rsplit(":", 1)[1].rstrip(">"))
    face = Image.open(io.BytesIO(tile_png_bytes(Tile.S8))).convert("RGBA")
    dim = Image.open(io.BytesIO(fake.emoji_images[eid])).convert("RGBA")
    assert dim.size == face.size == (128, 128)
    r, g, b, a = dim.getpixel((64, 100))
    fr, fg, fb, _ = face.getpixel((64, 100))
    assert r + g + b < fr + fg + fb  # greyer and darker than the live face: taken
    assert dim.getchannel("A").getextrema()[1] > 200  # nearly opaque, so it reads on either theme
    px = dim.load()
    assert any(px[x, y][1] > max(px[x, y][0], px[x, y][2]) + 20 for x in range(128) for y in range(128))  # green
    assert TileFormatter().claimed(Tile.S8) == "~~8条~~"


def test_formatter_text_fallback() -> None:
    fmt = TileFormatter()
    assert not fmt.has_emojis
    assert fmt.tiles(parse_tiles("5p7s7z6z5z")) == "5筒 7条 中 发 白"
    assert fmt.back(3) == BACK_TEXT * 3
    assert fmt.partial_emoji(Tile.P5) is None


def test_formatter_with_emojis_puts_them_side_by_side_and_mixes_in_text() -> None:
    fmt = TileFormatter({int(Tile.P5): "<:kwx_5p_0a1b2c3d:111>", BACK_KEY: "<:kwx_back_4e5f6a7b:999>"})
    assert fmt.tiles([Tile.P5, Tile.P5]) == "<:kwx_5p_0a1b2c3d:111><:kwx_5p_0a1b2c3d:111>"
    assert fmt.tiles([Tile.P5, Tile.RED]) == "<:kwx_5p_0a1b2c3d:111> 中"
    assert fmt.text(Tile.P5) == "5筒"
    assert fmt.back(2) == "<:kwx_back_4e5f6a7b:999>" * 2
    emoji = fmt.partial_emoji(Tile.P5)
    assert isinstance(emoji, discord.PartialEmoji) and (emoji.name, emoji.id) == ("kwx_5p_0a1b2c3d", 111)


async def test_the_uploads_take_their_tokens_from_the_bots_global_limit(fake: FakeDiscord) -> None:
    from cogs.ratelimit import GlobalRateLimiter

    limiter = GlobalRateLimiter.for_discord()
    await ensure_tile_emojis(fake.client, Rest(Budget(limiter)))
    assert limiter.acquired == 1 + 43  # the listing and each upload: counted with what the tables send
