"""🔍 Verify shuffle under a hand's result: its seed and commitment, for whoever asks, privately.

A result post used to end with the hand's seed and commitment: some 80 hexadecimal characters under every
hand, for the rare player who checks a shuffle. The button keeps them one press away instead. The answer gives
the commitment the ledger kept from before the deal, the seed the end of the hand reveals, and the commands
that check them (`python -m kwx verify`, and with the hand's action log from `python -m kwx ledger hand ID`,
the whole hand replayed). The custom id names only the table and the hand (`kwx:vfy:<table>:<hand>`); the rest
is read from the store when pressed (kwx.table.proof), so the button works after a restart, and only for a
hand the ledger recorded in the server it was pressed in.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from cogs.buttons import ForgedPress, forged
from cogs.inputs import id_number
from cogs.operations import safe_respond
from kwx.present.i18n import tr
from kwx.present.ledger_text import code_block
from kwx.table.proof import HandProof, hand_proof


class VerifyButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"kwx:vfy:(?P<fields>.*)"):
    def __init__(self, table_id: int, hand_no: int, *, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label, emoji="🔍", style=discord.ButtonStyle.secondary,
                                           custom_id=f"kwx:vfy:{table_id}:{hand_no}"))
        self.table_id, self.hand_no = table_id, hand_no

    @classmethod
    async def from_custom_id(  # type: ignore[override]
        cls, interaction: discord.Interaction, item: discord.ui.Button[discord.ui.View], match: re.Match[str]
    ) -> VerifyButton | ForgedPress:
        table, _, hand = match["fields"].partition(":")  # <table>:<hand>
        table_id, hand_no = id_number(table), id_number(hand)
        if table_id is None or hand_no is None:
            return forged(item)
        return cls(table_id, hand_no, label=item.label or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        rt: Any = interaction.client.kwx  # type: ignore[attr-defined]  # a Runtime (cogs.runtime would be circular)
        lang = rt.languages.of(interaction.guild_id)
        guild = str(interaction.guild_id)
        proof = await hand_proof(rt.store, guild, self.table_id, self.hand_no)
        if proof is None:
            await safe_respond(interaction, content=tr("verify.unknown", lang), ephemeral=True)
            return
        await safe_respond(interaction, embed=proof_embed(proof, self.table_id, guild, lang), ephemeral=True)


def proof_embed(proof: HandProof, table_id: int, guild: str, lang: str) -> discord.Embed:
    """The commitment, the seed, and the commands that check one against the other and replay the hand."""
    log = f"hand-{proof.hand_id}.json"
    check = f"python -m kwx verify {proof.seed} --ref {proof.seed_ref}"
    replay = (f"python -m kwx ledger hand {proof.hand_id} --server {guild} --actions > {log}\n"
              f"{check} --actions {log}")
    lines = [tr("verify.commitment", lang), f"`{proof.seed_ref}`", tr("verify.seed", lang), f"`{proof.seed}`",
             tr("verify.check", lang), code_block(check), tr("verify.replay", lang), code_block(replay)]
    embed = discord.Embed(title=tr("verify.title", lang, hand=proof.hand_no, table=table_id),
                          description="\n".join(lines), colour=discord.Colour.dark_grey())
    embed.set_footer(text=tr("verify.footer", lang, hand_id=proof.hand_id))
    return embed


def verify_view(table_id: int, hand_no: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(VerifyButton(table_id, hand_no, label=tr("result.verify", lang)))
    view.stop()  # the dynamic item answers presses; no view timer needed
    return view
