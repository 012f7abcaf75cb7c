"""Every slash option is checked by the bot itself (discord.py enforces no Range, choices, max_length or
guild_only on what it receives): a value outside what the command declares gets a private, clear refusal that
echoes only a short excerpt, and nothing changes."""

from __future__ import annotations

from collections.abc import AsyncIterator

import discord
import pytest
from discord import app_commands

from cogs.inputs import DISCORD_INT_LIMIT, Refusal, check_option, excerpt, option_name, safe_text
from kwx.engine.rules import PRESETS
from kwx.present.i18n import tr
from tests.support.ledger_kit import EXTENSIONS, LedgerKit, close_kit, ledger_kit


@pytest.fixture
async def kit(tmp_path) -> AsyncIterator[LedgerKit]:
    k = await ledger_kit(tmp_path, extensions=(*EXTENSIONS, "cogs.tables"))
    yield k
    await close_kit(k)


def refused(out, key: str, **fmt) -> bool:
    first = out.records[0]
    return first.ephemeral and tr(key, **fmt) in out.text and len(out.records) == 1


def shown(command: app_commands.Command, param: app_commands.Parameter) -> str:
    """The option's name as a zh-CN client shows it (the kit's server speaks zh-CN)."""
    return option_name(command, param, "zh-CN")


def kwx_commands(kit: LedgerKit) -> list[app_commands.Command]:
    """Every command under /kwx and /kwx-admin."""
    found = []
    for name in ("kwx", "kwx-admin"):
        group = kit.bot.tree.get_command(name)
        assert isinstance(group, app_commands.Group)
        found += [c for c in group.walk_commands() if isinstance(c, app_commands.Command)]
    return found


async def test_record_with_a_negative_base_or_an_unknown_preset_is_refused_privately(kit: LedgerKit) -> None:
    out = await kit.slash(kit.alice, "kwx record", winner=kit.alice, payer=kit.bob, fan=2, base=-7)
    assert refused(out, "input.range", option="底分", lo=1, hi=100000, value=excerpt(-7))
    out = await kit.slash(kit.alice, "kwx record", winner=kit.alice, payer=kit.bob, fan=2, rules="house-rules")
    assert refused(out, "input.choice", option="规则", value="house-rules",
                   choices=", ".join(PRESETS))
    assert await kit.store.entries(kit.guild) == []


@pytest.mark.parametrize("amount", [float("nan"), 1.9, 2.0, float("inf"), True, "5"])
async def test_a_payment_of_the_wrong_kind_is_refused_privately_and_opens_nothing(kit: LedgerKit, amount) -> None:
    """NaN raised ValueError (no reply at all) and 1.9 opened a request for 1."""
    out = await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=amount)
    assert refused(out, "ledger.error.amount", max="1,000,000"), out.text
    assert not [m for m in kit.fake.channel_messages(kit.world.channel.id) if m.components]  # no request
    assert await kit.store.entries(kit.guild) == []


def test_a_user_who_is_not_a_member_of_the_server_is_refused(kit: LedgerKit) -> None:
    """A user option Discord sends without member data (a user who left) reached discord.py's Member
    transformer, which raised: a traceback in the log and no reply."""
    pay = next(c for c in kwx_commands(kit) if c.name == "pay")
    member = next(p for p in pay.parameters if p.name == "member")
    user = discord.User(state=kit.fake.state, data={"id": "77", "username": "gone", "discriminator": "0",
                                                    "global_name": None, "avatar": None})
    for value in (user, discord.Object(77)):
        assert check_option(member, value, "成员") == Refusal("input.not_member", {"option": "成员"})
    assert check_option(member, kit.bob) is None


async def test_ledger_commands_in_a_dm_are_refused_instead_of_reading_a_ledger_keyed_none(kit: LedgerKit) -> None:
    await kit.store.transfer("None", "x", str(kit.alice.id), 5, by="x")  # what a ledger keyed "None" would show
    dm = discord.Object(kit.fake.snowflake())
    for command in ("kwx balance", "kwx stats", "kwx chart", "kwx-admin export", "kwx rules", "kwx new"):
        out = await kit.slash(kit.alice, command, channel=dm)
        assert refused(out, "input.guild_only"), command
        assert "5" not in out.text


async def test_every_declared_bound_is_enforced_by_the_bot(kit: LedgerKit) -> None:
    """For each integer option of every /kwx and /kwx-admin command: one past each bound is refused, privately, naming it."""
    checked = 0
    for command in kwx_commands(kit):
        for param in command.parameters:
            if param.type is not discord.AppCommandOptionType.integer:
                continue
            lo = -DISCORD_INT_LIMIT if param.min_value is None else int(param.min_value)
            hi = DISCORD_INT_LIMIT if param.max_value is None else int(param.max_value)
            if param.name in getattr(command.callback, "__kwx_checks_itself__", ()):
                continue  # the command says it in its own words (its own tests cover it)
            for bad in (lo - 1, hi + 1):
                out = await kit.slash(kit.dave, command.qualified_name, **{param.name: bad})
                assert refused(out, "input.range", option=shown(command, param), lo=lo, hi=hi,
                               value=excerpt(bad)), (command.name, param.name, bad, out.text)
                checked += 1
    assert checked >= 10
    assert await kit.store.entries(kit.guild) == []


async def test_every_choice_and_every_string_length_is_enforced_by_the_bot(kit: LedgerKit) -> None:
    choices = lengths = 0
    for command in kwx_commands(kit):
        for param in command.parameters:
            if param.name in getattr(command.callback, "__kwx_checks_itself__", ()):
                continue
            if param.choices:
                out = await kit.slash(kit.dave, command.qualified_name, **{param.name: "not-a-choice"})
                assert refused(out, "input.choice", option=shown(command, param), value="not-a-choice",
                               choices=", ".join(str(c.value) for c in param.choices)), (command.name, param.name)
                choices += 1
            elif param.type is discord.AppCommandOptionType.string:
                assert param.max_value is not None, f"/{command.qualified_name} {param.name} needs a max_length"
                typed = "`" * 3 + "x" * 5000
                out = await kit.slash(kit.dave, command.qualified_name, **{param.name: typed})
                assert refused(out, "input.too_long", option=shown(command, param), max=int(param.max_value),
                               length=len(typed)), (command.name, param.name)
                assert len(out.text) < 300  # the reply never echoes the whole of what was typed
                lengths += 1
    assert choices >= 5 and lengths >= 8
    assert await kit.store.entries(kit.guild) == []


async def test_a_long_note_is_refused_and_a_fitting_one_is_shown_escaped(kit: LedgerKit) -> None:
    out = await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=3, note="n" * 201)
    assert refused(out, "input.too_long", option="备注", max=200, length=201)
    out = await kit.slash(kit.alice, "kwx pay", member=kit.bob, amount=3, note="```js\n**x** @everyone")
    text = out.records[0].embeds[0].description
    assert "```" not in text and safe_text("```js **x** @everyone") in text


def test_excerpts_are_short_single_line_and_escaped() -> None:
    assert excerpt("a" * 500) == "a" * 23 + "…"
    assert excerpt("line\nbreak **bold**") == "line break \\*\\*bold\\*\\*"
    assert "@everyone" not in excerpt("@everyone")
