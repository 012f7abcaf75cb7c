"""Fan (docs/rules.md §7): every worked example, each pattern held and not held, the exclusions, the cap, the presets
and the options that change a win's fan."""

from __future__ import annotations

import pytest

from kwx.engine.analysis import Meld
from kwx.engine.fan import FanResult, WinContext, score, score_counts
from kwx.engine.rules import STANDARD, RuleSet
from kwx.engine.tiles import parse_tile, parse_tiles, to_counts

CAPPED = RuleSet.preset("xiangyang-capped")
UNLIMITED = RuleSet.preset("xiangyang-unlimited")
ONLINE = RuleSet.preset("online-3d")
XIAOGAN = RuleSet.preset("xiaogan")


def fan(hand: str, win: str, *melds: str, rules: RuleSet = STANDARD, **ctx: bool) -> FanResult | None:
    """Score `hand` (concealed tiles before the win) winning on `win`; melds as "pung:7z"."""
    meld_list = [Meld(kind, parse_tile(tile)) for kind, tile in (m.split(":") for m in melds)]
    tiles = parse_tiles(hand)
    assert len(tiles) == 13 - 3 * len(meld_list), "test hand has the wrong number of tiles"
    return score(tiles, parse_tile(win), meld_list, WinContext(**ctx), rules)


def fan_of(hand: str, win: str, *melds: str, rules: RuleSet = STANDARD, **ctx: bool) -> tuple[int, tuple[str, ...]]:
    result = fan(hand, win, *melds, rules=rules, **ctx)
    assert result is not None, f"{hand} + {win} should win"
    assert len(result.multipliers) == len(result.patterns)
    return result.fan, result.patterns


# -- worked examples of §7 ---------------------------------------------------------------------------------------
def test_qingyise_times_qidui_is_16() -> None:
    assert fan_of("1133557799p224p", "4p") == (16, ("qidui", "qingyise"))


def test_dasanyuan_pengpenghu_shouzhuayi_is_64() -> None:
    assert fan_of("1s", "1s", "pung:7z", "pung:6z", "pung:5z", "pung:3p") == (64, ("dasanyuan", "pengpenghu", "shouzhuayi"))


def test_liangdao_then_gangshangkaihua_on_kawuxing_is_8() -> None:
    assert fan_of("4556p123s789s", "5p", "ankong:7z", self_draw=True, kong_draw=True, liangdao=True) \
        == (8, ("gangshangkaihua", "kawuxing", "liangdao"))


def test_seven_pairs_reading_beats_the_kawuxing_reading() -> None:
    result = fan("1122334456677p", "5p")
    assert result is not None
    assert (result.fan, result.patterns, result.reading.kind) == (16, ("qidui", "qingyise"), "qidui")


def test_longqidui_and_the_kawuxing_ansigui_reading_are_both_32() -> None:
    assert fan_of("1122334455566p", "5p", self_draw=True) == (32, ("longqidui", "qingyise"))
    # With 龙七对 made cheap, the sets reading shows its own 32: 清一色 × 卡五星 × 暗四归一.
    cheap_long = RuleSet.preset("standard", fan_values={"longqidui": 2})
    assert fan_of("1122334455566p", "5p", rules=cheap_long, self_draw=True) == (32, ("ansigui", "kawuxing", "qingyise"))


@pytest.mark.parametrize("suit", ["p", "s"])
@pytest.mark.parametrize(("shape", "expected"), [
    ("4556", (2, ("kawuxing",))),
    ("4688", (2, ("kawuxing",))),
    ("2245667", (2, ("kawuxing",))),
    ("2245556", (8, ("ansigui", "kawuxing"))),  # the 5 is also the fourth copy of three concealed
])
def test_the_four_kawuxing_shapes_in_both_suits(shape: str, suit: str, expected: tuple[int, tuple[str, ...]]) -> None:
    other = "s" if suit == "p" else "p"
    filler = f"123789{other}555z" if len(shape) == 4 else f"123{other}555z"
    assert fan_of(f"{shape}{suit}{filler}", f"5{suit}") == expected


# -- each pattern, held and not held ----------------------------------------------------------------------------
@pytest.mark.parametrize(("hand", "win", "melds", "ctx", "expected"), [
    # pinghu: nothing else
    ("123p456p789s12s55z", "3s", (), {}, (1, ("pinghu",))),
    # pengpenghu
    ("111p333p222s444s5s", "5s", (), {}, (2, ("pengpenghu",))),
    ("111p333p234s444s5s", "5s", (), {}, (1, ("pinghu",))),
    ("5s", "5s", ("pung:1p", "pung:3p", "kong:2s", "ankong:4s"), {}, (8, ("pengpenghu", "shouzhuayi"))),
    # qingyise: melds count, dragons break it
    ("123p456p789p11p23p", "4p", (), {}, (4, ("qingyise",))),
    ("123p789p11p23p", "4p", ("pung:5p",), {}, (4, ("qingyise",))),
    ("123p789p11p23p", "4p", ("pung:5s",), {}, (1, ("pinghu",))),
    ("123p456p789p55z23p", "4p", (), {}, (1, ("pinghu",))),
    # the qidui family by number of quads
    ("11p22p33s44s55z66z7z", "7z", (), {}, (4, ("qidui",))),
    ("1111p22p33s44s55z6z", "6z", (), {}, (8, ("longqidui",))),
    ("1111p2222p33s44s5z", "5z", (), {}, (16, ("shuanglong_qidui",))),
    ("1111p2222p3333s5z", "5z", (), {}, (32, ("sanlong_qidui",))),
    # dasanyuan / xiaosanyuan
    ("777z666z555z123p5s", "5s", (), {}, (8, ("dasanyuan",))),
    ("555z5s", "5s", ("pung:7z", "kong:6z", "ankong:9s"), {}, (16, ("dasanyuan", "pengpenghu"))),
    ("5z123p", "5z", ("pung:7z", "kong:6z", "ankong:9s"), {}, (4, ("xiaosanyuan",))),
    ("777z666z5z123p456s", "5z", (), {}, (4, ("xiaosanyuan",))),
    ("777z666z555p123p5s", "5s", (), {}, (1, ("pinghu",))),  # two dragon triplets, a suited pair
    # kawuxing: only the 5 between its 4 and 6 of the same suit
    ("34p111s789s555z11p", "5p", (), {}, (1, ("pinghu",))),  # 345
    ("5p123s789s555z456s", "5p", (), {}, (1, ("pinghu",))),  # 456s does not serve a 5p
    ("56p123s789s555z11p", "4p", (), {}, (1, ("pinghu",))),  # the 4 of 456
    ("46s123p789p555z11p", "5s", (), {}, (2, ("kawuxing",))),
    # mingsigui: the fourth copy of an exposed pung
    ("34p456s789s55z", "5p", ("pung:5p",), {}, (2, ("mingsigui",))),
    ("34p456s789s55z", "2p", ("pung:5p",), {}, (1, ("pinghu",))),
    # ansigui: the fourth copy of three concealed, on a discard too; not after a kong of it
    ("34555p123s789s55z", "5p", (), {}, (4, ("ansigui",))),
    ("34555p123s789s55z", "5p", (), {"self_draw": True}, (4, ("ansigui",))),
    ("3455p123s789s555z", "5p", (), {}, (1, ("pinghu",))),
    # shouzhuayi needs four melds
    ("1s", "1s", ("pung:2p", "pung:3p", "pung:4p", "pung:5p"), {}, (8, ("pengpenghu", "shouzhuayi"))),
    ("123s1s", "1s", ("pung:2p", "pung:3p", "pung:4p"), {}, (1, ("pinghu",))),
    # gangshangkaihua: a self-draw on the replacement
    ("123p456p12s99s", "3s", ("kong:5z",), {"self_draw": True, "kong_draw": True}, (2, ("gangshangkaihua",))),
    ("123p456p12s99s", "3s", ("kong:5z",), {"self_draw": True}, (1, ("pinghu",))),
    # gangshangpao, qiangganghu, liangdao
    ("123p456p789s12s55z", "3s", (), {"after_kong": True}, (2, ("gangshangpao",))),
    ("123p456p789s12s55z", "3s", (), {"rob_kong": True}, (2, ("qiangganghu",))),
    ("123p456p789s12s55z", "3s", (), {"liangdao": True}, (2, ("liangdao",))),
    ("123p456p789s12s55z", "3s", (), {"self_draw": True}, (1, ("pinghu",))),
    # haidilao (default on) and haidipao (default off)
    ("123p456p789s12s55z", "3s", (), {"self_draw": True, "last_tile": True}, (2, ("haidilao",))),
    ("123p456p789s12s55z", "3s", (), {"last_tile": True}, (1, ("pinghu",))),
    # a robbed kong and a win after a kong are wins on another player's tile, and a kong draw is a self-draw
    ("123p456p12s99s", "3s", ("kong:5z",), {"kong_draw": True, "last_tile": True},
     (4, ("gangshangkaihua", "haidilao"))),
])
def test_pattern(hand: str, win: str, melds: tuple[str, ...], ctx: dict[str, bool],
                 expected: tuple[int, tuple[str, ...]]) -> None:
    assert fan_of(hand, win, *melds, **ctx) == expected


def test_sanyuan_qidui_only_in_xiangyang_unlimited() -> None:
    assert fan_of("77z66z55z11p22p33s4s", "4s", rules=UNLIMITED) == (16, ("sanyuan_qidui",))
    assert fan_of("77z66z55z11p22p33s4s", "4s") == (4, ("qidui",))


# -- exclusions ------------------------------------------------------------------------------------------------
def test_qidui_family_never_adds_kawuxing_or_pengpenghu() -> None:
    result = fan("44566p112233s55z", "5p")  # also reads 456 456p 123 123s 55z with 卡五星
    assert result is not None and (result.fan, result.patterns) == (4, ("qidui",))
    assert fan_of("1111p2222p33s44s5z", "5z") == (16, ("shuanglong_qidui",))


def test_long_qidui_family_drops_ansigui_and_mingsigui() -> None:
    result = fan("1122334455566p", "5p", self_draw=True)
    assert result is not None and result.reading.kind == "qidui"
    assert "ansigui" not in result.patterns and result.fan == 32  # not 8 × 4 × 4 = 128
    online = fan("11p22p33s44s555z66z", "5z", rules=ONLINE)  # 频道 full would count the quad as 暗四归 too
    assert online is not None and online.patterns == ("longqidui",)


def test_shouzhuayi_and_pengpenghu_both_count() -> None:
    fan_, patterns = fan_of("9s", "9s", "pung:1p", "kong:3p", "ankong:7z", "pung:2s")
    assert patterns == ("pengpenghu", "shouzhuayi") and fan_ == 8


# -- cap and presets ------------------------------------------------------------------------------------------------
def test_xiangyang_capped_caps_at_8() -> None:
    result = fan("1133557799p224p", "4p", rules=CAPPED)
    assert result is not None
    assert (result.fan, result.raw_fan, result.capped) == (8, 16, True)
    assert fan_of("1s", "1s", "pung:7z", "pung:6z", "pung:5z", "pung:3p", rules=CAPPED)[0] == 8


def test_xiangyang_capped_lets_shuanglong_qidui_reach_16() -> None:
    assert fan_of("1111p2222p33s44s5z", "5z", rules=CAPPED) == (16, ("shuanglong_qidui",))
    result = fan("1111p2222p3344p5p", "5p", rules=CAPPED)  # 清一色 × 双龙七对 = 64, capped at its exception
    assert result is not None
    assert (result.fan, result.raw_fan, result.patterns) == (16, 64, ("qingyise", "shuanglong_qidui"))


def test_uncapped_rules_never_cap() -> None:
    result = fan("1111p2222p3344p5p", "5p")
    assert result is not None and (result.fan, result.capped) == (64, False)


def test_xiangyang_unlimited_qidui_values() -> None:
    assert fan_of("1111p22p33s44s55z6z", "6z", rules=UNLIMITED) == (8, ("longqidui",))
    assert fan_of("1111p2222p33s44s5z", "5z", rules=UNLIMITED) == (32, ("shuanglong_qidui",))
    assert fan_of("1111p2222p3333s5z", "5z", rules=UNLIMITED) == (128, ("sanlong_qidui",))
    assert fan_of("1111p2222p3344p5p", "5p", rules=UNLIMITED) == (128, ("qingyise", "shuanglong_qidui"))


def test_shiyan_changes_payments_not_fan() -> None:
    shiyan = RuleSet.preset("shiyan")  # 上楼 and 漂 act on base and payments
    for hand, win, melds in (("1133557799p224p", "4p", ()), ("1s", "1s", ("pung:7z", "pung:6z", "pung:5z", "pung:3p")),
                             ("4556p123789s555z", "5p", ())):
        assert fan_of(hand, win, *melds, rules=shiyan) == fan_of(hand, win, *melds)


def test_online_3d_pindao_full_counts_every_kept_quad() -> None:
    # four 1p kept in hand (not the winning tile): 暗四归 under 频道 full only
    assert fan_of("1111p23p567s789s5z", "5z") == (1, ("pinghu",))
    assert fan_of("1111p23p567s789s5z", "5z", rules=ONLINE) == (4, ("ansigui",))
    # the fourth 5p kept beside an exposed pung of 5p: 明四归
    assert fan_of("567p123s789s5z", "5z", "pung:5p") == (1, ("pinghu",))
    assert fan_of("567p123s789s5z", "5z", "pung:5p", rules=ONLINE) == (2, ("mingsigui",))
    assert ONLINE.min_fan == 2  # a bare 屁胡 wins nowhere there; the calculator checks it (tests/cli)


def test_xiaogan_shukan_adds_concealed_triplets_after_the_cap() -> None:
    result = fan("111p222s789s55z34p", "5p", rules=XIAOGAN, self_draw=True)
    assert result is not None and (result.fan, result.patterns, result.shukan_bonus) == (3, ("pinghu",), 2)
    # on a discard the claimed 1p makes 111p an exposed triplet: only 222s counts
    on_discard = fan("11p222s789s55z345p", "1p", rules=XIAOGAN)
    assert on_discard is not None and on_discard.shukan_bonus == 1
    # a claimed 1p that can be read as the 123p's keeps 111p concealed
    in_sequence = fan("11123p222s789s55z", "1p", rules=XIAOGAN)
    assert in_sequence is not None and in_sequence.shukan_bonus == 2
    # 暗杠 counts, an exposed pung does not
    with_melds = fan("23p789s55z", "4p", "ankong:2s", "pung:3s", rules=XIAOGAN, self_draw=True)
    assert with_melds is not None and with_melds.shukan_bonus == 1
    # after the cap: 清一色 × 碰碰胡 = 8 capped to 4, then + 4 triplets
    capped = fan("111222333p444p5p", "5p", rules=RuleSet.preset("xiaogan", fan_cap=4), self_draw=True)
    assert capped is not None and (capped.fan, capped.raw_fan, capped.shukan_bonus) == (8, 8, 4)
    assert fan_of("111p222s789s55z34p", "5p", self_draw=True) == (1, ("pinghu",))  # no 数坎 elsewhere


def test_shukan_picks_the_reading_with_the_larger_total() -> None:
    # 444 555 666p reads as three triplets (+3) or as 456 ×3 with 卡五星 (×2): the triplets pay more.
    result = fan("44455666p789s55z", "5p", rules=XIAOGAN, self_draw=True)
    assert result is not None and (result.fan, result.patterns, result.shukan_bonus) == (4, ("pinghu",), 3)
    assert fan_of("44455666p789s55z", "5p", self_draw=True) == (2, ("kawuxing",))


# -- options --------------------------------------------------------------------------------------------------------
def test_shouzhuayi_fan_2() -> None:
    rules = RuleSet.preset("standard", shouzhuayi_fan=2)
    assert fan_of("1s", "1s", "pung:7z", "pung:6z", "pung:5z", "pung:3p", rules=rules)[0] == 32
    assert fan("1s", "1s", "pung:2p", "pung:3p", "pung:4p", "pung:5p", rules=rules).multipliers == (2, 2)


def test_haidilao_off_and_haidipao_on() -> None:
    off = RuleSet.preset("standard", haidilao=False)
    assert fan_of("123p456p789s12s55z", "3s", rules=off, self_draw=True, last_tile=True) == (1, ("pinghu",))
    on = RuleSet.preset("standard", haidipao=True)
    assert fan_of("123p456p789s12s55z", "3s", rules=on, last_tile=True) == (2, ("haidipao",))
    assert fan_of("123p456p789s12s55z", "3s", rules=on, self_draw=True, last_tile=True) == (2, ("haidilao",))


def test_kawuxing_single_wait() -> None:
    single = RuleSet.preset("standard", kawuxing_single_wait=True)
    assert fan_of("4556p123789s555z", "5p", rules=single) == (2, ("kawuxing",))  # waits on 5p alone
    assert fan_of("2245667p123s555z", "5p", rules=single) == (1, ("pinghu",))  # also waits on 8p
    assert fan_of("2245667p123s555z", "5p") == (2, ("kawuxing",))


# -- the scorer's contract ----------------------------------------------------------------------------------------
def test_no_win_gives_none() -> None:
    assert fan("1122334456677p", "3p") is None
    counts = to_counts(parse_tiles("123p55z"))
    assert score_counts(counts, parse_tile("5z")) is None  # complete shape, but 8 tiles without melds


def test_score_and_score_counts_agree() -> None:
    tiles = parse_tiles("1122334456677p")
    assert score(tiles, parse_tile("5p")) == score_counts(to_counts(tiles), parse_tile("5p"))

