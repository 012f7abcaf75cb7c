"""The loopback's REST routes, one per operation of Discord's OpenAPI description (by its operationId): each
reads and changes the model as Discord would, and notes on the exchange what it touched. The checks every
request goes through first (authorization, rate limits, faults, the body's schema) are kwx.devtools.loopback.rest's.
"""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Callable
from typing import Any

from kwx.devtools import limits
from kwx.devtools.loopback.calls import Exchange, HTTPError, invalid_form, unknown
from kwx.devtools.loopback.model import (
    ALL_PERMISSIONS,
    ATTACH_FILES,
    EMBED_LINKS,
    EPHEMERAL,
    LOADING,
    SEND_IN_THREADS,
    SEND_MESSAGES,
    THREAD_TYPES,
    VIEW_CHANNEL,
    DiscordModel,
    Interaction,
    Message,
    json_copy,
)

ENTRY_POINT = 4  # the application command type of an Activity's entry point (PRIMARY_ENTRY_POINT)


class Routes:
    def __init__(self, model: DiscordModel, *, gateway_url: Callable[[], str] = lambda: "", shards: int = 1) -> None:
        self.model = model
        self.gateway_url = gateway_url
        self.shards = shards
        self.table: dict[str, Callable[[Exchange], Any]] = {
            "get_my_user": self._me,
            "applications_get_activity_instance": self._activity_instance,
            "get_my_oauth2_application": self._application,
            "get_my_application": self._application,
            "get_bot_gateway": self._gateway_bot,
            "get_gateway": lambda ex: {"url": self.gateway_url()},
            "create_dm": self._open_dm,
            "get_user": self._get_user,
            "get_channel": lambda ex: self._channel(ex.params["channel_id"]),
            "create_message": self._send,
            "get_message": self._get_message,
            "update_message": self._edit,
            "delete_message": self._delete,
            "trigger_typing_indicator": lambda ex: None,
            "list_application_emojis": lambda ex: {"items": list(self.model.emojis.values())},
            "create_application_emoji": self._create_emoji,
            "delete_application_emoji": self._delete_emoji,
            "list_application_commands": lambda ex: self._commands(None),
            "bulk_set_application_commands": self._sync,
            "list_guild_application_commands": lambda ex: self._commands(int(ex.params["guild_id"])),
            "bulk_set_guild_application_commands": self._sync,
            "create_interaction_response": self._callback,
            "get_original_webhook_message": lambda ex: json_copy(self._original(ex).payload),
            "update_original_webhook_message": self._edit_original,
            "delete_original_webhook_message": self._delete_original,
            "execute_webhook": self._followup,
            "update_webhook_message": self._edit_followup,
            "delete_webhook_message": self._delete_followup,
        }

    # == routes: the bot, the application, the gateway =======================================================
    def _application(self, ex: Exchange) -> dict[str, Any]:
        bot = self.model.bot_user
        return {"id": str(self.model.APP_ID), "name": bot["username"], "icon": None, "description": "",
                "bot_public": True, "bot_require_code_grant": False, "verify_key": "0" * 64, "flags": 0,
                "owner": {"id": "1", "username": "owner", "discriminator": "0", "avatar": None}, "team": None,
                "summary": "", "rpc_origins": [], "bot": bot, "interactions_endpoint_url": None}

    def _me(self, ex: Exchange) -> dict[str, Any]:
        """The bot, or with an OAuth2 bearer token the user it was given to."""
        if ex.bearer_user is None:
            return self.model.bot_user
        return self.model.users[ex.bearer_user]

    def _activity_instance(self, ex: Exchange) -> dict[str, Any]:
        instance = self.model.activities.instances.get(ex.params["instance_id"])
        if instance is None or ex.params["application_id"] != str(self.model.APP_ID):
            raise unknown("Activity Instance", 10_095)
        return json_copy(instance)

    def _gateway_bot(self, ex: Exchange) -> dict[str, Any]:
        return {"url": self.gateway_url(), "shards": self.shards,
                "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}}

    def _get_user(self, ex: Exchange) -> dict[str, Any]:
        user = self.model.users.get(int(ex.params["user_id"]))
        if user is None:
            raise unknown("User", 10013)
        return user

    def _channel(self, channel_id: str | int) -> dict[str, Any]:
        model, cid = self.model, int(channel_id)
        if cid in model.dm_channels:
            return {"id": str(cid), "type": 1, "recipients": [model.users[model.dm_channels[cid]]],
                    "last_message_id": None}
        ch = model.channels.get(cid)
        if ch is None:
            raise unknown("Channel", 10003)
        if model.guilds[int(ch["guild_id"])]["removed"]:
            raise HTTPError(403, 50001, "Missing Access")
        return ch

    def _open_dm(self, ex: Exchange) -> dict[str, Any]:
        model = self.model
        uid = int(ex.request.body["recipient_id"])
        if uid not in model.users:
            raise HTTPError(400, 50033, "Invalid Recipient(s)")
        cid = next((c for c, u in model.dm_channels.items() if u == uid), None) or model.snowflake()
        model.dm_channels[cid] = uid
        return {"id": str(cid), "type": 1, "recipients": [model.users[uid]], "last_message_id": None}

    # == routes: messages ====================================================================================
    def _check_message(self, ex: Exchange, *, new: bool, limit: int) -> None:
        files = ex.request.files
        if limits.upload_errors((len(d) for _, d in files), limit):
            raise HTTPError(413, limits.ENTITY_TOO_LARGE, "Request entity too large", limits.entity_too_large(limit))
        if new and limits.is_empty_message(ex.request.body, len(files)):
            raise HTTPError(400, limits.EMPTY_MESSAGE, "Cannot send an empty message")

    def _send(self, ex: Exchange) -> dict[str, Any]:
        model, body, files = self.model, ex.request.body or {}, ex.request.files
        cid = int(ex.params["channel_id"])
        self._channel(cid)
        dm_user = model.dm_channels.get(cid)
        if dm_user is not None and dm_user in model.closed_dms:
            raise HTTPError(403, 50007, "Cannot send messages to this user")
        if dm_user is None:
            perms = model.bot_permissions.get(cid, ALL_PERMISSIONS)
            if not perms & VIEW_CHANNEL:
                raise HTTPError(403, 50001, "Missing Access")
            thread = model.channels[cid]["type"] in THREAD_TYPES
            if not perms & (SEND_IN_THREADS if thread else SEND_MESSAGES):
                raise HTTPError(403, 50013, "Missing Permissions")
            if body.get("embeds") and not perms & EMBED_LINKS or files and not perms & ATTACH_FILES:
                raise HTTPError(403, 50013, "Missing Permissions")
        self._check_message(ex, new=True, limit=limits.UPLOAD_LIMIT)
        ex.message = model.new_message(cid, body, files)
        model.message_changed(ex.message, True)
        return json_copy(ex.message.payload)

    def _live(self, message_id: str | int | None) -> Message:
        m = self.model.messages.get(int(message_id or 0))
        if m is None or m.deleted:
            raise unknown("Message", 10008)
        return m

    def _get_message(self, ex: Exchange) -> dict[str, Any]:
        self._channel(ex.params["channel_id"])
        return json_copy(self._live(ex.params["message_id"]).payload)

    def _edit_stored(self, ex: Exchange, m: Message, *, limit: int | None = None) -> dict[str, Any]:
        self._check_message(ex, new=False, limit=limit or self.model.upload_limit)
        ex.message = m
        self.model.edit(m, ex.request.body, ex.request.files)
        return json_copy(m.payload)

    def _edit(self, ex: Exchange) -> dict[str, Any]:
        cid = ex.params["channel_id"]
        self._channel(cid)
        m = self._live(ex.params["message_id"])
        if m.dm_to is None and not self.model.bot_permissions.get(int(cid), ALL_PERMISSIONS) & VIEW_CHANNEL:
            raise HTTPError(403, 50001, "Missing Access")
        return self._edit_stored(ex, m, limit=limits.UPLOAD_LIMIT)

    def _delete(self, ex: Exchange) -> None:
        self._channel(ex.params["channel_id"])
        ex.message = self._live(ex.params["message_id"])
        ex.message.deleted = True

    # == routes: emojis and commands =========================================================================
    def _create_emoji(self, ex: Exchange) -> dict[str, Any]:
        model, body = self.model, ex.request.body
        name = body.get("name") or ""
        if not re.fullmatch(r"\w{2,32}", name):
            raise invalid_form({"name": {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH",
                                                       "message": "Must be between 2 and 32 in length."}]}})
        if any(e["name"] == name for e in model.emojis.values()):
            raise HTTPError(400, 50035, "Invalid Form Body", limits.invalid_form_body(
                {"name": {"_errors": [{"code": "APPLICATION_EMOJI_NAME_ALREADY_TAKEN",
                                       "message": "Emoji name already taken."}]}}))
        image = body.get("image") or ""
        if not image.startswith("data:image/") or len(image) * 3 // 4 > limits.EMOJI_IMAGE_MAX + 200:
            raise HTTPError(400, 50045, "File cannot be larger than 256.0 kb")
        eid = model.snowflake()
        model.emoji_images[eid] = base64.b64decode(image.split(",", 1)[1])
        model.emojis[eid] = {"id": str(eid), "name": name, "roles": [], "require_colons": True, "managed": False,
                             "animated": False, "available": True, "user": model.bot_user}
        return model.emojis[eid]

    def _delete_emoji(self, ex: Exchange) -> None:
        if self.model.emojis.pop(int(ex.params["emoji_id"]), None) is None:
            raise unknown("Emoji", 10014)

    def _command_object(self, cmd: dict[str, Any], gid: int | None, ids: dict[str, str]) -> dict[str, Any]:
        """A command as Discord returns it: the body sent, with its id (kept across syncs) and defaults."""
        return ({"application_id": str(self.model.APP_ID), "version": str(self.model.snowflake()),
                 "default_member_permissions": None, "dm_permission": True, "nsfw": False, "description": "",
                 "options": [], "type": 1} | cmd
                | {"id": cmd.get("id") or ids.get(cmd["name"]) or str(self.model.snowflake())}
                | ({"guild_id": str(gid)} if gid else {}))

    def _commands(self, gid: int | None) -> list[dict[str, Any]]:
        stored = self.model.commands.get(gid, [])
        self.model.commands[gid] = [self._command_object(c, gid, {}) for c in stored]
        return self.model.commands[gid]

    def _sync(self, ex: Exchange) -> list[dict[str, Any]]:
        gid = int(ex.params["guild_id"]) if "guild_id" in ex.params else None
        if gid is not None and gid not in self.model.guilds:
            raise HTTPError(403, 50001, "Missing Access")
        old = {c["name"]: c["id"] for c in self._commands(gid)}
        had_entry = any(int(c.get("type") or 1) == ENTRY_POINT for c in self._commands(gid))
        if gid is None and had_entry and not any(int(c.get("type") or 1) == ENTRY_POINT for c in ex.request.body or []):
            # An app with Activities keeps its entry point: a global overwrite without it is refused
            raise HTTPError(400, 50240, "You cannot remove this app's Primary Entry Point command.")
        self.model.commands[gid] = [self._command_object(cmd, gid, old) for cmd in ex.request.body or []]
        return self.model.commands[gid]

    # == routes: interactions ================================================================================
    def _interaction(self, ex: Exchange, *, webhook: bool) -> Interaction:
        token = ex.params.get("interaction_token") or ex.params["webhook_token"]
        rec = self.model.interaction(token, webhook=webhook)
        ex.interaction = rec or self.model.interactions.get(token)
        if rec is None:
            raise unknown("Webhook", 10015) if webhook else unknown("interaction", 10062)
        return rec

    def _callback(self, ex: Exchange) -> dict[str, Any] | None:
        model, body, files = self.model, ex.request.body or {}, ex.request.files
        inter = self._interaction(ex, webhook=False)
        if inter.response_type is not None:
            raise HTTPError(400, 40060, "Interaction has already been acknowledged.")
        if limits.upload_errors((len(d) for _, d in files), model.upload_limit):
            raise HTTPError(413, limits.ENTITY_TOO_LARGE, "Request entity too large",
                            limits.entity_too_large(model.upload_limit))
        rtype = int(body["type"])
        data = body.get("data") or {}
        if rtype == 4 and limits.is_empty_message(data, len(files)):
            raise HTTPError(400, limits.EMPTY_MESSAGE, "Cannot send an empty message")
        inter.response_type = rtype
        inter.ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        resource: dict[str, Any] = {"type": rtype}
        if rtype in (4, 5):  # a message, or "… is thinking" that a followup or an edit fills
            flags = int(data.get("flags") or 0)
            shown = data if rtype == 4 else {"flags": flags | LOADING}
            ex.message = model.new_message(inter.channel_id, shown, files if rtype == 4 else [], interaction=inter)
            inter.original_id = ex.message.id
            inter.loading = rtype == 5
            resource["message"] = json_copy(ex.message.payload)
        elif rtype == 6:
            inter.original_id = inter.message_id
        elif rtype == 12:  # LAUNCH_ACTIVITY: the presser's client opens the Activity in that channel
            instance = model.activities.launch(inter.user_id, inter.channel_id, inter.guild_id)
            resource["activity_instance"] = {"id": instance["instance_id"]}
        elif rtype == 7:
            inter.original_id = inter.message_id
            m = self._live(inter.message_id)
            ex.message = m
            model.edit(m, data, files)
            resource["message"] = json_copy(m.payload)
        inter.answered_at = time.monotonic()
        inter.answered.set()
        model.message_changed(ex.message if rtype == 4 else None, True)
        if ex.request.query.get("with_response") not in ("true", "True", "1"):
            return None
        return {"interaction": {"id": str(inter.id), "type": inter.type,
                                "response_message_id": str(inter.original_id) if inter.original_id else None,
                                "response_message_loading": rtype == 5,
                                "response_message_ephemeral": inter.ephemeral},
                "resource": resource}

    def _original(self, ex: Exchange) -> Message:
        inter = self._interaction(ex, webhook=True)
        if inter.original_id is None:
            raise unknown("Message", 10008)
        return self._live(inter.original_id)

    def _edit_original(self, ex: Exchange) -> dict[str, Any]:
        m = self._original(ex)
        inter = ex.interaction
        assert inter is not None
        if inter.loading:  # editing the thinking message turns it into the answer
            inter.loading = False
            m.payload["flags"] = int(m.payload.get("flags") or 0) & ~LOADING
        return self._edit_stored(ex, m)

    def _delete_original(self, ex: Exchange) -> None:
        ex.message = self._original(ex)
        ex.message.deleted = True

    def _followup(self, ex: Exchange) -> dict[str, Any]:
        model, body, files = self.model, ex.request.body or {}, ex.request.files
        inter = self._interaction(ex, webhook=True)
        if inter.response_type is None:  # Discord knows no webhook for an unanswered interaction
            raise unknown("Webhook", 10015)
        self._check_message(ex, new=True, limit=model.upload_limit)
        if inter.loading:  # the first followup after a thinking deferral fills that message
            inter.loading = False
            m = self._live(inter.original_id)
            flags = int(m.payload.get("flags") or 0) & ~LOADING  # ephemeral was decided when deferring
            model.apply(m.payload, body, files)
            m.payload["flags"] = flags
            model.message_changed(m, False)
        else:
            m = model.new_message(inter.channel_id, body, files, interaction=inter)
            model.message_changed(m, True)
        ex.message = m
        return json_copy(m.payload)

    def _edit_followup(self, ex: Exchange) -> dict[str, Any]:
        self._interaction(ex, webhook=True)
        return self._edit_stored(ex, self._live(ex.params["message_id"]))

    def _delete_followup(self, ex: Exchange) -> None:
        self._interaction(ex, webhook=True)
        ex.message = self._live(ex.params["message_id"])
        ex.message.deleted = True
