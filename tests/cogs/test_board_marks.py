"""What the channel shows of a hand at a glance: melds set apart, a concealed kong face down, claimed and newest
discards marked in each pond, claims being weighed during the pause, and a 亮倒 that lives on the board alone
(no post of its own pushes the board up the channel)."""

from __future__ import annotations

import re

from cogs.board import board_embeds, hand_text
from cogs.emoji import BACK_KEY, CLAIMED_KEY, TileFormatter
from cogs.fake_discord.kit import bot_kit, seat_table
from cogs.result_post import result_embeds
from kwx.engine.tiles import Tile, parse_tiles
from kwx.table.deal import Deal
from kwx.table.views import MeldView, PublicView, ResultView, RevealedHand, SeatView, WinnerView
from tests.support.clock import FakeClock
from tests.support.hands import build_wall
from tests.support.panels import BACK as WALL_BACK
from tests.support.panels import DRAWS, HANDS, PAUSE, PLAYERS, move

EMOJIS = TileFormatter({int(t): f"<:kwx_{t.compact}:{100 + int(t)}>" for t in Tile}
                       | {CLAIMED_KEY + int(t): f"<:kwx_{t.compact}_dim:{200 + int(t)}>" for t in Tile}
                       | {BACK_KEY: "<:kwx_back:99>"})
BACK = "<:kwx_back:99>"


def e(compact: str) -> str:
    return "".join(EMOJIS.tile(t) for t in parse_tiles(compact))


def _pond(compact: str, claimed: set[int] = frozenset()) -> tuple[tuple[Tile, bool], ...]:
    return tuple((t, i in claimed) for i, t in enumerate(parse_tiles(compact)))


def _board(phase: str = "turn") -> PublicView:
    seats = (
        SeatView(0, PLAYERS[0], 0, 7, melds=(MeldView("pung", Tile.S3, 1), MeldView("ankong", None)),
                 discards=tuple(parse_tiles("19p2s6p")), pond=_pond("19p7s2s6p", {2}), is_dealer=True),
        SeatView(1, PLAYERS[1], 0, 4, melds=(MeldView("kong", Tile.P8, 2), MeldView("ankong", Tile.RED)),
                 pond=_pond("9s1p"), liangdao=True, revealed=tuple(parse_tiles("2345p")), waits=(Tile.P1,)),
        SeatView(2, PLAYERS[2], 0, 13),
    )
    return PublicView(7, 3, 40, phase, seats, wall_remaining=31, turn_seat=0,
                      claim_tile=Tile.P6 if phase == "claim" else None, claim_kind="discard" if phase == "claim" else None)


def _fields(view: PublicView, fmt: TileFormatter = EMOJIS, lang: str = "zh-CN") -> dict[str, str]:
    (embed,) = board_embeds(view, lang, fmt, [])
    return {re.sub(r"\s+\S+ [+−]?\d+$", "", f.name): f.value for f in embed.fields}  # less "累计 +3"


def test_melds_stand_apart_and_a_concealed_kong_lies_face_down() -> None:
    fields = _fields(_board())
    alice, bob = fields["▶ alice [庄]"], fields["bob [亮倒]"]
    # another seat's 暗杠: four backs, apart from the pung before it
    assert f"副露 {e('333s')} ｜ {BACK * 4}" in alice
    # a 亮倒 seat's 暗杠 shows its tile between two backs (■中中■), apart from the exposed kong
    assert f"副露 {e('8888p')} ｜ {BACK}{e('77z')}{BACK}" in bob
    # the concealed tiles stand apart from the melds wherever a whole hand is written (result, panel)
    text = hand_text(parse_tiles("123p"), (MeldView("pung", Tile.S3, 1),), TileFormatter(), "zh-CN")
    assert text == "1筒 2筒 3筒 ｜ 3条 3条 3条"


def test_a_pond_keeps_a_claimed_discard_faded_in_its_place_and_marks_the_newest() -> None:
    fields = _fields(_board())
    assert f"弃牌 {e('19p')}<:kwx_7s_dim:{200 + int(Tile.S7)}>{e('2s')} ➤{e('6p')}" in fields["▶ alice [庄]"]
    assert f"弃牌 {e('9s')} ➤{e('1p')}" in fields["bob [亮倒]"]
    assert "弃牌 无" in fields["AI 1"]
    text = _fields(_board(), TileFormatter())["▶ alice [庄]"]  # no emojis: struck through
    assert "弃牌 1筒 9筒 ~~7条~~ 2条 ➤6筒" in text


def test_during_the_claim_pause_the_board_says_claims_are_weighed_and_points_at_nobody() -> None:
    for lang, waiting in (("zh-CN", "⏳ 等待碰、杠、胡…"), ("en", "⏳ Waiting on claims…")):
        (embed,) = board_embeds(_board("claim"), lang, EMOJIS, [])
        assert embed.description.startswith(waiting)
        assert "<t:" not in embed.description  # no claim deadline: that would tell who may claim
        assert not any(f.name.startswith("▶") for f in embed.fields)
        (turn,) = board_embeds(_board("turn"), lang, EMOJIS, [])
        assert waiting not in turn.description and turn.fields[0].name.startswith("▶ alice")


def test_the_result_post_sets_melds_apart_and_shows_a_concealed_kong_face_down() -> None:
    board = _board()
    hands = (RevealedHand(0, tuple(parse_tiles("1234p")), (MeldView("ankong", Tile.WHITE),)),
             RevealedHand(1, tuple(parse_tiles("12345p")), (MeldView("kong", Tile.P8, 2),)),
             RevealedHand(2, tuple(parse_tiles("1122334455667s")), ()))
    win = WinnerView(1, PLAYERS[1], 4, (("liangdao", 2),), Tile.P1, False, 0)
    result = ResultView(7, 3, "win", (win,), (), (0, 0, 0), (0, 0, 0), hands)
    (embed,) = result_embeds(result, board, "zh-CN", EMOJIS)
    fields = {f.name: f.value for f in embed.fields}
    assert fields["alice · 本局 0"] == f"{e('1234p')} ｜ {BACK}{e('55z')}{BACK}"
    assert f"胡牌手牌：{e('2345p')} ｜ {e('8888p')}" in embed.description


async def test_a_liangdao_shows_on_the_board_alone(tmp_path) -> None:
    """Seed s4: AI 1 declares 亮倒 in hand 1 and wins it. The channel holds the board, the result and the next
    board, nothing more (no reveal post pushes the board up); the board shows the revealed hand and its waits."""
    async with bot_kit(tmp_path, seed="s4") as kit:
        await seat_table(kit, [kit.alice], ais=2)
        await kit.slash(kit.alice, "kwx start")
        await kit.play_hand([kit.alice])
        titles = [(m.embeds[0].title or "") for m in kit.table_messages()]
        assert titles == ["第 1 局 · 庄家 alice", "第 1 局结果", "第 2 局 · 庄家 AI 1"]
        board = "\n".join(p for em in kit.board(1).embeds for f in em.fields for p in (f.name, f.value))
        assert "AI 1 [亮倒]" in board and re.search(r"^亮倒 <:kwx_", board, re.M) and re.search(r"^听 <:", board, re.M)


async def test_through_discord_a_claim_pause_is_said_and_the_claimed_tile_stays_faded(tmp_path, monkeypatch) -> None:
    """bob discards 5p and alice pungs it: while the board holds the discard it says claims are weighed and
    points at nobody; then bob's pond keeps the 5p faded, alice's pung stands apart from her other meld."""
    async with bot_kit(tmp_path, claim_pause=PAUSE, clock=FakeClock(),
                          deal=Deal.scripted(build_wall(*HANDS, draws=DRAWS, back=WALL_BACK))) as kit:
        alice, bob, carol = kit.members
        await seat_table(kit, kit.members)
        await kit.slash(alice, "kwx start")
        await move(kit, alice, "discard", "7z")
        await move(kit, bob, "discard", "5p")
        held = kit.board(1).embeds[0]
        assert held.description.startswith("⏳ 等待碰、杠、胡… · bob 打出 <:kwx_5p_")
        assert not any(f.name.startswith("▶") for f in held.fields)
        await move(kit, alice, "peng")
        fields = {f.name.split(" ")[0]: f.value for f in kit.board(1).embeds[0].fields}
        faded = fmt_of(kit).claimed(Tile.P5)
        assert faded.startswith("<:kwx_5p_dim_") and f"弃牌 ➤{faded}" in fields["bob"]
        assert f"弃牌 ➤{fmt_of(kit).tile(Tile.RED)}" in fields["▶"]  # alice's turn; her 中 is her newest
        assert "副露 " + fmt_of(kit).tiles([Tile.P5] * 3) in fields["▶"]


def fmt_of(kit) -> TileFormatter:
    return kit.rt.frontend.tiles


async def test_through_discord_a_concealed_kong_is_four_backs_on_the_board_and_face_down_ends_in_its_dm(
        tmp_path, monkeypatch) -> None:
    """alice is dealt four 7s and declares 暗杠: the board shows four backs (no 7s anywhere in the channel),
    while her own panel shows ■77■."""
    wall = build_wall("7777s123456p12s56z", "22335566p889s66z", "1199p1122334s77z")
    async with bot_kit(tmp_path, deal=Deal.scripted(wall)) as kit:
        alice, bob, carol = kit.members
        await seat_table(kit, kit.members)
        await kit.slash(alice, "kwx start")
        await kit.press(alice, kit.live_panel(alice), "gang", "7s")
        fmt = fmt_of(kit)
        seven = fmt.tile(Tile.S7)
        alice_field = next(f.value for f in kit.board(1).embeds[0].fields if "alice" in f.name)
        assert alice_field.startswith("副露 " + fmt.back(4) + "\n")
        assert all(seven not in str(m.payload.get("embeds")) for m in kit.table_messages())
        panel = kit.dm_messages(alice)[-1].embeds[0].description
        assert "副露 " + fmt.back() + seven * 2 + fmt.back() in panel
