"""For managers: `/kwx-admin export` (the server's ledger as CSV files) and `/kwx-admin undo` (a reversing
entry for a payment or a whole hand: the ledger is append-only). Both need Manage Server (cogs/group.py)."""

from __future__ import annotations

import logging
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import discord
from discord import app_commands

from cogs.group import managers_only, text
from cogs.inputs import NOTE_MAX, member_key, safe_text
from cogs.ledger_common import LedgerCog, mention
from cogs.operations import safe_defer, safe_followup
from kwx.present.i18n import tr
from kwx.present.ledger_text import clean_name, code_block, money, table
from kwx.store import NotFound, ReversalRefused
from kwx.store.export import ExportTooBig

logger = logging.getLogger(__name__)

EXPORT_COOLDOWN = (1, 60.0)  # one export a minute a member (per server): it reads the whole ledger
DEFAULT_FILESIZE_LIMIT = 8 * 1024 * 1024  # when an interaction does not say (Discord's smallest upload limit)
FILES_PER_MESSAGE = 10  # Discord's limit on attachments per message


def file_groups(files: list[Path], limit: int) -> list[list[Path]]:
    """Files packed into messages: at most FILES_PER_MESSAGE each, their sizes together within `limit`."""
    groups: list[list[Path]] = []
    used = limit + 1
    for path in files:
        size = path.stat().st_size
        if not groups or len(groups[-1]) >= FILES_PER_MESSAGE or used + size > limit:
            groups.append([])
            used = 0
        groups[-1].append(path)
        used += size
    return groups


class LedgerAdmin(LedgerCog, name="LedgerAdmin"):
    @app_commands.command(name="export", description=text("cmd.export"))
    @app_commands.checks.cooldown(*EXPORT_COOLDOWN, key=member_key)
    @managers_only
    async def export(self, interaction: discord.Interaction) -> None:
        lang, guild = self.lang(interaction), self.guild(interaction)
        await safe_defer(interaction, ephemeral=True, thinking=True)
        limit = getattr(interaction, "filesize_limit", None) or DEFAULT_FILESIZE_LIMIT
        stem = f"kwx-ledger-{guild}-{datetime.now(UTC).strftime('%Y%m%d')}"
        try:  # the deferred reply is always filled: the files, or what went wrong
            with tempfile.TemporaryDirectory(prefix="kwx-export-") as tmp:
                export = await self.store.export_files(guild, Path(tmp), stem, max_bytes=limit)
                key = "ledger.export.done" if len(export.files) == 1 else "ledger.export.split"
                content: str | None = tr(key, lang, count=export.entries, files=len(export.files))
                for group in file_groups(export.files, limit):
                    await safe_followup(interaction, content=content, ephemeral=True,
                                        files=[discord.File(path, filename=path.name) for path in group])
                    content = None
        except ExportTooBig:
            await safe_followup(interaction, content=tr("ledger.export.too_big", lang), ephemeral=True)
        except Exception:
            logger.exception("export of guild %s failed", guild)
            await safe_followup(interaction, content=tr("ledger.export.failed", lang), ephemeral=True)

    @app_commands.command(name="undo", description=text("cmd.undo"))
    @app_commands.describe(entry=text("cmd.undo.entry"), hand=text("cmd.undo.hand"), reason=text("cmd.undo.reason"))
    @managers_only
    async def undo(self, interaction: discord.Interaction, entry: app_commands.Range[int, 1] | None = None,
                   hand: app_commands.Range[int, 1] | None = None,
                   reason: app_commands.Range[str, 1, NOTE_MAX] | None = None) -> None:
        lang, guild = self.lang(interaction), self.guild(interaction)
        if entry is not None and hand is not None:
            await self.say(interaction, tr("ledger.undo.one_of", lang))
            return
        by = str(interaction.user.id)
        why = (reason or "").strip()[:NOTE_MAX] or tr("ledger.undo.default_reason", lang)
        try:
            if entry is not None:
                new_id = await self.store.reverse_entry(guild, entry, by, why)
                line = tr("ledger.undo.entry", lang, entry=entry, new=new_id, member=mention(by),
                         reason=safe_text(why))
                ids = [new_id]
            else:
                target = hand if hand is not None else await self._last_hand(guild)
                if target is None:
                    await self.say(interaction, tr("ledger.undo.nothing", lang))
                    return
                ids = await self.store.reverse_hand(guild, target, by, why)
                line = tr("ledger.undo.hand", lang, hand=target, count=len(ids), member=mention(by),
                         reason=safe_text(why))
        except NotFound:
            await self.say(interaction, tr("ledger.undo.not_found", lang))
            return
        except ReversalRefused as refused:
            key = {"reversal": "ledger.undo.final", "hand": "ledger.undo.part_of_hand"}.get(refused.code,
                                                                                          "ledger.undo.already")
            await self.say(interaction, tr(key, lang, entry=entry, hand=refused.hand_id))
            return
        names = {r.player: r.name for r in (await self.store.balances(guild)).rows}
        reversed_entries = [e for e in await self.store.entries(guild, limit=len(ids)) if e.id in set(ids)]
        rows = [[f"#{e.id}", clean_name(self.name_of(interaction, e.from_player, names.get(e.from_player)), 10), "→",
                 clean_name(self.name_of(interaction, e.to_player, names.get(e.to_player)), 10), money(e.amount)]
                for e in reversed(reversed_entries)]
        body = line + ("\n" + code_block(table(rows, "llllr")) if rows else "")
        await self.show(interaction, discord.Embed(title=tr("ledger.undo.title", lang), description=body,
                                                   colour=discord.Colour.orange()))

    async def _last_hand(self, guild: str) -> int | None:
        """The newest hand of the server whose money still stands."""
        reversed_ids: set[int] = set()
        offset = 0
        while True:
            batch = await self.store.entries(guild, limit=200, offset=offset)
            if not batch:
                return None
            for e in batch:
                if e.reverses_id is not None:
                    reversed_ids.add(e.reverses_id)
                elif e.hand_id is not None and e.id not in reversed_ids:
                    return e.hand_id
            offset += len(batch)
