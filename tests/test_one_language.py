"""One language at a time: every message a player reads is in the chosen language, whole.

A Chinese line may hold what a player types or reads as code (tiles like 5p, commands like `help` or /kwx pay,
option and preset ids); an English line may hold tile names (五筒, 红中) and the game's name. Nothing else of
the other language.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from kwx.engine.calculator import InputError, calculate, context, parse_meld
from kwx.engine.rules import PRESETS, STANDARD, RuleSet
from kwx.engine.tiles import TILE_ERRORS, TileError, parse_tile, parse_tiles
from kwx.engine.wall import check_wall
from kwx.present.i18n import LANGUAGES, catalog, error_text, placeholders, tr

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
# Chinese an English line may hold: tile names (typed or shown), meld kinds as typed (碰:5p), the game's name,
# the language's own name.
TILE_NAMES = {f"{n}{s}" for n in "一二三四五六七八九123456789" for s in "筒条饼索"} | {
    "红中", "发财", "白板", "中", "发", "白", "筒", "条"}
EN_MAY_HOLD = sorted(TILE_NAMES | {"碰", "杠", "明杠", "暗杠", "卡五星", "简体中文"}, key=len, reverse=True)
# English a Chinese line may hold: what the player types, ids, and a few names.
TYPED = {"help", "quit", "hand", "back", "hu", "win", "peng", "pung", "gang", "kong", "ankong", "angang", "pass", "liangdao",
         "discard", "make", "run", "Tab", "Esc", "Enter", "Ctrl-Q"}
ZH_MAY_HOLD = TYPED | {f.name for f in dataclasses.fields(RuleSet)} | set(PRESETS) | {
    "kwx", "UTC", "CSV", "AI", "ID", "English", "python", "bot", "py", "Discord"}


def english_mixed(line: str) -> list[str]:
    out = []
    for run in CJK.findall(re.sub(r'"[^"]*"', "", line)):  # a quoted echo is the player's own input
        rest = run
        for word in EN_MAY_HOLD:
            rest = rest.replace(word, "")
        if rest:
            out.append(run)
    return out


def chinese_mixed(line: str) -> list[str]:
    s = re.sub(r"「[^」]*」", "", line)  # a quoted echo is the player's own input
    s = re.sub(r"`[^`]*`", "", s)  # code: ids, paths, commands
    s = re.sub(r"/kwx(-admin)?( [a-z_]+)*", "", s)  # slash commands
    s = re.sub(r"[\w.~-]*/[\w./~-]+|--[a-z-]+", "", s)  # paths and command-line flags
    s = re.sub(r"\b[a-z_]+:\S*", "", s)  # option:value as typed
    s = re.sub(r"\b\d+[pszm]\b", "", s)  # tiles in compact notation
    return [w for w in WORD.findall(s) if w not in ZH_MAY_HOLD]


MIXED = {"en": english_mixed, "zh-CN": chinese_mixed}
SAMPLE = {"en": {"player": "Ann", "name": "Ann", "host": "Ann"}, "zh-CN": {"player": "小明", "name": "小明", "host": "小明"}}


def mixed_lines(text: str, lang: str) -> list[str]:
    return [line for line in text.splitlines() if MIXED[lang](line)]


def test_the_checker_catches_a_mixed_line():
    assert english_mixed("亮倒 Declared 亮倒") and chinese_mixed("你 超时，自动打(discard) now")
    assert chinese_mixed("亮倒 Declared 亮倒") == ["Declared"]
    assert not english_mixed('"9z" is not a tile: write 五筒 or 5p') and not chinese_mixed("打出 5p 或 `help`")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalog_message_is_in_one_language(lang):
    cat = catalog()
    bad = {}
    for key in sorted(cat.keys(lang)):
        template = cat.template(key, lang) or ""
        values = {name: SAMPLE[lang].get(name, "7") for name in placeholders(template)}
        text = cat.tr(key, lang, **values)
        if mixed_lines(text, lang):
            bad[key] = text
    assert bad == {}


# Real bad input for every kind of tile error, with what the message must name.
TILE_INPUTS = [
    ("10p", "bad_number", '"10p"'), ("8z", "bad_dragon", '"8z"'), ("1m", "no_characters", '"1m"'),
    ("1x", "bad_suit", '"1x"'), ("123", "no_suit", '"123"'), ("hello", "unknown", '"hello"'),
    ("11111p", "too_many", '"1p"'),
]


@pytest.mark.parametrize(("text", "code", "named"), TILE_INPUTS)
def test_tile_errors_name_what_was_wrong_in_each_language(text, code, named):
    with pytest.raises(TileError) as err:
        parse_tiles(text)
    assert err.value.code == code and named in str(err.value)
    inner = named.strip('"')
    for lang in LANGUAGES:
        shown = error_text(err.value, lang)
        assert inner in shown and not mixed_lines(shown, lang), shown
    assert "0p" not in error_text(err.value, "en").replace("10p", "") or code != "bad_number"


def test_every_tile_error_code_has_words_in_both_languages():
    for code in TILE_ERRORS:
        for lang in LANGUAGES:
            assert catalog().template(f"tile.error.{code}", lang) is not None, (code, lang)
    for lang in LANGUAGES:
        with pytest.raises(TileError) as err:
            parse_tile("12p")
        assert not mixed_lines(error_text(err.value, lang), lang)
        with pytest.raises(TileError) as err:
            check_wall(parse_tiles("1p", check_copies=False))
        assert not mixed_lines(error_text(err.value, lang), lang)


def test_a_long_bad_input_is_echoed_as_a_short_excerpt():
    junk = "x" * 5000
    with pytest.raises(TileError) as err:
        parse_tile(junk)
    for lang in LANGUAGES:
        assert len(error_text(err.value, lang)) < 120
    with pytest.raises(InputError) as err:
        parse_meld("pung" + "1" * 5000)
    assert len(error_text(err.value, "zh-CN")) < 120


CALC_INPUTS = [
    ("1122334456677p", "9z", [], (False,) * 6, "tile"),
    ("1122334456677p", "5p", ["pung:0p"], (False,) * 6, "meld_tile"),
    ("1122334456677p", "5p", ["chow:5p"], (False,) * 6, "meld_kind"),
    ("112233445566p", "5p", [], (False,) * 6, "hand_size"),
    ("1122334456677p", "5p", [], (True, False, False, True, False, False), "self_draw_not_discard"),
    ("1122334456677p", "5p", [], (False, False, True, False, False, False), "kong_draw_needs_kong"),
]


@pytest.mark.parametrize(("hand", "win", "melds", "flags", "code"), CALC_INPUTS)
def test_calculator_errors_are_in_one_language(hand, win, melds, flags, code):
    with pytest.raises(InputError) as err:
        calculate(hand, win, melds, context(flags), STANDARD)
    assert err.value.code == code
    for lang in LANGUAGES:
        shown = error_text(err.value, lang)
        assert not mixed_lines(shown, lang), shown
    assert "9z" in error_text(err.value, "zh-CN") or code != "tile"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_timeout_notice_on_the_board_is_in_one_language(lang):
    board = pytest.importorskip("cogs.board")
    for action in ("discard", "pass", "piao"):
        line = board.notice_line("event.timeout", {"player": SAMPLE[lang]["player"], "action": action}, None, lang)
        assert not mixed_lines(line, lang), line


def test_a_refusal_at_the_terminal_is_in_one_language():
    from kwx.table.errors import TableError, refusal_text

    refusal = TableError("illegal", "you cannot peng now")  # the engine's English stays in the logs
    assert refusal_text(refusal, "en") == tr("error.illegal", "en") == "You can't do that now."
    zh = refusal_text(refusal, "zh-CN")
    assert zh == tr("error.illegal", "zh-CN") and not mixed_lines(zh, "zh-CN")


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_a_refusal_that_says_more_says_it_from_the_catalog(lang):
    from kwx.engine.tiles import Tile
    from kwx.table.errors import TableError, refusal_text

    tiles = TableError("bad_tile", "you cannot discard 9s now; you may discard 5p 6p", reason="choose",
                       tiles=(Tile.P5, Tile.P6))
    text = refusal_text(tiles, lang)
    assert not mixed_lines(text, lang)
    assert {"zh-CN": "5筒", "en": "5 Dots"}[lang] in text and {"zh-CN": "6筒", "en": "6 Dots"}[lang] in text
    assert "9s" not in text and "discard" not in text  # none of the service's English
    piao = refusal_text(TableError("illegal", "漂 is a whole number from 0 to 3", reason="piao_range", max=3), lang)
    assert "3" in piao and piao != tr("error.illegal", lang) and not mixed_lines(piao, lang)
    unknown = refusal_text(TableError("illegal", "?", reason="no_such_words"), lang)
    assert unknown == tr("error.illegal", lang)  # words the catalog lacks: the code's own
