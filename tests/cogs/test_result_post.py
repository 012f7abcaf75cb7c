"""A hand's result post as a player reads it: how each amount was reached, this hand's net apart from the table's
running total, and the shuffle's seed behind 🔍 instead of in the footer. Also the lobby's and the AI seats'
wording."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest

from cogs.fake_discord.kit import Kit, alice_played_a_hand, bot_kit, seat_table
from kwx.engine.seeds import check_reveal
from kwx.present.i18n import tr

HEX_RUN = re.compile(r"[0-9a-f]{16,}")
PAYMENT = re.compile(r"^.+? → .+?：(?P<formula>底 \d+(?: × [^×=]+)*) = \*\*(?P<amount>\d+)\*\*$")


def product(formula: str) -> int:
    """底 1 × 2 番 × 包胡 2 -> 4; 漂 (1+2) counts as 3."""
    out = 1
    for factor in formula.split(" × "):
        numbers = [int(n) for n in re.findall(r"\d+", factor)]
        out *= sum(numbers) if "(" in factor else numbers[-1]
    return out


@pytest.fixture
async def kit(tmp_path) -> AsyncIterator[Kit]:
    async with bot_kit(tmp_path) as k:
        yield k


async def test_each_payment_shows_its_formula_and_the_hand_net_is_told_from_the_table_total(kit: Kit) -> None:
    await alice_played_a_hand(kit)
    (result,) = kit.results()
    embed = result.embeds[0]
    fields = {f.name: f.value for f in embed.fields}
    fans = [int(x) for x in re.findall(r"(\d+) 番 · 牌型", embed.description or "")]
    lines = fields[tr("result.payments")].splitlines()
    assert lines and fans
    for line in lines:  # every amount with the multiplication that gives it: the win's at the winner's fan
        found = PAYMENT.match(line)
        assert found and product(found["formula"]) == int(found["amount"]), line
        fan = re.search(r"(\d+) 番", found["formula"])
        assert fan is None or int(fan[1]) in fans
    assert any("番" in line for line in lines)
    hand_fields = [name for name in fields if " · 本局 " in name]
    assert len(hand_fields) == 3  # each seat's hand, headed by this hand's net
    totals = fields[tr("result.table_total")]
    assert tr("result.table_total") == tr("local.table_total") == "本桌累计" and len(totals.splitlines()) == 3  # as the terminal says


async def test_the_seed_is_behind_verify_which_answers_privately(kit: Kit) -> None:
    table = await alice_played_a_hand(kit)
    (result,) = kit.results()
    assert not HEX_RUN.search(result.embeds[0].footer.text or "")  # no seed or commitment under every hand
    verify = next(c for c in result.components if (c.custom_id or "").startswith("kwx:vfy:"))
    assert verify.label == tr("result.verify") and verify.emoji == "🔍"

    out = await kit.press_id(kit.bob, result, verify.custom_id or "")  # anyone in the server may ask
    (answer,) = [r for r in out.records if r.kind == "response"]
    assert answer.ephemeral and answer.visible_to(kit.bob.id) and not answer.visible_to(kit.alice.id)
    text = answer.text
    hand_id = await kit.rt.store.hand_id(table, 1)
    log = await kit.rt.store.hand_log(str(kit.world.guild.id), hand_id)
    assert log["seed_ref"] in text
    seed = re.search(r"python -m kwx verify (\S+) --ref", text)
    assert seed and check_reveal(seed[1], log["seed_ref"])  # the seed shown is the hand's, by its commitment
    assert f"python -m kwx ledger hand {hand_id} " in text and f"#{hand_id}" in answer.embeds[0].footer.text


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
async def test_the_lobby_names_no_hand_and_ai_seats_say_ai_once(tmp_path, lang: str) -> None:
    async with bot_kit(tmp_path, locale=lang) as kit:
        await kit.rt.languages.set(kit.world.guild.id, lang)
        table = await seat_table(kit, [kit.alice], ais=2)
        (lobby,) = kit.table_messages()
        embed = kit.fake.message(lobby.id).embeds[0]
        assert embed.footer.text == tr("board.footer_table", lang, table=table)  # not "hand 0"
        assert embed.fields[0].value.splitlines() == ["1. alice", "2. AI 1", "3. AI 2"]
        assert embed.fields[-1].value.splitlines() == [tr("lobby.ai_added", lang, name=f"AI {n}") for n in (1, 2)]
        assert "AI AI" not in embed.fields[-1].value and "电脑 AI" not in embed.fields[-1].value
        assert tr("lobby.rules", lang, preset=tr("choice.standard", lang)) in (embed.description or "")
