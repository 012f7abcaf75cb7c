"""The string catalog: both languages complete and consistent, fallbacks that never crash a table."""

from __future__ import annotations

import json

import pytest

from kwx.engine.actions import VERBS
from kwx.engine.rules import PATTERN_FAN, PAYMENT_REASONS
from kwx.engine.tiles import ALL_TILES, Tile
from kwx.present import i18n
from kwx.present.i18n import Catalog, catalog, pattern_name, placeholders, resolve_lang, tile_name, tr


@pytest.fixture(scope="module")
def files() -> dict[str, dict[str, str]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(i18n.LOCALE_DIR.glob("*.json"))}


def test_both_languages_have_a_catalog(files) -> None:
    assert set(files) == set(i18n.LANGUAGES) == {"zh-CN", "en"}


def test_catalogs_have_the_same_keys(files) -> None:
    zh, en = set(files["zh-CN"]), set(files["en"])
    assert zh - en == set(), "missing in en.json"
    assert en - zh == set(), "missing in zh-CN.json"


def test_catalogs_use_the_same_placeholders_per_key(files) -> None:
    diff = {
        k: (placeholders(files["zh-CN"][k]), placeholders(files["en"][k]))
        for k in files["zh-CN"]
        if placeholders(files["zh-CN"][k]) != placeholders(files["en"].get(k, ""))
    }
    assert diff == {}


def test_no_empty_texts_and_no_placeholder_clashing_with_t_arguments(files) -> None:
    for lang, table in files.items():
        for key, text in table.items():
            assert text.strip(), f"{lang} {key} is empty"
            assert not placeholders(text) & {"key", "lang"}, f"{lang} {key}"


REQUIRED = [
    # actions and terms
    "action.discard",
    "action.my_hand",
    "term.zimo",
    "term.dianpao",
    "term.yipao_shuangxiang",
    "term.huangzhuang",
    "term.baohu",
    # lobby
    "lobby.join",
    "lobby.leave",
    "lobby.add_ai",
    "lobby.start",
    "lobby.stop",
    "lobby.spectate",
    "lobby.host",
    "lobby.seats",
    "lobby.waiting",
    # board
    "board.wall",
    "board.turn",
    "board.deadline",
    "board.discards",
    "board.melds",
    "board.waits",
    "board.liangdao_reveal",
    # errors a player may see
    "error.not_your_turn",
    "error.not_your_button",
    "error.stale.hand_over",
    "error.stale",
    "error.no_legal_tile",
    "error.dms_closed",
    # results
    "result.winner",
    "result.fan",
    "result.patterns",
    "result.payments",
    "result.balances",
]

# The stable codes of kwx.table.service.TableError (kwx/table/errors.py): front ends show tr(f"error.{code}").
TABLE_ERROR_CODES = [
    "no_table", "not_seated", "not_your_turn", "stale", "illegal", "bad_tile", "table_full", "not_host",
    "already_started", "not_started", "already_seated", "closed",
]  # fmt: skip


@pytest.mark.parametrize("key", REQUIRED)
def test_required_texts_exist_in_both_languages(files, key: str) -> None:
    assert key in files["zh-CN"] and key in files["en"]


def test_every_engine_verb_has_its_table_word() -> None:
    words = {verb: (tr(f"action.{verb}"), tr(f"action.{verb}", "en")) for verb in VERBS}
    assert words == {
        "hu": ("胡", "Win"),
        "gang": ("杠", "Kong"),
        "peng": ("碰", "Pung"),
        "pass": ("过", "Pass"),
        "liangdao": ("亮倒", "Lay down"),
        "discard": ("出牌", "Discard"),
    }


@pytest.mark.parametrize("code", TABLE_ERROR_CODES)
def test_every_table_error_code_has_a_text(files, code: str) -> None:
    assert f"error.{code}" in files["zh-CN"]


def test_meld_kinds_and_phases_of_the_views_have_texts(files) -> None:
    for key in ("meld.pung", "meld.kong", "meld.ankong", "phase.lobby", "phase.turn", "phase.claim",
                "phase.finished", "phase.closed"):  # fmt: skip
        assert key in files["zh-CN"]


def test_every_payment_reason_has_a_text(files) -> None:
    for reason in PAYMENT_REASONS:
        assert f"payment.{reason}" in files["zh-CN"]


def test_tr_formats_and_defaults_to_chinese() -> None:
    assert tr("board.wall", count=12) == "牌墙剩余 12 张"
    assert tr("board.wall", lang="en", count=12) == "12 tiles left in the wall"


def test_t_falls_back_to_chinese_then_to_the_key() -> None:
    cat = Catalog({"zh-CN": {"a": "甲 {x}", "b": "乙"}, "en": {"b": "B"}})
    assert cat.tr("a", "en", x=1) == "甲 1"  # no English yet: the Chinese text
    assert cat.tr("b", "en") == "B"
    assert cat.tr("nope", "en") == "nope"
    assert cat.tr("a", "en") == "甲 {x}"  # a forgotten placeholder stays visible, no KeyError


def test_catalog_needs_the_default_language() -> None:
    with pytest.raises(ValueError):
        Catalog({"en": {}})


@pytest.mark.parametrize(
    ("tag", "lang"),
    [
        ("zh-CN", "zh-CN"),
        ("zh-TW", "zh-CN"),
        ("en", "en"),
        ("en-US", "en"),
        ("en-GB", "en"),
        ("fr", "zh-CN"),
        (None, "zh-CN"),
    ],
)
def test_resolve_lang_maps_discord_locales(tag, lang) -> None:
    assert resolve_lang(tag) == lang


def test_resolve_lang_accepts_discord_locale_objects() -> None:
    discord = pytest.importorskip("discord")
    assert resolve_lang(discord.Locale.british_english) == "en"
    assert tr("action.pass", discord.Locale.american_english) == "Pass"


def test_every_pattern_has_a_name_and_a_description_in_both_languages() -> None:
    for pid in PATTERN_FAN:
        for lang in i18n.LANGUAGES:
            assert catalog().template(f"pattern.{pid}", lang) not in (None, "")
            assert catalog().template(f"pattern.{pid}.when", lang) not in (None, "")
        assert pattern_name(pid) != pattern_name(pid, "en-US")
    assert pattern_name("qidui") == "七对"
    assert pattern_name("no_such_pattern", "en") == "no_such_pattern"


def test_english_pattern_names_read_as_names() -> None:
    """Title Case, as English mahjong rules name their hands (Seven Pairs, Full Flush, Robbing the Kong), so that
    "Patterns: Seven Pairs ×4, Laid-Down Hand ×2" reads as a list of names, not of half sentences."""
    small = {"a", "the", "of", "on", "after"}
    for pid in PATTERN_FAN:
        name = pattern_name(pid, "en")
        words = name.split()
        assert words[0][0].isupper(), name
        assert all(w[0].isupper() or w[0].isdigit() or w in small for w in words), name
        assert "(" not in name and "," not in name, name  # what a pattern needs is its description's job


def test_tile_names_are_distinct_in_each_language() -> None:
    for lang in i18n.LANGUAGES:
        assert len({tile_name(tile, lang) for tile in ALL_TILES}) == 21
    assert (tile_name(Tile.P5), tile_name(Tile.P5, "en")) == ("5筒", "5 Dots")
    assert (tile_name(Tile.RED), tile_name(Tile.WHITE, "en")) == ("中", "White Dragon")


def test_join_names() -> None:
    assert i18n.join_names(["甲", "乙"]) == "甲和乙"
    assert i18n.join_names(["a", "b", "c"], "en") == "a, b, c"
