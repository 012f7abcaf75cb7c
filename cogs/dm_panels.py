"""The DM side of the Discord front end: one worker per (table, player) keeps that player's private panel.

One DM per player per hand, edited in place. The hand's first panel (the 漂 choice or the deal) is a new
message, so Discord notifies the player; every later prompt edits it, buttons and all, and between prompts it
shows the hand without buttons. The worker is the only writer of a panel: the Tables cog answers a press
(a deferred update) and hands its token here (`pressed`), the panel's next edits go through that token (15
minutes), and the next hand's panel is posted as a followup of the player's last press while its token lives:
none of these counts toward the bot's global limit, so steady play costs the bot's token nothing in DMs. A
player's first DM costs two more calls (a user lookup, opening the DM channel, which Discord paces at a few a
second for the whole bot): while the budget is crowded, that first panel is instead a followup of the player's
/kwx new, join or start, in the table's channel and seen only by them, and the hand goes on there, through the
tokens of their presses, until a quieter moment sends a DM (`_dm_would_wait`). When
the result is posted, each player's panel of that hand collapses to one line: who won, how, the player's net,
and a link to the result. (Auto-pass is the service's: a claim it passes never reaches a panel.) A refused DM
(DMs closed) is said once in the channel; the player then uses the board's "My hand" button, whose ephemeral panel is kept up to date here for as
long as its interaction token lives. A player in 托管 gets no new DM per move made for them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import discord

from cogs.board_delivery import HANDS_KEPT, BoardDelivery
from cogs.buttons import release
from cogs.emoji import TileFormatter
from cogs.front_tables import DMS_CLOSED_REF, DiscordTable, FrontEndStats, FrontTables
from cogs.message_refs import MessageRefs
from cogs.operations import (
    Failed,
    Rest,
    dms_closed,
    release_done,
    safe_defer,
    safe_update_message,
    transient,
)
from cogs.panel_state import PanelState, Shown, alive
from cogs.panels import NORMAL, PanelMessage, hand_over_line, panel_key, panel_message
from cogs.ratelimit import Priority
from cogs.web import personal_link
from kwx.present.i18n import tr
from kwx.store import Store
from kwx.store.settings import MessageRef
from kwx.table.views import ActionChoice, PlayerRef, PrivateView, PublicView, ResultView

logger = logging.getLogger(__name__)

# First DMs under way at once past which another would wait: Discord paces opening DM channels for the whole bot.
DM_OPENS_AT_ONCE = 5


class DmPanels:
    """Every player's panels, by (table, player)."""

    def __init__(self, bot: discord.Client, store: Store, tables: FrontTables, board: BoardDelivery,
                 refs: MessageRefs, stats: FrontEndStats, tiles: TileFormatter, rest: Rest) -> None:
        self.bot = bot
        self.rest = rest
        self.store = store
        self.tables = tables
        self.board = board
        self.refs = refs
        self.stats = stats
        self.tiles = tiles
        # (table, player, step) -> that prompt reached the player: the service's `prompt_delivered` (its timer)
        self.prompt_reached: Callable[[int, str, int], None] | None = None
        self.by_key: dict[tuple[int, str], PanelState] = {}
        self._dm_closed: set[str] = set()
        self._dm_owner: dict[int, str] = {}  # DM channel id -> player id
        self._dm_channel: dict[str, int] = {}  # player id -> DM channel id
        self._opening = 0  # first DMs under way (a user lookup and an "open DM" call each)

    def get(self, table_id: int, player_id: str) -> PanelState:
        """The player's panel state at that table, made on first use."""
        key = (table_id, player_id)
        p = self.by_key.get(key)
        if p is None:
            p = self.by_key[key] = PanelState(table_id, player_id)
        return p

    def restore(self, tc: DiscordTable, ref: MessageRef) -> None:
        """A message ref of a located table (after a restart): a player's panel, or a closed-DM note."""
        data = ref.data
        if ref.ref.startswith("dm:"):
            pid = ref.ref[3:]
            p = self.get(tc.id, pid)
            if p.dm is None:
                p.dm = Shown(int(ref.channel_id), int(ref.message_id), int(data.get("hand", 0)),
                             int(data.get("step", 0)), str(data.get("key", "")), bool(data.get("live")),
                             bool(data.get("dealt", True)), ended=bool(data.get("ended")))
            self._dm_owner[int(ref.channel_id)] = pid
            self._dm_channel.setdefault(pid, int(ref.channel_id))
        elif ref.ref.startswith(DMS_CLOSED_REF):
            self._dm_closed.add(ref.ref[len(DMS_CLOSED_REF):])

    async def closing(self, table_id: int) -> None:
        """A closed table: take the buttons off its players' live prompts and forget its panels."""
        for key, p in list(self.by_key.items()):
            if key[0] != table_id:
                continue
            if p.dm is not None and p.dm.live:
                await self._disable_dm(p, p.dm)
            self.by_key.pop(key, None)

    def tasks(self) -> list[asyncio.Task[None]]:
        """The panel workers under way."""
        return [p.task for p in self.by_key.values() if p.task is not None and not p.task.done()]

    async def hand_changed(self, player: PlayerRef, view: PrivateView, *, prompt: bool) -> None:
        if player.is_ai or not player.player_id.isdigit():
            return
        p = self.get(view.table_id, player.player_id)
        if p.latest is not None and (view.hand_no, view.step) < (p.latest.hand_no, p.latest.step):
            return  # an older state than one already shown (a button answer overtook the service's call)
        p.latest = view
        p.prompt = p.prompt or prompt
        self.kick(p)

    def panel(self, view: PrivateView, lang: str, **options: Any) -> PanelMessage:
        """The panel's message for `view`, with what the front end knows of the table: its board (for the context
        line), the mode the player's last press chose for this decision, the player's link to the table page."""
        tc = self.tables.find(view.table_id)
        board = tc.views.get(view.hand_no) if tc is not None else None
        mode, confirm = self._mode(view)
        options = {"mode": mode, "confirm": confirm} | options
        return panel_message(view, lang, self.tiles, piao_max=view.piao_max, board=board, auto_pass=view.auto_pass,
                             link=personal_link(self.bot, view.table_id, view.player_id, lang), **options)

    def panel_key(self, view: PrivateView) -> str:
        mode, confirm = self._mode(view)
        return panel_key(view, view.auto_pass, mode, confirm)

    def _mode(self, view: PrivateView) -> tuple[str, ActionChoice | None]:
        p = self.by_key.get((view.table_id, view.player_id))
        if p is None or p.mode is None or p.mode[:2] != (view.hand_no, view.step) or not view.choices:
            return NORMAL, None
        return p.mode[2], p.mode[3]

    async def dm_player(self, player_id: str | None, **message: Any) -> None:
        if player_id is None or not player_id.isdigit():
            return
        user = await self.rest.fetch_user(self.bot, int(player_id), priority=Priority.POST)
        if user is not None:
            self.stats.dm_sends += 1
            await self.rest.send_dm(user, priority=Priority.POST, **message)

    def seated(self, interaction: discord.Interaction, table_id: int) -> None:
        """The player's /kwx new, join or start (or a lobby button) at this table, answered: while its token lives,
        it may post the player's first panel in the channel, seen only by them, when a DM would wait behind a
        busy bot (`_dm_would_wait`)."""
        if interaction.guild_id is not None:
            self.get(table_id, str(interaction.user.id)).seat_token = interaction

    def _dm_would_wait(self, p: PanelState) -> bool:
        """Whether a first DM to this player would wait: no DM channel open to them yet (opening one is two more
        calls, on a route Discord paces at a few a second for the whole bot) while the budget is crowded."""
        if p.player_id in self._dm_channel:
            return False
        return self._opening >= DM_OPENS_AT_ONCE or self.rest.budget.crowded()

    def press_arrived(self, interaction: discord.Interaction, table_id: int) -> None:
        """A press of the player's current panel, before the service answers it: from now on the panel is
        edited through the press's token, so the worker's next edit (the service's change, coming first) is
        also the press's answer — one call, and never the bot's own edit racing the answer."""
        p = self.by_key.get((table_id, str(interaction.user.id)))
        message = interaction.message
        if p is None or message is None:
            return
        if p.dm is not None and p.dm.message_id == message.id and (interaction.guild_id is None or p.dm.ephemeral):
            p.dm.token, p.dm.followup = interaction, False
            p.presses.append(interaction)
        elif interaction.guild_id is not None and p.eph_shown is not None and p.eph_shown.message_id in (0, message.id):
            p.eph = interaction  # (0: the panel a slash command answered with, whose id it did not learn)
            p.presses.append(interaction)
            p.eph_shown.message_id = message.id

    async def pressed(self, interaction: discord.Interaction, view: PrivateView, *, mode: str = NORMAL,
                      confirm: ActionChoice | None = None, within: float = 2.0) -> None:
        """A press of this player's panel, accepted by the service: the panel it was made on is this player's
        panel from now on, to show `view` in `mode` (the 亮倒 picks, a question before a costly move). The
        worker answers the press with that edit (one call) and edits through its token afterwards; when it
        has nothing to write, or takes longer than `within` seconds, the press gets a deferred update."""
        p = self.get(view.table_id, str(interaction.user.id))
        p.mode = (view.hand_no, view.step, mode, confirm) if mode != NORMAL else None
        if p.latest is None or (view.hand_no, view.step) >= (p.latest.hand_no, p.latest.step):
            p.latest = view
        taken = (p.dm is not None and p.dm.token is interaction) or p.eph is interaction  # by press_arrived
        if not taken:  # pressed on another message (an earlier hand's panel, an older My hand): that is the panel now
            p.presses.append(interaction)
            self._adopt(p, interaction, p.latest, live=True, key="")  # "": unlike any panel, so it is written
        self.kick(p)
        if p.task is not None:
            await asyncio.wait({p.task}, timeout=within)
        await safe_defer(interaction)  # nothing when the worker's edit answered it

    def shown_by_interaction(self, interaction: discord.Interaction, view: PrivateView, *, live: bool) -> None:
        """A My-hand panel (the interaction's own response) now shows `view` (live: with its buttons)."""
        p = self.get(view.table_id, str(interaction.user.id))
        if p.latest is None or (view.hand_no, view.step) >= (p.latest.hand_no, p.latest.step):
            p.latest = view
        if live:
            self._reached(view)
        self._adopt(p, interaction, view, live=live, key=self.panel_key(view))

    def _adopt(self, p: PanelState, interaction: discord.Interaction, view: PrivateView, *, live: bool,
               key: str) -> None:
        """The interaction's message is this player's panel (DM) or ephemeral panel, editable with its token."""
        message = interaction.message
        if interaction.guild_id is None and message is not None:  # a DM panel
            old = p.dm
            if old is not None and old.message_id != message.id and not old.ended:
                p.past[old.hand] = old  # pressed on an earlier hand's panel: that one is kept for its end line
            p.dm = Shown(interaction.channel_id or 0, message.id, view.hand_no, view.step, key, live,
                         bool(view.concealed), view, token=interaction)
            self._remember_dm(p)
            self._dm_owner[p.dm.channel_id] = p.player_id
            self._dm_channel[p.player_id] = p.dm.channel_id
        else:  # an ephemeral panel: keep its interaction to edit it later
            p.eph = interaction
            p.eph_shown = Shown(interaction.channel_id or 0, message.id if message else 0, view.hand_no, view.step,
                                key, live, bool(view.concealed), view)

    def dm_owner(self, channel_id: int | None) -> str | None:
        """Whose hand panels are in this DM channel (None: not one we know)."""
        return None if channel_id is None else self._dm_owner.get(channel_id)

    def dms_closed(self, player_id: str) -> bool:
        return player_id in self._dm_closed

    def hand_ended(self, tc: DiscordTable, result: ResultView, view: PublicView, sent: discord.Message | None,
                    lang: str) -> None:
        """Each player's panel of this hand becomes its one-line end, linking to the result post."""
        link = ""
        if sent is not None and tc.guild and tc.channel:
            url = f"https://discord.com/channels/{tc.guild}/{tc.channel}/{sent.id}"
            link = f" · [{tr('dm.result_link', lang)}]({url})"
        for seat in view.seats:
            pid = seat.player.player_id
            if seat.player.is_ai or not pid.isdigit() or (tc.id, pid) not in self.by_key:
                continue
            p = self.by_key[(tc.id, pid)]
            p.endings[result.hand_no] = hand_over_line(result, view, seat.seat, lang, self.tiles) + link
            self.kick(p)

    def kick(self, p: PanelState) -> None:
        p.dirty = True
        if p.task is None or p.task.done():
            p.task = asyncio.get_running_loop().create_task(self._run_panel(p),
                                                            name=f"kwx-panel-{p.table_id}-{p.player_id}")

    def _remember_dm(self, p: PanelState) -> None:
        if p.dm is not None and not p.dm.ephemeral:
            self.refs.remember(p.table_id, f"dm:{p.player_id}", p.dm.channel_id, p.dm.message_id, p.dm.data())

    # == the panel worker =================================================================================
    async def _run_panel(self, p: PanelState) -> None:
        while p.dirty:
            p.dirty = False
            try:
                await self._flush_panel(p)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("table %s: could not update the hand of player %s", p.table_id, p.player_id)
        held = [p.eph, *(s.token for s in (p.dm, p.eph_shown, *p.past.values()) if s is not None)]
        p.presses = release_done(p.presses, held)

    async def _flush_panel(self, p: PanelState) -> None:
        view = p.latest
        tc = self.tables.get(p.table_id)
        await self.tables.locate(tc)
        for hand in sorted(p.endings):
            await self._end_dm(p, hand, p.endings.pop(hand))
        if view is None:
            return
        prompt, p.prompt = p.prompt, False
        if tc.closed:
            return
        lang = self.tables.lang(tc)
        key = self.panel_key(view)
        await self._update_dm(tc, p, view, key, prompt, lang)
        await self._update_ephemeral(p, view, key, lang)

    async def _end_dm(self, p: PanelState, hand: int, line: str) -> None:
        """Collapse the hand's panel to its end line (no embed, no buttons)."""
        if p.dm is not None and p.dm.hand == hand:
            shown = p.dm
        elif hand in p.past:
            shown = p.past.pop(hand)
        else:
            return  # no panel of that hand (DMs closed, or a restart lost it)
        if shown.ended:
            return
        if await self._edit_dm(shown, urgent=False, content=line, embeds=[], view=None):
            shown.ended = True
            shown.live = False
            if shown is p.dm:
                self._remember_dm(p)

    async def _edit_dm(self, shown: Shown, *, urgent: bool, **message: Any) -> bool:
        """Edit a panel: through the token of the interaction that may edit it while that lives (exempt from the
        global limit), else with the bot's token."""
        token = shown.token
        if token is not None and alive(token):
            self.stats.dm_token_edits += 1
            if shown.followup:
                edited = await self.rest.through_token(
                    token, lambda: token.followup.edit_message(shown.message_id, **message),
                    "edit followup %s through a token", shown.message_id) is not None
            else:  # the press's answer when it has none yet (one call), later an edit of its message
                edited = await self.rest.through_token(
                    token, lambda: safe_update_message(token, **message),
                    "update the panel of interaction %s", token.id) is True
            if edited:
                return True
            shown.token = None  # expired or refused: the bot's token from now on
        if shown.ephemeral:
            return False  # the bot's token cannot edit a message only the player sees: the next change is a new DM
        self.stats.dm_edits += 1
        priority = Priority.PROMPT if urgent else Priority.BOARD
        return not isinstance(await self.rest.edit(self._dm_message(shown), priority=priority, **message), Failed)

    async def _update_dm(self, tc: DiscordTable, p: PanelState, view: PrivateView, key: str, prompt: bool, lang: str) -> None:
        shown = p.dm
        if shown is not None and shown.key == key:
            return
        choices = bool(view.choices)
        if p.player_id in self._dm_closed and p.refused_hand == view.hand_no:
            return  # refused this hand already: the player uses My hand (tried again next hand)
        if shown is None or shown.hand != view.hand_no:
            if not choices and not view.concealed:
                return  # nothing of this hand to show yet
            # The hand's one new DM (Discord notifies the player); the previous hand's panel waits for its end line.
            # Posted as a followup of the player's last press while its token lives (exempt from the global limit;
            # the same token then edits it), else by the bot.
            token = shown.token if shown is not None and shown.token is not None and alive(shown.token) else None
            if token is None and p.seat_token is not None and alive(p.seat_token) and self._dm_would_wait(p):
                token = p.seat_token  # the bot is busy: the first panel in the channel, seen only by the player
            if token is None or not await self._followup_dm(p, view, key, self.panel(view, lang), token):
                # a fresh message: the refused followup's buttons were released with it
                await self._send_dm(tc, p, view, key, self.panel(view, lang))
            if shown is not None and p.dm is not shown and not shown.ended:
                p.past[shown.hand] = shown
                for old in [h for h in p.past if h < view.hand_no - HANDS_KEPT]:
                    p.past.pop(old, None)
            return
        if shown.ended:
            return  # the hand is over and its panel says so
        if view.autoplay and shown.view is not None and shown.view.autoplay and not shown.live:
            return  # 托管: the AI moves for the player; the panel said so once
        if not (shown.live or choices or (not shown.dealt and view.concealed)):
            return  # between prompts the panel keeps the hand the player's last press showed
        # The same panel, edited: the next prompt (buttons and all), or the hand without buttons when nothing is asked.
        message = self.panel(view, lang)
        edited = await self._edit_dm(shown, urgent=choices, **message)
        release(message["view"])
        if p.dm is not shown:
            return  # a press made it the panel meanwhile (its token edits it now): the next pass writes that
        if not edited:
            p.dm = None  # the DM is gone or Discord would not edit it: the next change sends a new one
            if choices:  # ...and a decision waits on this player now: send it as a new prompt at once
                p.prompt = True
                self.kick(p)
            return
        p.dm = replace(shown, step=view.step, key=key, live=choices, dealt=bool(view.concealed), view=view)
        self._remember_dm(p)
        self._reached(view)

    async def _followup_dm(self, p: PanelState, view: PrivateView, key: str, message: PanelMessage,
                           token: discord.Interaction) -> bool:
        """The hand's panel as a followup of the player's last press. False when Discord would not take it."""
        kwargs: dict[str, Any] = {k: v for k, v in message.items() if k != "content" and not (k == "view" and v is None)}
        # A token of the table's channel (a seat's command, a press on such a panel) posts there: only the player
        # may see it.
        ephemeral = token.guild_id is not None
        if ephemeral:
            kwargs |= {"ephemeral": True, "content": tr("dm.busy_here", self.tables.lang(self.tables.get(p.table_id)))}
        self.stats.dm_token_edits += 1
        send: Callable[..., Awaitable[discord.WebhookMessage]] = token.followup.send
        sent = await self.rest.through_token(token, lambda: send(wait=True, **kwargs),
                                             "send the panel as a followup of interaction %s", token.id)
        release(message["view"])
        if sent is None:
            return False
        channel_id = token.channel_id or 0
        p.dm = Shown(channel_id, sent.id, view.hand_no, view.step, key, bool(view.choices), bool(view.concealed),
                     view, token=token, followup=True, ephemeral=ephemeral)
        self._remember_dm(p)
        self._reached(view)
        return True

    async def _send_dm(self, tc: DiscordTable, p: PanelState, view: PrivateView, key: str, message: PanelMessage) -> None:
        sent: discord.Message | Failed | None = None
        message.pop("content", None)
        # The deal paced: a hand dealt with nothing asked of this player yet waits behind those asked
        priority = Priority.PROMPT if view.choices else Priority.POST
        known = self._dm_channel.get(p.player_id)
        if known is not None:  # a DM channel we used before: one call, no user lookup, no "open DM" call
            self.stats.dm_sends += 1
            channel = self.bot.get_partial_messageable(known, type=discord.ChannelType.private)
            sent = await self.rest.send_channel(channel, priority=priority, **message)
        else:
            self._opening += 1
            try:
                user = await self.rest.fetch_user(self.bot, int(p.player_id), priority=priority)
                if user is not None:
                    self.stats.dm_sends += 1
                    sent = await self.rest.send_dm(user, priority=priority, **message)
            finally:
                self._opening -= 1
        release(message["view"])
        if not isinstance(sent, discord.Message) and not dms_closed(sent):
            # Not the player's settings (a 5xx or a timeout, already retried; another refusal): no "DMs closed"
            # notice; a passing failure is tried again, as a new prompt.
            if transient(sent):
                p.prompt = True
                self.board.later(tc, lambda: self.kick(p))
            return
        if not isinstance(sent, discord.Message):
            self.stats.refused_dms += 1
            self._dm_closed.add(p.player_id)
            p.dm = None
            p.refused_hand = view.hand_no
            self._dms_refused(tc, p.player_id)
            return
        self._dm_closed.discard(p.player_id)
        p.dm = Shown(sent.channel.id, sent.id, view.hand_no, view.step, key, bool(view.choices),
                     bool(view.concealed), view)
        self._dm_owner[sent.channel.id] = p.player_id
        self._dm_channel[p.player_id] = sent.channel.id
        self._remember_dm(p)
        self._reached(view)

    def _dm_message(self, shown: Shown) -> discord.PartialMessage:
        channel = self.bot.get_partial_messageable(shown.channel_id, type=discord.ChannelType.private)
        return channel.get_partial_message(shown.message_id)

    async def _disable_dm(self, p: PanelState, shown: Shown) -> None:
        """Take the buttons off a panel (its table closed)."""
        await self._edit_dm(shown, urgent=False, view=None)
        shown.live = False

    def _dms_refused(self, tc: DiscordTable, player_id: str) -> None:
        if player_id in tc.dm_notices:
            return
        tc.dm_notices.add(player_id)
        self.refs.remember(tc.id, DMS_CLOSED_REF + player_id, tc.channel or 0, 0, {})
        lang = self.tables.lang(tc)
        text = tr("error.dms_closed", lang, player=f"<@{player_id}>", button=tr("action.my_hand", lang))
        self.board.post(tc, ("text", text))

    async def _update_ephemeral(self, p: PanelState, view: PrivateView, key: str, lang: str) -> None:
        shown, interaction = p.eph_shown, p.eph
        if interaction is None or shown is None or shown.key == key:
            return
        if interaction.is_expired():
            p.eph = p.eph_shown = None
            return
        if not (shown.live or p.player_id in self._dm_closed):
            return  # a snapshot the player opened; their DMs carry the prompts
        self.stats.ephemeral_edits += 1
        message = self.panel(view, lang)
        edited = await safe_update_message(interaction, **message)
        release(message["view"])
        if p.eph is not interaction:
            return  # a newer press took it over meanwhile
        if not edited:
            p.eph = p.eph_shown = None
            return
        p.eph_shown = replace(shown, step=view.step, key=key, live=bool(view.choices), view=view)
        self._reached(view)

    def _reached(self, view: PrivateView) -> None:
        """A prompt is in front of the player now: the service's turn timer counts from here."""
        if view.choices and self.prompt_reached is not None:
            self.prompt_reached(view.table_id, view.player_id, view.step)
