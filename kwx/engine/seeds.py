"""Everything a table derives from its secret seed: each hand's seed, the first dealer, the AI's 漂 picks.

The table seed (64 hex digits from `wall.new_seed`) is stored with the table and never shown. Hand k's seed
is SHA-256(domain ‖ table seed ‖ k), so the k-th hand is the same however a run is cut by restarts. What a
hand record shows (`seed_ref`) is a SHA-256 commitment to the hand seed, which reveals nothing of it.

Verifiable shuffles: the result of each hand reveals that hand's seed (`reveal`), which anyone can check
against the commitment (`check_reveal`) and turn into the wall (`wall_from_seed`). Revealing hand k's seed
reveals nothing of hand k+1's (each is a one-way hash of the table seed, which never leaves the store). A
table seed a person chose (`--seed`) may be guessed; its commitments are therefore salted with a per-hand salt
derived one-way from a random table salt (also kept in the store), and the reveal carries that hand's salt:
"<hand seed>~<salt>".
"""

from __future__ import annotations

import hashlib

_HAND = b"kwx/hand/v1\x00"
_DEALER = b"kwx/first-dealer/v1\x00"
_PIAO = b"kwx/ai-piao/v1\x00"
_REF = b"kwx/seed-ref/v1\x00"
_SALT = b"kwx/seed-salt/v1\x00"


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


def hand_salt(table_salt: str | None, hand_no: int) -> str | None:
    """The salt of hand `hand_no`'s commitment (None for an unsalted table)."""
    return None if not table_salt else _digest(_SALT, table_salt, hand_no).hex()[:32]


def commitment(seed: str, salt: str | None = None) -> str:
    """The `seed_ref` of a hand seed (salted when the table's seed was chosen by a person)."""
    return "sha256:" + (_digest(_REF, seed) if salt is None else _digest(_REF, seed, salt)).hex()


def seed_ref(table_seed: str, hand_no: int, table_salt: str | None = None) -> str:
    """A public commitment to the hand's seed (for the ledger's `seed_ref`); it does not reveal the seed."""
    return commitment(hand_seed(table_seed, hand_no), hand_salt(table_salt, hand_no))


def reveal(table_seed: str, hand_no: int, table_salt: str | None = None) -> str:
    """What the end of hand `hand_no` shows: its seed (and its commitment's salt), for `check_reveal`."""
    seed = hand_seed(table_seed, hand_no)
    salt = hand_salt(table_salt, hand_no)
    return seed if salt is None else f"{seed}~{salt}"


def check_reveal(revealed: str, ref: str) -> str:
    """The hand seed in `revealed` when it matches the commitment `ref`; ValueError otherwise."""
    seed, _, salt = revealed.strip().partition("~")
    if not seed:
        raise ValueError("no seed given")
    if commitment(seed, salt or None) != ref.strip().lower():
        raise ValueError("the seed does not match the commitment: this is not the hand's seed")
    return seed
