"""Signed numbers as players read them, one way in every front end."""

from __future__ import annotations


def signed_points(points: int) -> str:
    """A table score or a hand's net: "+3", "-2", "0"."""
    return f"+{points}" if points > 0 else str(points)
