"""The Discord front end: cogs (slash commands, buttons), tile emojis, safe wrappers for Discord calls."""
