"""What a member looks up is answered to them alone; 📤 Share posts that same answer for the channel."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from cogs.fake_discord import Sent
from kwx.present.i18n import tr
from tests.support.ledger_kit import LedgerKit, block_rows, close_kit, ledger_kit, no_pings, play

LOOKUPS = [("kwx balance", {}), ("kwx leaderboard", {"period": "week"}), ("kwx history", {}), ("kwx stats", {}),
           ("kwx chart", {}), ("kwx rules", {})]


@pytest.fixture
async def kit(tmp_path) -> AsyncIterator[LedgerKit]:
    k = await ledger_kit(tmp_path)
    yield k
    await close_kit(k)


def answer_of(records: list[Sent]) -> Sent:
    return next(r for r in records if r.kind in ("response", "followup") and r.embeds)


def share_button_of(sent: Sent) -> str:
    (button,) = [b for b in sent.buttons if (b.custom_id or "").startswith("kwx:share:")]
    assert button.label == tr("share.button") and button.emoji == "📤"
    return button.custom_id or ""


@pytest.mark.parametrize(("command", "options"), LOOKUPS)
async def test_a_lookup_is_seen_by_the_asker_alone_and_share_posts_it_for_everyone(kit: LedgerKit, command: str,
                                                                                    options: dict[str, str]) -> None:
    await play(kit, kit.alice, kit.bob, kit.carol, fan=4, self_draw=True)
    channel = kit.world.channel.id
    out = await kit.slash(kit.alice, command, **options)
    answer = answer_of(out.records)
    assert answer.ephemeral and answer.visible_to(kit.alice.id) and not answer.visible_to(kit.bob.id)
    assert kit.fake.log.public(channel) == []  # nothing lands in the channel, above a table's board

    pressed = await kit.fake.press(kit.alice, answer, share_button_of(answer))
    (posted,) = kit.fake.log.public(channel)
    assert posted.visible_to(kit.bob.id) and posted.interaction_id == pressed.interaction.id
    assert posted.content == tr("share.by", member=kit.alice.mention) and no_pings(posted)
    shown, original = posted.embeds[0], answer.embeds[0]
    assert (shown.title, shown.description) == (original.title, original.description)
    assert [f.value for f in shown.fields] == [f.value for f in original.fields]
    assert bool(posted.files) == bool(answer.files)  # the chart is drawn again and attached
    assert not [b for b in posted.buttons if (b.custom_id or "").startswith("kwx:")]  # a snapshot: no buttons


async def test_share_posts_the_page_being_read(kit: LedgerKit) -> None:
    ids = [await play(kit, kit.alice, kit.bob, fan=2) for _ in range(12)]
    first = answer_of((await kit.slash(kit.alice, "kwx history")).records)
    turned = await kit.fake.press(kit.alice, first, label="▶")
    page2 = kit.fake.message(first)
    assert [r[1] for r in block_rows(page2.embeds[0].description)] == [f"#{i}" for i in reversed(ids[:2])]
    assert turned.records[0].ephemeral
    share = next(c.custom_id for c in page2.components if (c.custom_id or "").startswith("kwx:share:"))
    await kit.fake.press(kit.alice, page2, share)
    (posted,) = kit.fake.log.public(kit.world.channel.id)
    assert [r[1] for r in block_rows(posted.embeds[0].description)] == [f"#{i}" for i in reversed(ids[:2])]


async def test_sharing_a_chart_is_limited_like_drawing_one(kit: LedgerKit) -> None:
    """A chart is drawn again when shared: no more often than /kwx chart itself (two per 30 s a member)."""
    await play(kit, kit.alice, kit.bob, fan=2)
    answer = answer_of((await kit.slash(kit.alice, "kwx chart")).records)
    share = share_button_of(answer)
    for _ in range(2):
        await kit.fake.press(kit.alice, answer, share)
    refused = await kit.fake.press(kit.alice, answer, share)
    assert len(kit.fake.log.public(kit.world.channel.id)) == 2
    (note,) = [r for r in refused.records if r.kind == "response"]
    assert note.ephemeral and tr("input.cooldown", command="kwx chart", seconds=30).split("30")[0] in note.text
