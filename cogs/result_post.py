"""A hand's result post: who won and how, every payment with its formula, each hand, the table totals, the
winning hands as pictures and the 🔍 verify button. Pure rendering over the service's ResultView, like
cogs/board.py, whose helpers it shares.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import discord

from cogs.board import COLOR_DONE, COLOR_WIN, add_lines_field, fitted, footer, hand_text, player_name
from cogs.emoji import TileFormatter
from cogs.verify import verify_view
from kwx.present.formula import payment_formula
from kwx.present.hand_row import MeldArt, render_hand
from kwx.present.i18n import catalog, pattern_name, tr
from kwx.present.numbers import signed_points
from kwx.table.views import MeldView, PaymentView, PublicView, ResultView, RevealedHand, WinnerView


def _winner_tiles(win: WinnerView, hands: Sequence[RevealedHand]) -> tuple[list[int], tuple[MeldView, ...]]:
    """The winner's concealed tiles without the winning tile, and melds, from the end-of-hand reveal."""
    revealed = next((h for h in hands if h.seat == win.seat), None)
    if revealed is None:
        return [], ()
    tiles = [int(x) for x in revealed.concealed]
    if len(tiles) % 3 == 2 and int(win.win_tile) in tiles:  # the reveal holds the winning tile too
        tiles.remove(int(win.win_tile))
    return tiles, revealed.melds


def result_embeds(result: ResultView, view: PublicView, lang: str, fmt: TileFormatter,
                  image_names: Sequence[str] = ()) -> list[discord.Embed]:
    players = {s.seat: s.player for s in view.seats}

    def name(seat: int | None) -> str:
        return player_name(players[seat], lang) if seat in players else "?"

    def build(f: TileFormatter) -> list[discord.Embed]:
        desc: list[str] = []
        for win in result.winners:
            if win.self_draw:
                desc.append("**" + tr("result.win_zimo", lang, player=name(win.seat)) + "**")
            else:
                desc.append("**" + tr("result.win_discard", lang, player=name(win.seat),
                                     discarder=name(win.from_seat)) + "**")
            patterns = tr("common.list_sep", lang).join(
                tr("result.pattern_line", lang, name=pattern_name(pid, lang), mult=mult) for pid, mult in win.patterns)
            desc.append(tr("result.fan", lang, fan=win.fan) + " · " + tr("result.patterns", lang, patterns=patterns))
            tiles, melds = _winner_tiles(win, result.hands)
            desc.append(tr("result.hand", lang, hand=tr("result.hand_and_win", lang, hand=hand_text(tiles, melds, f, lang),
                                                      tile=f.tile(win.win_tile))))
        if not result.winners:
            desc.append("**" + tr("result.draw", lang) + "**")
        embed = discord.Embed(title=tr("result.title", lang, hand=result.hand_no), description="\n".join(desc),
                              colour=COLOR_WIN if result.winners else COLOR_DONE)
        pay_lines = [payment_line(p, result, view, lang) for p in result.payments] or [tr("common.none", lang)]
        add_lines_field(embed, tr("result.payments", lang), pay_lines)
        for h in result.hands:
            net = result.net[h.seat] if h.seat < len(result.net) else 0
            add_lines_field(embed, tr("result.hand_net", lang, player=name(h.seat), net=signed_points(net)),
                            [hand_text(h.concealed, h.melds, f, lang)])
        balances = [tr("result.balance_line", lang, player=name(seat), amount=signed_points(score))
                    for seat, score in enumerate(result.scores)]
        add_lines_field(embed, tr("result.table_total", lang), balances)
        if result.next_dealer is not None and result.next_dealer in players:
            embed.add_field(name="\u200b", value=tr("result.next_dealer", lang, player=name(result.next_dealer)),
                            inline=False)
        embed.set_footer(text=footer(result.table_id, result.hand_no, lang))  # the seed: behind 🔍 (cogs/verify.py)
        embeds = [embed]
        for i, filename in enumerate(image_names):
            target = embed if i == 0 else discord.Embed(colour=COLOR_WIN)
            target.set_image(url=f"attachment://{filename}")
            if i:
                embeds.append(target)
        return embeds

    return fitted(build, fmt)


def payment_line(p: PaymentView, result: ResultView, view: PublicView, lang: str) -> str:
    """"bob → alice：底 1 × 2 番 × 包胡 2 = 4": who paid whom, and how the amount was reached (or, where the
    result cannot show that, the amount and its reason)."""
    seat_of = {s.player.player_id: s for s in view.seats}
    fans = {w.player.player_id: w.fan for w in result.winners}
    payer, payee = seat_of.get(p.from_player.player_id), seat_of.get(p.to_player.player_id)
    piao = (payer.piao, payee.piao) if payer is not None and payee is not None else None
    formula = payment_formula(p.reason, p.amount, view.base, lang, fan=fans.get(p.to_player.player_id), piao=piao)
    names = {"payer": player_name(p.from_player, lang), "payee": player_name(p.to_player, lang)}
    if formula is None:
        return tr("result.payment_line", lang, **names, amount=p.amount, reason=verb_payment(p.reason, lang))
    return tr("result.formula_line", lang, **names, formula=formula, amount=p.amount)


def result_buttons(result: ResultView, lang: str) -> discord.ui.View | None:
    """🔍 Verify shuffle under a result: the seed and commitment, privately, for whoever asks."""
    return verify_view(result.table_id, result.hand_no, lang) if result.seed else None


def verb_payment(reason: str, lang: str) -> str:
    key = f"payment.{reason}"
    return tr(key, lang) if catalog().template(key, lang) is not None else reason


def winner_images(result: ResultView) -> list[tuple[str, bytes]]:
    """PNG pictures of each winning hand (file name, bytes); call off the event loop (Pillow is CPU work)."""
    out = []
    for win in result.winners[:2]:
        tiles, melds = _winner_tiles(win, result.hands)
        art = [MeldArt((int(m.tile),) * (3 if m.kind == "pung" else 4), m.kind == "ankong")
               for m in melds if m.tile is not None]
        out.append((f"hand-{result.hand_no}-{win.seat}.png", render_hand(tiles, art, int(win.win_tile))))
    return out


def files_of(images: Sequence[tuple[str, bytes]]) -> list[discord.File]:
    return [discord.File(io.BytesIO(data), filename=name) for name, data in images]
