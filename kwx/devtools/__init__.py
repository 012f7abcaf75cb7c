"""Tools for developing and testing the bot without Discord: Discord's payload limits (`limits`) and a loopback
Discord server (`loopback`). Nothing here imports discord.py: the loopback is a server, and the limits are
plain data checks shared by the server and the in-process fake the unit tests use."""
