// The one piece of Discord's Embedded App SDK the table page needs, bundled by `make web` into
// kwx/web/static/discord-sdk.js (an IIFE that sets window.KwxDiscord), so a checkout needs no Node to run.
import { DiscordSDK, DiscordSDKMock } from "@discord/embedded-app-sdk";

window.KwxDiscord = { DiscordSDK, DiscordSDKMock };
