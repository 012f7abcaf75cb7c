"""Everything a table derives from its secret seed: each hand's seed, the first dealer, the AI's 漂 picks.

The table seed (64 hex digits from `wall.new_seed`) is stored with the table and never shown. Hand k's seed
is SHA-256(domain ‖ table seed ‖ k), so the k-th hand is the same however a run is cut by restarts. What a
hand record shows (`seed_ref`) is a SHA-256 commitment to the hand seed, which reveals nothing of it.
"""

from __future__ import annotations

import hashlib

_HAND = b"kwx/hand/v1\x00"
_DEALER = b"kwx/first-dealer/v1\x00"
_PIAO = b"kwx/ai-piao/v1\x00"
_REF = b"kwx/seed-ref/v1\x00"


def _digest(domain: bytes, *parts: object) -> bytes:
    return hashlib.sha256(domain + b"\x00".join(str(p).encode("utf-8") for p in parts)).digest()


def hand_seed(table_seed: str, hand_no: int) -> str:
    """The seed of hand `hand_no` (1-based): feeds `wall_from_seed` and `dice_from_seed`."""
    return _digest(_HAND, table_seed, hand_no).hex()


def first_dealer(table_seed: str, players: int = 3) -> int:
    """Player 0…players−1 in lobby order (docs/rules.md §2: the first hand's dealer is chosen at random)."""
    return int.from_bytes(_digest(_DEALER, table_seed)[:8], "big") % players


def ai_piao(table_seed: str, hand_no: int, player_id: str, maximum: int) -> int:
    """An AI seat's 漂 pick, 0…maximum: fixed by the seed so a replay picks the same."""
    return int.from_bytes(_digest(_PIAO, table_seed, hand_no, player_id)[:8], "big") % (maximum + 1)


def seed_ref(table_seed: str, hand_no: int) -> str:
    """A public commitment to the hand's seed (for the ledger's `seed_ref`); it does not reveal the seed."""
    return "sha256:" + _digest(_REF, hand_seed(table_seed, hand_no)).hex()
