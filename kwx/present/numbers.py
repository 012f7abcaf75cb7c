"""Signed numbers as players read them, one way in every front end: a true minus sign (U+2212, as wide as
the plus) on the board, the result, the DMs and the terminal alike."""

from __future__ import annotations

MINUS = "\u2212"


def signed_points(points: int) -> str:
    """A table score or a hand's net: "+3", "−2", "0"."""
    return f"+{points}" if points > 0 else f"{MINUS}{-points}" if points < 0 else "0"
