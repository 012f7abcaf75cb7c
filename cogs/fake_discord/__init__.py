"""A Discord for the tests and benchmarks: real discord.py objects talking to the loopback Discord in the same process.

dpytest cannot drive slash commands or buttons; this can. It is the loopback Discord of kwx.devtools.loopback
(its model, its REST routes, Discord's OpenAPI description checking every body) reached without sockets: the
aiohttp session discord.py sends every REST call through, interactions included, is replaced by the loopback's
in-process transport (kwx.devtools.loopback.inprocess). So the code under test runs discord.py's real
`Interaction`, `View`, `DynamicItem`, `CommandTree` and HTTP code, including its errors (a second
`response.send_message` raises `InteractionResponded`, a followup before any response is refused like Discord
refuses it, an edit of a deleted message raises `NotFound`, a DM to a player who closed DMs raises `Forbidden`
50007, a body Discord's description refuses raises 400 / 50035). What the bot sent lands in `FakeDiscord.log`
as `Sent` records; the messages as they stand are in `FakeDiscord.messages`.

Interactions reach the bot as the gateway would hand them over: this driver builds the INTERACTION_CREATE
payload from the client's command tree (no sync needed) or from a stored message's buttons, and dispatches it.

Typical use::

    fake = await FakeDiscord.create(bot)           # bot: any discord.Client (commands.Bot has a tree)
    guild = fake.add_guild()
    channel = fake.add_text_channel(guild)
    alice = fake.add_member(guild, name="alice")
    bob = fake.add_member(guild, name="bob", dms_open=False)
    out = await fake.slash(alice, channel, "kwx join")                  # runs the real app command
    out = await fake.press(bob, out.records[0], label="碰")             # presses a button on that message
    assert fake.log.refused(user_id=bob.id)                              # bob's DM was refused
    await fake.close()

`make_world(client, closed_dms=("bob",))` builds that server, channel and members in one call.
"""

from cogs.fake_discord.driver import (
           MEMBER_PERMISSIONS,
           FakeDiscord,
           Outcome,
           StoredMessage,
           World,
           make_world,
)
from cogs.fake_discord.errors import discord_error, off_spec_error
from cogs.fake_discord.sent import Recorder, Sent, SentFile
from kwx.devtools.loopback.model import Component, components_of

__all__ = ["MEMBER_PERMISSIONS", "Component", "FakeDiscord", "Outcome", "Recorder", "Sent", "SentFile",
           "StoredMessage", "World", "components_of", "discord_error", "make_world", "off_spec_error"]
