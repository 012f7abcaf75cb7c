"""Tools for developing and testing the bot without Discord: a loopback Discord (`loopback`) that a bot process
reaches over HTTP and the unit tests' fake reaches in-process, which checks every request body against Discord's
own OpenAPI description, and the limits of Discord's that the description cannot express (`limits`). Nothing
here imports discord.py."""
