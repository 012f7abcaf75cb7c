"""The terminal table: you (`local:you`) against two AI players, in colour, on the same service and ledger as Discord.

    python bot.py            # no DISCORD_TOKEN configured, or --local

The local table lives in the store (guild `local`, channel `terminal`) and stays open across runs: the next run
resumes it, an unfinished hand first. `ConsoleFrontEnd` implements the FrontEnd port (kwx/table/ports.py): it
prints one compact log line per public event and the full board when it is your turn. `TerminalTable` reads
commands (tile names in either notation, action names in Chinese or English), checks them against your
private view so mistakes are explained, and passes them to the service. Input is read by a daemon thread, so
the event loop never blocks and quitting never waits for a keypress.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from kwx.engine.tiles import SHORT_CHINESE, Tile, TileError, parse_tile
from kwx.present.i18n import catalog, pattern_name, resolve_lang, t
from kwx.store import Store, TableRow
from kwx.table.errors import TableError
from kwx.table.service import TableService
from kwx.table.views import ActionChoice, PlayerRef, PrivateView, PublicView, ResultView

LOCAL_GUILD = "local"
TERMINAL_CHANNEL = "terminal"
YOU_ID = "local:you"
TURN_SECONDS = 60.0  # generous: a newcomer reads the board before discarding
CLAIM_SECONDS = 20.0
AI_DELAY = 0.8  # seconds an AI "thinks", so the log can be followed
BETWEEN_HANDS = 6.0  # time to read the result block before the next deal
WARN_SECONDS = 10.0  # one reminder this long before your time runs out

# -- console strings (the shared catalog, kwx/present/locale, holds the ones the Discord bot also uses) -----------------
_TEXT: dict[str, tuple[str, str]] = {
    "banner": ("卡五星 · 终端牌桌", "Ka Wu Xing · terminal table"),
    "db": ("数据库 {path}", "database {path}"),
    "new_table": ("新开一桌（第 {table} 桌）：你对两个电脑玩家。输入 help 查看命令。",
                  "New table {table}: you against two AI players. Type help for the commands."),
    "resumed": ("继续第 {table} 桌，第 {hand} 局。输入 help 查看命令。",
                "Resuming table {table}, hand {hand}. Type help for the commands."),
    "between_hands": ("下一局即将开始……（输入 quit 可以先离开，牌桌会保留）",
                      "The next hand starts shortly… (type quit to leave; the table stays open)"),
    "you": ("你", "Player"),  # English event lines read "Player discards 5p"
    "turn_of": ("轮到 {player}", "{player} to play"),
    "claim_on": ("{player} 打出 {tile}", "{player} discarded {tile}"),  # not whether others may claim it
    "prompt_turn": ("你的回合 · 剩 {secs} 秒", "Your turn · {secs}s left"),
    "prompt_claim": ("{tile}：你可以 {actions} · 剩 {secs} 秒", "{tile}: you may {actions} · {secs}s left"),
    "prompt_idle": ("等待中", "waiting"),
    "time_warning": ("还剩 {secs} 秒！时间到会自动出牌（连续两次超时进入托管）。",
                     "{secs}s left! When time runs out a move is made for you (twice in a row: autoplay)."),
    "hand": ("手牌", "Hand"),
    "drew": ("摸", "drew"),
    "waits": ("听牌：{tiles}", "Waiting on {tiles}"),
    "ready_discards": ("打这些牌可听牌：{list}", "Discards that leave you ready: {list}"),
    "ready_discard": ("打 {tile} 听 {waits}", "{tile} → {waits}"),
    "choices": ("可以：{list}", "You may: {list}"),
    "discard_any": ("打一张牌（输入牌名，如 5p 或 五筒）", "discard a tile (type it: 5p or 五筒)"),
    "seat": ("座位", "Seat"),
    "tiles": ("张数", "Tiles"),
    "score": ("本桌", "Table"),
    "autoplay": ("托管", "autoplay"),
    "no_tile": ("你没有 {tile}。", "You have no {tile}."),
    "discard_needs_tile": ("打哪张？例如 5p 或 五筒。", "Discard which tile? e.g. 5p or 五筒."),
    "cant_discard_claim": ("现在不是出牌，而是对 {tile} 表态：{actions}。", "Not a discard now: answer the {tile} ({actions})."),
    "cant_discard_locked": ("你已亮倒，只能打出刚摸到的 {tile}。",
                            "Your hand is laid down: you can only discard the tile you drew, {tile}."),
    "liangdao_needs_tile": ("亮倒要同时打出一张牌，例如：亮倒 {tile}。", "亮倒 needs the tile to discard, e.g. liangdao {tile}."),
    "liangdao_bad_tile": ("打 {tile} 后不能亮倒，可以亮倒打：{tiles}。",
                          "Discarding {tile} does not let you declare 亮倒; declare with one of: {tiles}."),
    "liangdao_none": ("现在不能亮倒：打哪张牌都不能听牌。", "You can't declare 亮倒 now: no discard leaves you ready."),
    "gang_which": ("杠哪张？{options}", "Kong which tile? {options}"),
    "gang_not_that": ("不能杠 {tile}。可以：{options}", "You can't kong {tile}. You may: {options}"),
    "nothing_to_pass": ("现在没有可以过的：轮到你出牌。", "Nothing to pass: it's your turn, discard a tile."),
    "takes_no_tile": ("{verb} 后面不用写牌。", "{verb} takes no tile."),
    "unknown": ("看不懂「{text}」。输入 help 查看命令。", "I don't understand \"{text}\". Type help for the commands."),
    "quit": ("牌桌保留着：再次运行 python bot.py 就能接着打。", "The table stays open: run python bot.py again to continue."),
    "ledger_you": ("你的总账（本地所有牌局）：{amount}", "Your ledger balance (all local tables): {amount}"),
    "hand_net": ("本局", "Hand"),
    "table_total": ("本桌累计", "Table total"),
    "win_tile": ("胡 {tile}", "on {tile}"),
    "result_hands": ("各家手牌", "Hands"),
    "kong_hidden": ("暗杠", "concealed kong"),
    "rob_window": ("{player} 补杠 {tile}：可以抢杠胡", "{player} adds {tile} to a kong: it may be robbed"),
    "maima": ("买码 {tile}：每笔加 {value}", "Bonus tile {tile}: +{value} per payment"),
    "forbid_feeding": ("{player} 无牌可打：本局结束", "{player} has no safe tile: the hand ends"),
    "eof": ("输入结束。", "End of input."),
    "help": (
        "命令：\n"
        "  5p / 五筒 / 5饼 / 红中     打出这张牌（也可以写 打 5p）\n"
        "  胡 / hu / win              胡牌（自摸或点炮）\n"
        "  碰 / peng / pung           碰\n"
        "  杠 / gang / kong [牌]      杠（暗杠、补杠要写牌，如 杠 5p）\n"
        "  过 / pass                  不要这张牌\n"
        "  亮倒 / liangdao <牌>       亮倒并打出这张牌\n"
        "  hand / 手牌                再看一遍牌桌\n"
        "  quit / 退出                离开（牌桌保留，下次继续）\n"
        "牌的写法：1p–9p 筒，1s–9s 条，5z 白，6z 发，7z 中；或 一筒…九条、红中、发财、白板。",
        "Commands:\n"
        "  5p / 五筒 / 5饼 / 红中     discard that tile (or: discard 5p)\n"
        "  hu / win / 胡              win (self-draw or on a discard)\n"
        "  peng / pung / 碰           pung\n"
        "  gang / kong [tile] / 杠    kong (a concealed or added kong names its tile: kong 5p)\n"
        "  pass / 过                  let the tile go\n"
        "  liangdao <tile> / 亮倒     declare 亮倒 and discard that tile\n"
        "  hand / 手牌                show the board again\n"
        "  quit / 退出                leave (the table stays open; the next run resumes)\n"
        "Tiles: 1p–9p dots (筒), 1s–9s bamboo (条), 5z 白, 6z 发, 7z 中; or 一筒…九条, 红中, 发财, 白板."),
}

# Both names of every verb, for choices and help: 胡(hu).
VERB_LABELS: dict[str, tuple[str, str]] = {
    "discard": ("打", "discard"), "liangdao": ("亮倒", "liangdao"), "gang": ("杠", "gang"),
    "peng": ("碰", "peng"), "hu": ("胡", "hu"), "pass": ("过", "pass"),
}


def say(key: str, lang: str, **fmt: Any) -> str:
    """A console string in `lang` (zh-CN or en)."""
    zh, en = _TEXT[key]
    template = en if resolve_lang(lang) == "en" else zh
    return template.format(**fmt) if fmt else template


def catalog_text(key: str, lang: str, **fmt: Any) -> str | None:
    """The shared catalog's text for `key`, or None when the catalog has no such key."""
    if catalog().template(key, lang) is None:
        return None
    return t(key, lang, **fmt)


# -- tiles in colour ------------------------------------------------------------------------------------------
DOT_DIGIT, DOT_SUIT = "bold red", "bold blue"  # 筒: red and blue circles
BAMBOO = "bold green"
DRAGON_STYLE = {Tile.RED: "bold red", Tile.GREEN: "bold green", Tile.WHITE: "bold grey62"}


def tile_label(tile: Tile, lang: str) -> str:
    """The plain label: 5筒 / 中 in Chinese, 5p / 7z in English (the notation English players type)."""
    return tile.compact if resolve_lang(lang) == "en" else SHORT_CHINESE[tile]


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


def _tile_or_none(text: str | None) -> Tile | None:
    if not text:
        return None
    try:
        return parse_tile(text)
    except TileError:
        return None


# -- commands -------------------------------------------------------------------------------------------------
class CommandError(Exception):
    """Input that cannot be acted on; `text` explains why, in the console's language."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass(frozen=True)
class Command:
    """A parsed line: `verb` is a service verb (discard, liangdao, gang, peng, hu, pass) or help | hand | quit."""

    verb: str
    tile: Tile | None = None


_VERB_WORDS: dict[str, tuple[str, ...]] = {
    "hu": ("胡", "和", "自摸", "hu", "win", "zimo", "ron", "hule"),
    "gang": ("杠", "槓", "gang", "kong"),
    "peng": ("碰", "peng", "pung", "pong"),
    "pass": ("过", "過", "pass", "guo", "skip", "no"),
    "liangdao": ("亮倒", "亮牌", "liangdao", "liang", "declare"),
    "discard": ("打", "出", "discard", "play", "d"),
    "help": ("help", "帮助", "?", "？", "h", "帮忙", "命令"),
    "hand": ("hand", "手牌", "board", "show", "看", "牌桌"),
    "quit": ("quit", "exit", "q", "退出", "离开", "bye"),
}
_WORD_VERB = {w.lower(): verb for verb, words in _VERB_WORDS.items() for w in words}
# Chinese verbs may be written straight onto the tile: 杠5p, 亮倒五筒, 打红中. Longest first (亮倒 before 亮).
_CN_PREFIXES = sorted((w for w in _WORD_VERB if not w.isascii()), key=len, reverse=True)
_TAKES_TILE = frozenset({"discard", "liangdao", "gang"})


def _looks_like_tile(text: str) -> bool:
    return any(ch.isdigit() or ch in "一二三四五六七八九筒饼餅条條索中发發白" for ch in text)


def parse_command(line: str, lang: str = "zh-CN") -> Command | None:
    """Turn one typed line into a Command (None for an empty line). Raises CommandError with an explanation."""
    text = line.strip()
    if not text:
        return None
    head, _, rest = text.partition(" ")
    verb = _WORD_VERB.get(head.lower())
    if verb is None:
        for prefix in _CN_PREFIXES:
            if text.startswith(prefix) and len(text) > len(prefix):
                candidate = text[len(prefix):].strip()
                if _WORD_VERB[prefix] in _TAKES_TILE and _tile_or_none(candidate) is not None:
                    verb, rest = _WORD_VERB[prefix], candidate
                    break
    if verb is None:  # a bare tile is a discard
        try:
            return Command("discard", parse_tile(text))
        except TileError as exc:
            if _looks_like_tile(text):
                raise CommandError(str(exc)) from None
            raise CommandError(say("unknown", lang, text=text)) from None
    rest = rest.strip()
    if verb in ("help", "hand", "quit"):
        return Command(verb)
    if not rest:
        if verb == "discard":
            raise CommandError(say("discard_needs_tile", lang))
        return Command(verb)
    if verb not in _TAKES_TILE:
        raise CommandError(say("takes_no_tile", lang, verb=head))
    try:
        return Command(verb, parse_tile(rest))
    except TileError as exc:
        raise CommandError(str(exc)) from None


def verb_label(verb: str, lang: str) -> str:
    zh, en = VERB_LABELS[verb]
    return f"{en} {zh}" if resolve_lang(lang) == "en" else f"{zh}({en})"


def describe_choices(view: PrivateView, lang: str) -> str:
    """Markup listing what you may do: 胡(hu) · 杠(gang) 5筒 · 亮倒(liangdao) 3筒/7条 · discard a tile."""
    parts: list[str] = []
    by_verb: dict[str, list[Tile | None]] = {}
    for c in view.choices:
        by_verb.setdefault(c.verb, []).append(c.tile)
    for verb in ("hu", "gang", "peng", "liangdao", "pass"):
        if verb not in by_verb:
            continue
        tiles = [x for x in by_verb[verb] if x is not None]
        label = verb_label(verb, lang)
        parts.append(f"{label} {tiles_markup(tiles, lang, '/')}" if tiles else label)
    if "discard" in by_verb:
        parts.append(say("discard_any", lang))
    return " · ".join(parts)


def resolve_command(cmd: Command, view: PrivateView | None, lang: str) -> ActionChoice:
    """The legal choice a game command stands for, or CommandError saying why it is not possible now."""
    if view is None or not view.choices:
        raise CommandError(t("error.not_your_turn", lang))
    choices = view.choices
    verbs = {c.verb for c in choices}
    held = list(view.concealed) + ([view.drawn] if view.drawn is not None else [])
    if cmd.verb == "discard":
        assert cmd.tile is not None
        if "discard" not in verbs:
            if "pass" in verbs and view.claim_tile is not None:
                raise CommandError(say("cant_discard_claim", lang, tile=tile_markup(view.claim_tile, lang),
                                       actions=describe_choices(view, lang)))
            if view.liangdao and view.drawn is not None:
                raise CommandError(say("cant_discard_locked", lang, tile=tile_markup(view.drawn, lang)))
            raise CommandError(t("error.no_legal_tile", lang))
        if cmd.tile not in held:
            raise CommandError(say("no_tile", lang, tile=tile_markup(cmd.tile, lang)))
        if ActionChoice("discard", cmd.tile) not in choices:
            if view.liangdao and view.drawn is not None:
                raise CommandError(say("cant_discard_locked", lang, tile=tile_markup(view.drawn, lang)))
            raise CommandError(t("error.no_legal_tile", lang))
        return ActionChoice("discard", cmd.tile)
    if cmd.verb == "liangdao":
        options = [c.tile for c in choices if c.verb == "liangdao" and c.tile is not None]
        if not options:
            raise CommandError(say("liangdao_none", lang) if "discard" in verbs else t("error.not_your_turn", lang))
        if cmd.tile is None:
            raise CommandError(say("liangdao_needs_tile", lang, tile=tile_markup(options[0], lang)))
        if cmd.tile not in held:
            raise CommandError(say("no_tile", lang, tile=tile_markup(cmd.tile, lang)))
        if cmd.tile not in options:
            raise CommandError(say("liangdao_bad_tile", lang, tile=tile_markup(cmd.tile, lang),
                                   tiles=tiles_markup(options, lang, "、" if resolve_lang(lang) != "en" else ", ")))
        return ActionChoice("liangdao", cmd.tile)
    if cmd.verb == "gang":
        gangs = [c for c in choices if c.verb == "gang"]
        if not gangs:
            raise CommandError(t("error.action_not_allowed", lang, action=verb_label("gang", lang)))
        options = " / ".join(f"{verb_label('gang', lang)} {tile_markup(g.tile or view.claim_tile, lang)}"
                             for g in gangs if (g.tile or view.claim_tile) is not None)
        if cmd.tile is None:
            if len(gangs) > 1:
                raise CommandError(say("gang_which", lang, options=options))
            return gangs[0]
        for g in gangs:  # 直杠 on a discard has no tile in the choice: the tile under claim is meant
            if g.tile == cmd.tile or (g.tile is None and view.claim_tile == cmd.tile):
                return g
        raise CommandError(say("gang_not_that", lang, tile=tile_markup(cmd.tile, lang), options=options))
    if cmd.verb in ("hu", "peng", "pass"):
        choice = next((c for c in choices if c.verb == cmd.verb), None)
        if choice is None:
            if cmd.verb == "pass" and "discard" in verbs:
                raise CommandError(say("nothing_to_pass", lang))
            raise CommandError(t("error.action_not_allowed", lang, action=verb_label(cmd.verb, lang)))
        return choice
    raise CommandError(say("unknown", lang, text=cmd.verb))


# -- the front end ----------------------------------------------------------------------------------------------
class BalanceSource(Protocol):
    async def balance(self, guild: str, player: str) -> Any: ...


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def _money_style(n: int) -> str:
    return "green" if n > 0 else "red" if n < 0 else "dim"


class ConsoleFrontEnd:
    """The FrontEnd port for one terminal player. Prints log lines for public events, the full board when the
    player must act, and a result block after every hand. `table_id` (when set) filters other tables out."""

    def __init__(self, console: Console | None = None, *, player_id: str = YOU_ID, lang: str = "zh-CN",
                 clock: Callable[[], float] = time.time, ledger: BalanceSource | None = None,
                 guild: str = LOCAL_GUILD, table_id: int | None = None) -> None:
        self.console = console or Console(highlight=False)
        self.player_id = player_id
        self.lang = resolve_lang(lang)
        self.clock = clock
        self.ledger = ledger
        self.guild = guild
        self.table_id = table_id
        self.board: PublicView | None = None
        self.hand: PrivateView | None = None
        self._last_logged: tuple[int, int, int] | None = None  # (table, hand, step) of the last events logged
        self.results_shown: set[tuple[int, int]] = set()  # (table, hand) whose result block was printed
        self.prompted: tuple[int, int] | None = None  # (hand, step) of the last decision the board was shown for
        self._prompt_task: asyncio.Task[None] | None = None
        self._warning: asyncio.TimerHandle | None = None
        self.warn_seconds = WARN_SECONDS

    # -- helpers ------------------------------------------------------------------------------------------
    def _mine(self, table_id: int) -> bool:
        return self.table_id is None or table_id == self.table_id

    def name(self, seat: int | None, view: PublicView | None = None) -> str:
        """A seat's display name (markup-safe); you are 你 / you."""
        view = view or self.board
        if seat is None or view is None or not 0 <= seat < len(view.seats):
            return "?"
        player = view.seats[seat].player
        return self.player_name(player)

    def player_name(self, player: PlayerRef) -> str:
        if player.player_id == self.player_id:
            return f"[bold yellow]{say('you', self.lang)}[/]"
        return f"[cyan]{escape(player.name)}[/]"

    def print(self, what: Any = "", **kw: Any) -> None:
        """Print console markup (or any rich renderable)."""
        self.console.print(what, highlight=False, **kw)

    def seconds_left(self, deadline: float | None) -> int | None:
        if deadline is None:
            return None
        return max(0, int(deadline - self.clock() + 0.5))

    # -- FrontEnd port ---------------------------------------------------------------------------------------
    async def board_changed(self, view: PublicView) -> None:
        if not self._mine(view.table_id):
            return
        previous = self.board
        self.board = view
        key = (view.table_id, view.hand_no, view.step)
        if view.last_events and key != self._last_logged:  # the same view twice is logged once
            self._last_logged = key
            for event in view.last_events:
                line = self.event_line(event, view)
                if line:
                    self.print(line)
        new_hand = previous is not None and previous.hand_no != view.hand_no and view.phase in ("turn", "claim")
        if new_hand and not any(e.get("kind") == "deal" for e in view.last_events):
            self.print(self.header(view))

    async def hand_changed(self, player: PlayerRef, view: PrivateView, *, prompt: bool) -> None:
        if player.player_id != self.player_id or not self._mine(view.table_id):
            return
        self.hand = view
        if not view.choices:
            self._clear_prompt()
            return
        if prompt:
            # Let the board update of the same action print first, then show the board and the prompt once.
            if self._prompt_task is not None and not self._prompt_task.done():
                self._prompt_task.cancel()
            self._prompt_task = asyncio.ensure_future(self._prompt_soon(view))

    async def liangdao_revealed(self, view: PublicView, seat: int) -> None:
        if not self._mine(view.table_id):
            return
        self.board = view
        s = view.seats[seat]
        hand = tiles_markup(s.revealed, self.lang)
        waits = tiles_markup(s.waits, self.lang)
        line = t("board.liangdao_reveal", self.lang, player=self.name(seat, view), hand=hand)
        self.print(f"[bold magenta]★[/] {line}  [bold]{say('waits', self.lang, tiles=waits)}[/]")

    async def hand_finished(self, result: ResultView, view: PublicView) -> None:
        if not self._mine(result.table_id):
            return
        self.board = view
        key = (result.table_id, result.hand_no)
        if key in self.results_shown:
            return
        self.results_shown.add(key)
        self._clear_prompt()
        ledger: dict[str, int] = {}
        if self.ledger is not None:
            with contextlib.suppress(Exception):  # the ledger line is a courtesy; never break the table over it
                row = await self.ledger.balance(self.guild, self.player_id)
                ledger[self.player_id] = int(row.balance)
        for line in self.result_lines(result, view, ledger):
            self.print(line)

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        if not self._mine(table_id) or key.startswith("lobby.") and key != "lobby.stopped":
            return  # seating the AI players is the terminal's own doing: no need to announce it
        values = {k: (self.player_name(v) if isinstance(v, PlayerRef) else v) for k, v in fmt.items()}
        if isinstance(fmt.get("player"), str):
            values["player"] = self.player_name(PlayerRef(str(fmt.get("player_id", "")), str(fmt["player"])))
        if "seat" in values and "player" not in values and isinstance(values["seat"], int):
            values["player"] = self.name(values["seat"])
        if "action" in values and isinstance(values["action"], str) and values["action"] in VERB_LABELS:
            values["action"] = verb_label(values["action"], self.lang)
        self.print(f"[dim]· {t(key, self.lang, **values)}[/]")

    # -- the prompt ------------------------------------------------------------------------------------------
    async def _prompt_soon(self, view: PrivateView) -> None:
        for _ in range(3):
            await asyncio.sleep(0)
        if _same_decision(self.hand, view):
            self.show_prompt(full=True)

    async def settle(self) -> None:
        """Wait for a scheduled prompt to be printed (tests, and before reading the next line)."""
        if self._prompt_task is not None and not self._prompt_task.done():
            with contextlib.suppress(asyncio.CancelledError):
                await self._prompt_task

    def _clear_prompt(self) -> None:
        if self._warning is not None:
            self._warning.cancel()
            self._warning = None

    @property
    def must_act(self) -> bool:
        return self.hand is not None and bool(self.hand.choices)

    def show_prompt(self, *, full: bool) -> None:
        """Print the board (on your turn) or your hand and the claim, then the prompt with the time left."""
        view = self.hand
        if view is None or not view.choices:
            return
        key = (view.hand_no, view.step)
        claim = view.claim_tile is not None and not any(c.verb == "discard" for c in view.choices)
        if full and self.prompted != key:
            if claim:
                for line in self.hand_lines(view):
                    self.print(line)
            else:
                self.print_board()
        self.prompted = key
        self.print(self.prompt_text(), end="")
        self._arm_warning(view)

    def prompt_text(self) -> str:
        view = self.hand
        if view is None or not view.choices:
            return f"[dim]{say('prompt_idle', self.lang)}[/] > "
        secs = self.seconds_left(view.deadline)
        secs_text = "∞" if secs is None else str(secs)
        style = "bold red" if secs is not None and secs <= self.warn_seconds else "bold yellow"
        if view.claim_tile is not None and not any(c.verb == "discard" for c in view.choices):
            text = say("prompt_claim", self.lang, tile=tile_markup(view.claim_tile, self.lang),
                       actions=describe_choices(view, self.lang), secs=secs_text)
        else:
            text = say("prompt_turn", self.lang, secs=secs_text)
        return f"[{style}]▶[/] {text} > "

    def _arm_warning(self, view: PrivateView) -> None:
        self._clear_prompt()
        left = None if view.deadline is None else view.deadline - self.clock()
        if left is None or left <= self.warn_seconds:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return

        def warn() -> None:
            if _same_decision(self.hand, view) and view.choices:
                left = self.seconds_left(view.deadline) or 0
                self.print()
                self.print(f"[bold red]⏰ {say('time_warning', self.lang, secs=left)}[/]")
                self.print(self.prompt_text(), end="")

        self._warning = loop.call_later(left - self.warn_seconds, warn)

    # -- rendering -------------------------------------------------------------------------------------------
    def header(self, view: PublicView) -> str:
        dealer = next((s.seat for s in view.seats if s.is_dealer), None)
        title = t("board.title", self.lang, hand=view.hand_no, dealer=self.name(dealer, view))
        base = f"{t('term.base', self.lang)} {view.base}"
        return f"\n[bold]━━ {title} · {base} ━━[/]"

    def event_line(self, event: Mapping[str, Any], view: PublicView) -> str | None:
        """One compact log line for a public event, or None for events the board or the result block show."""
        kind = event.get("kind")
        lang = self.lang
        seat = event.get("seat")
        tile = _tile_or_none(event.get("tile"))
        tm = tile_markup(tile, lang) if tile is not None else ""
        who = self.name(seat, view) if isinstance(seat, int) else "?"
        if kind == "deal":
            return self.header(view)
        if kind == "discard":  # a 亮倒 discard too: the reveal line follows it
            arrow = "[dim]→[/]" if not event.get("auto") else "[dim]⇢[/]"
            return f"{arrow} {t('event.discard', lang, player=who, tile=tm)}"
        if kind == "peng":
            return f"[bold]◆[/] {t('event.pung', lang, player=who, tile=tm)}"
        if kind == "gang":
            sort = event.get("gang")
            if sort == "angang":
                return f"[bold]◆[/] {t('event.angang', lang, player=who)}"
            key = "event.bugang" if sort == "bugang" else "event.zhigang"
            return f"[bold]◆[/] {t(key, lang, player=who, tile=tm)}"
        if kind == "rob_window":
            return f"[bold]◆[/] {say('rob_window', lang, player=who, tile=tm)}"
        if kind == "hu":
            return self._hu_line(event, view, tm)
        if kind == "huangzhuang":
            return f"[bold]■[/] {t('event.huangzhuang', lang)}"
        if kind == "forbid_feeding":
            return f"[bold]■[/] {say('forbid_feeding', lang, player=who)}"
        if kind == "maima":
            return f"[dim]· {say('maima', lang, tile=tm, value=event.get('value', 0))}[/]"
        return None  # draw, pass, liangdao (see liangdao_revealed), reveal, settlement, service bookkeeping

    def _hu_line(self, event: Mapping[str, Any], view: PublicView, tm: str) -> str:
        lang = self.lang
        winners = [w.get("seat") for w in event.get("winners", [])]
        names = [self.name(s, view) for s in winners]
        discarder = self.name(event.get("from"), view) if event.get("from") is not None else "?"
        if event.get("self_draw"):
            text = t("event.zimo", lang, player=names[0] if names else "?", tile=tm)
        elif event.get("rob_kong"):
            text = t("event.qianggang", lang, winner=t("common.list_sep", lang).join(names), player=discarder, tile=tm)
        elif len(names) > 1:
            text = t("event.yipao_shuangxiang", lang, winners=t("common.and", lang, a=names[0], b=names[1]),
                     discarder=discarder, tile=tm)
        else:
            text = t("event.dianpao", lang, winner=names[0] if names else "?", discarder=discarder, tile=tm)
        if any(w.get("baohu") for w in event.get("winners", [])):
            text += "  " + t("event.baohu", lang, discarder=discarder)
        return f"[bold yellow]★ {text}[/]"

    def meld_text(self, melds: Sequence[Any]) -> Text:
        parts: list[Text] = []
        for m in melds:
            if m.tile is None:
                parts.append(Text(f"[{say('kong_hidden', self.lang)}]", style="dim"))
                continue
            n = 3 if m.kind == "pung" else 4
            label = Text("[")
            label.append_text(tiles_text([m.tile] * n, self.lang, ""))
            label.append("]" + ("*" if m.kind == "ankong" else ""))
            parts.append(label)
        return Text(" ").join(parts)

    def seat_table(self, view: PublicView) -> Table:
        lang = self.lang
        table = Table(box=None, pad_edge=False, show_header=True, header_style="dim", expand=False)
        table.add_column(say("seat", lang), no_wrap=True)
        table.add_column(say("tiles", lang), justify="right")
        table.add_column(say("score", lang), justify="right")
        table.add_column(f"{t('board.melds', lang)} / {t('board.discards', lang)}", overflow="fold")
        for s in view.seats:
            marks = []
            if s.is_dealer:
                marks.append(f"[bold magenta]{t('board.dealer_mark', lang)}[/]")
            if s.autoplay:
                marks.append(f"[yellow]{say('autoplay', lang)}[/]")
            on_turn = view.turn_seat == s.seat and view.phase in ("turn", "claim")
            pointer = "[bold yellow]▶[/]" if on_turn else " "
            name = f"{pointer} {self.name(s.seat, view)} {' '.join(marks)}".rstrip()
            body = Text()
            if s.melds:
                body.append_text(self.meld_text(s.melds))
                body.append("  ")
            body.append_text(tiles_text(s.discards, lang))
            if s.liangdao:
                body.append("\n")
                body.append(f"{t('term.liangdao', lang)} ", style="bold magenta")
                body.append_text(tiles_text(s.revealed, lang))
                body.append("  ")
                body.append(say("waits", lang, tiles=""), style="bold")
                body.append_text(tiles_text(s.waits, lang))
            table.add_row(Text.from_markup(name), str(s.concealed_count), Text(_signed(s.score), _money_style(s.score)),
                          body)
        return table

    def status_line(self, view: PublicView) -> str:
        lang = self.lang
        parts = [t("board.wall", lang, count=view.wall_remaining)]
        if view.phase == "turn" and view.turn_seat is not None:
            parts.append(say("turn_of", lang, player=self.name(view.turn_seat, view)))
        elif view.phase == "claim" and view.turn_seat is not None and view.claim_tile is not None:
            parts.append(say("claim_on", lang, player=self.name(view.turn_seat, view),
                             tile=tile_markup(view.claim_tile, lang)))
        secs = self.seconds_left(view.deadline)
        if secs is not None:
            parts.append(f"⏱ {secs}s")
        return " · ".join(parts)

    def hand_row(self, view: PrivateView) -> list[Text]:
        """Your tiles, the drawn one apart; in Chinese a second, dim row gives what to type for each."""
        lang = self.lang
        tiles = list(view.concealed)
        row = Text()
        codes = Text(style="dim")
        width = 4 if resolve_lang(lang) != "en" else 3
        for x in tiles:
            label = tile_text(x, lang)
            row.append_text(label)
            row.append(" " * (width - cell_len(label.plain)))
            codes.append(x.compact + " " * (width - 2))
        if view.drawn is not None:
            row.append(f"  {say('drew', lang)} ", style="dim")
            pad = cell_len(say("drew", lang)) + 3
            codes.append(" " * pad)
            row.append_text(tile_text(view.drawn, lang))
            codes.append(view.drawn.compact)
        melds = self.meld_text(view.melds)
        if view.melds:
            row.append("   ")
            row.append_text(melds)
        rows = [row]
        if resolve_lang(lang) != "en":
            rows.append(codes)
        return rows

    def hand_lines(self, view: PrivateView) -> list[Any]:
        lang = self.lang
        out: list[Any] = [f"[bold]{say('hand', lang)}[/]"]
        out.extend(self.hand_row(view))
        if view.waits:
            out.append(f"[bold green]{say('waits', lang, tiles=tiles_markup(view.waits, lang))}[/]")
        if view.discard_waits:
            sep = "；" if resolve_lang(lang) != "en" else "; "
            items = sep.join(say("ready_discard", lang, tile=tile_markup(d, lang), waits=tiles_markup(w, lang))
                             for d, w in sorted(view.discard_waits.items()))
            out.append(say("ready_discards", lang, list=items))
        if view.choices:
            out.append(say("choices", lang, list=describe_choices(view, lang)))
        return out

    def print_board(self) -> None:
        """The full board: every seat (melds, discards, 亮倒 reveals, scores), the wall and whose turn, your hand."""
        view = self.board
        if view is not None:
            self.print(self.header(view))
            self.print(self.seat_table(view))
            self.print(self.status_line(view))
        if self.hand is not None and (view is None or self.hand.hand_no == view.hand_no):
            for line in self.hand_lines(self.hand):
                self.print(line)

    def result_lines(self, result: ResultView, view: PublicView, ledger: Mapping[str, int]) -> list[Any]:
        """The fan breakdown (pattern names in Chinese and English, with multipliers), payments and balances."""
        lang = self.lang
        names = [self.player_name(s.player) for s in view.seats]

        def seat_name(seat: int | None) -> str:
            return names[seat] if seat is not None and 0 <= seat < len(names) else "?"

        out: list[Any] = [f"\n[bold reverse] {t('result.title', lang, hand=result.hand_no)} [/]"]
        if not result.winners:
            out.append(f"[bold]{t('result.draw', lang)}[/]")
        for w in result.winners:
            if w.self_draw:
                head = t("result.win_zimo", lang, player=seat_name(w.seat))
            else:
                head = t("result.win_discard", lang, player=seat_name(w.seat), discarder=seat_name(w.from_seat))
            out.append(f"[bold yellow]★ {head}[/]  {say('win_tile', lang, tile=tile_markup(w.win_tile, lang))}  "
                       f"[bold]{t('result.fan', lang, fan=w.fan)}[/]")
            for pid, mult in w.patterns:
                out.append(f"    {pattern_name(pid, 'zh-CN')} [dim]{pattern_name(pid, 'en')}[/]  ×{mult}")
        if result.hands:
            out.append(f"[dim]{say('result_hands', lang)}[/]")
            for h in result.hands:
                line = Text.from_markup(f"  {seat_name(h.seat)}  ")
                line.append_text(tiles_text(h.concealed, lang))
                if h.melds:
                    line.append("  ")
                    line.append_text(self.meld_text(h.melds))
                out.append(line)
        if result.payments:
            out.append(f"[bold]{t('result.payments', lang)}[/]")
            for p in result.payments:
                reason = catalog_text(f"payment.{p.reason}", lang) or p.reason
                out.append("  " + t("result.payment_line", lang, payer=self.player_name(p.from_player),
                                    payee=self.player_name(p.to_player), amount=p.amount, reason=reason))
        table = Table(box=None, pad_edge=False, header_style="dim", title=t("result.balances", lang),
                      title_justify="left", title_style="bold")
        table.add_column("")
        table.add_column(say("hand_net", lang), justify="right")
        table.add_column(say("table_total", lang), justify="right")
        for seat, name in enumerate(names):
            net = result.net[seat] if seat < len(result.net) else 0
            score = result.scores[seat] if seat < len(result.scores) else 0
            table.add_row(Text.from_markup(name), Text(_signed(net), _money_style(net)),
                          Text(_signed(score), _money_style(score)))
        out.append(table)
        if self.player_id in ledger:
            amount = ledger[self.player_id]
            out.append(say("ledger_you", lang, amount=f"[{_money_style(amount)}]{_signed(amount)}[/]"))
        if result.next_dealer is not None:
            out.append(f"[dim]{t('result.next_dealer', lang, player=seat_name(result.next_dealer))}[/]")
        out.append(f"[dim]{say('between_hands', lang)}[/]")
        return out


def _same_decision(a: PrivateView | None, b: PrivateView) -> bool:
    return a is not None and (a.table_id, a.hand_no, a.step) == (b.table_id, b.hand_no, b.step)


# -- input ----------------------------------------------------------------------------------------------------
class LineSource(Protocol):
    async def readline(self) -> str | None:
        """The next line without its newline; None at end of input."""


class StdinLines:
    """Lines from a text stream, read by a daemon thread: the event loop never blocks, and leaving the table
    never waits for a keypress (a thread stuck in a read would hold up the interpreter's exit otherwise)."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = stream if stream is not None else sys.stdin
        try:  # typed lines are echoed by the terminal; piped ones are not, so the transcript shows them
            self.echo = not self._stream.isatty()
        except (AttributeError, ValueError):
            self.echo = True
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._pump, name="kwx-stdin", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            for line in self._stream:
                self._put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        self._put(None)

    def _put(self, item: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: we are exiting anyway
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    async def readline(self) -> str | None:
        return await self._queue.get()


class ScriptedLines:
    """A fixed list of lines (tests, demos); None after the last one."""

    echo = True

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = list(lines)

    async def readline(self) -> str | None:
        await asyncio.sleep(0)
        return self._lines.pop(0) if self._lines else None


class TableActions(Protocol):
    """The part of kwx.table.service.TableService the input loop uses."""

    async def act(self, table_id: int, player_id: str, verb: str, tile: Tile | None = None,
                  step: int | None = None) -> None: ...
    def public_view(self, table_id: int) -> PublicView: ...
    def private_view(self, table_id: int, player_id: str) -> PrivateView: ...


def error_text(exc: TableError, lang: str) -> str:
    """A service refusal in the console's language: the catalog's error.<code>, else the service's words.
    `illegal` and `bad_tile` keep the service's own words, which say exactly what was wrong."""
    if exc.code not in ("illegal", "bad_tile"):
        text = catalog_text(f"error.{exc.code}", lang)
        if text:
            return text
    return exc.message


class TerminalTable:
    """The input loop: one line at a time, checked against your private view, then passed to the service."""

    def __init__(self, service: TableActions, frontend: ConsoleFrontEnd, table_id: int) -> None:
        self.service = service
        self.frontend = frontend
        self.table_id = table_id

    @property
    def lang(self) -> str:
        return self.frontend.lang

    def refresh(self) -> None:
        """Take the service's current views (they are the truth; the front end's copies may lag a callback)."""
        with contextlib.suppress(Exception):
            self.frontend.board = self.service.public_view(self.table_id)
        with contextlib.suppress(Exception):
            self.frontend.hand = self.service.private_view(self.table_id, self.frontend.player_id)

    def show(self) -> None:
        """The full board, and the prompt when you must act."""
        self.refresh()
        self.frontend.print_board()
        if self.frontend.must_act:
            assert self.frontend.hand is not None
            self.frontend.prompted = (self.frontend.hand.hand_no, self.frontend.hand.step)
            self.frontend.show_prompt(full=False)

    async def handle_line(self, line: str) -> bool:
        """Act on one line; False when the player leaves. Mistakes are explained, never fatal."""
        fe = self.frontend
        try:
            cmd = parse_command(line, self.lang)
        except CommandError as exc:
            self._refuse(exc.text)
            return True
        if cmd is None:
            if fe.must_act:
                fe.print(fe.prompt_text(), end="")
            return True
        if cmd.verb == "quit":
            return False
        if cmd.verb == "help":
            fe.print(escape(say("help", self.lang)))
            if fe.must_act:
                fe.print(fe.prompt_text(), end="")
            return True
        if cmd.verb == "hand":
            self.show()
            return True
        self.refresh()
        try:
            choice = resolve_command(cmd, fe.hand, self.lang)
        except CommandError as exc:
            self._refuse(exc.text)
            return True
        assert fe.hand is not None
        try:
            await self.service.act(self.table_id, fe.player_id, choice.verb, choice.tile, step=fe.hand.step)
        except TableError as exc:  # a refusal: the table is unchanged
            self._refuse(error_text(exc, self.lang))
        return True

    def _refuse(self, text: str) -> None:
        fe = self.frontend
        fe.print(f"[red]✗[/] {text}")
        if fe.must_act:
            fe.print(fe.prompt_text(), end="")

    async def run(self, lines: LineSource) -> None:
        """Read and act until `quit` or the end of input."""
        while True:
            line = await lines.readline()
            if line is None:
                self.frontend.print()
                self.frontend.print(f"[dim]{say('eof', self.lang)}[/]")
                return
            if getattr(lines, "echo", False):
                self.frontend.console.print(line, markup=False, highlight=False)
            if not await self.handle_line(line):
                return


# -- the local table --------------------------------------------------------------------------------------------
def only_channel(guild: str, channel: str) -> Callable[[TableRow], bool]:
    """For `TableService.start(include=...)`: the terminal table and the autoplay runner each run only their
    own table, so playing at the terminal never runs the autoplay table in the background, and an autoplay run
    never plays the human's seat by timeout."""
    return lambda row: (row.guild, row.channel) == (guild, channel)


async def find_local_table(store: Store, channel: str, guild: str = LOCAL_GUILD) -> TableRow | None:
    """The open table of a local channel, if any (read before the service starts)."""
    for row in await store.unfinished_tables(guild):
        if row.channel == channel:
            return row
    return None


async def finished_hands(store: Store, table_id: int) -> int:
    """How many hands of the table the ledger holds (hands are recorded in order: 1, 2, …)."""
    n = 0
    for hand_no in await store.hand_numbers(table_id):  # one query, not one per hand
        if hand_no != n + 1:
            break
        n += 1
    return n


async def seat_players(service: Any, table_id: int, host: PlayerRef, humans: Sequence[PlayerRef],
                       ai_level: str = "standard") -> None:
    """Make sure the humans sit and AI players fill the other seats, then deal, if the table is in its lobby."""
    view = service.public_view(table_id)
    if view.phase != "lobby":
        return
    seated = {s.player.player_id for s in view.seats}
    for player in humans:
        if player.player_id not in seated:
            await service.join(table_id, player)
    while len(service.public_view(table_id).seats) < 3:
        await service.add_ai(table_id, ai_level, by=host.player_id)
    await service.start_game(table_id, by=host.player_id)


async def paused_clock(store: Store, table_id: int | None) -> Callable[[], float]:
    """A clock for the terminal table that stood still while the program was not running.

    Deadlines come from the time each record of the log carries; with the wall clock, a turn left open by `quit`
    would time out the moment the table resumes. This clock runs behind the wall clock by the time that passed
    since the table's last record, so you come back to the time you had left."""
    offset = 0.0
    if table_id is not None:
        for event in reversed(await store.load_events(table_id)):
            at = event.payload.get("at") if isinstance(event.payload, dict) else None
            if isinstance(at, int | float):
                offset = max(0.0, time.time() - float(at))
                break
    return lambda: time.time() - offset


async def play_terminal(db_path: str | Path, *, lang: str = "zh-CN", seed: str | None = None,
                        ai_delay: float = AI_DELAY, between_hands: float = BETWEEN_HANDS,
                        turn_seconds: float = TURN_SECONDS, claim_seconds: float = CLAIM_SECONDS,
                        console: Console | None = None, lines: LineSource | None = None,
                        service_factory: Callable[..., Any] | None = None) -> int:
    """Open or resume the terminal table and play until `quit` or end of input. Returns the exit status."""
    console = console or Console(highlight=False)
    lang = resolve_lang(lang)
    you = PlayerRef(YOU_ID, say("you", lang))
    store = await Store.open(db_path)
    existing = await find_local_table(store, TERMINAL_CHANNEL)
    clock = await paused_clock(store, existing.id if existing is not None else None)
    frontend = ConsoleFrontEnd(console, lang=lang, ledger=store, clock=clock,
                               table_id=existing.id if existing is not None else None)
    factory = service_factory or TableService
    service = factory(store, frontend, ai_delay=ai_delay, between_hands=between_hands, clock=clock)
    console.print(f"[bold]{say('banner', lang)}[/]  [dim]{escape(say('db', lang, path=store.path))}[/]",
                  highlight=False)
    try:
        await service.start(include=only_channel(LOCAL_GUILD, TERMINAL_CHANNEL))
        table_id = service.table_in_channel(LOCAL_GUILD, TERMINAL_CHANNEL)
        resumed = False
        if table_id is None:
            table_id = await service.open_table(LOCAL_GUILD, TERMINAL_CHANNEL, you, turn_seconds=turn_seconds,
                                                claim_seconds=claim_seconds, seed=seed)
            console.print(say("new_table", lang, table=table_id), highlight=False)
        else:
            resumed = True
            console.print(say("resumed", lang, table=table_id, hand=service.public_view(table_id).hand_no),
                          highlight=False)
        frontend.table_id = table_id
        await seat_players(service, table_id, you, [you])
        table = TerminalTable(service, frontend, table_id)
        flush = getattr(service, "flush", None)
        if flush is not None:  # let the views of the resume / the deal reach the screen first
            await flush()
        await frontend.settle()
        if resumed and frontend.prompted is None:  # a new hand shows itself as it is dealt
            table.show()
        await table.run(lines or StdinLines())
        console.print()
        console.print(say("quit", lang), highlight=False)
        return 0
    finally:
        await service.shutdown()
        await store.close()


def run_terminal(settings: Any, *, db: str | None = None, seed: str | None = None,
                 delay: float | None = None) -> int:
    """`python bot.py` without Discord: the terminal table. Ctrl-C leaves like `quit`."""
    try:
        return asyncio.run(play_terminal(db or settings.db_path, lang=settings.lang, seed=seed,
                                         ai_delay=AI_DELAY if delay is None else delay))
    except KeyboardInterrupt:
        print()
        print(say("quit", settings.lang))
        return 0


def run_local(args: Any, settings: Any) -> int:
    """bot.py's local branch: `--autoplay N` runs the headless runner, otherwise the terminal table."""
    if getattr(args, "autoplay", None) is not None:
        from kwx.autoplay import run_autoplay

        return run_autoplay(settings, args.autoplay, db=args.db, seed=args.seed, delay=args.delay)
    return run_terminal(settings, db=args.db, seed=args.seed, delay=args.delay)


__all__ = [
    "AI_DELAY", "BETWEEN_HANDS", "CLAIM_SECONDS", "LOCAL_GUILD", "TERMINAL_CHANNEL", "TURN_SECONDS", "YOU_ID",
    "Command", "CommandError", "ConsoleFrontEnd", "ScriptedLines", "StdinLines", "TerminalTable",
    "describe_choices", "error_text", "find_local_table", "finished_hands", "only_channel", "parse_command", "paused_clock",
    "play_terminal", "resolve_command", "run_local", "run_terminal", "say", "seat_players", "tile_text",
]
