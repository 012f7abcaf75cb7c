"""Timestamps as the database keeps them, and the leaderboard's periods (all UTC).

Stored form: `2025-03-01T12:34:56.000123Z` — fixed width, so text order is time order, and its first ten
characters are the UTC day that the per-day summary table is keyed by.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from kwx.store.models import Period


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A naive datetime is taken to be UTC already."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def to_text(moment: datetime) -> str:
    return as_utc(moment).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def from_text(text: str) -> datetime:
    return as_utc(datetime.fromisoformat(text))


def day_of(stamp: str) -> str:
    """The UTC day ('YYYY-MM-DD') of a stored timestamp."""
    return stamp[:10]


def period_days(period: Period, now: datetime) -> tuple[str, str] | None:
    """[first, last) UTC days of the ISO week or calendar month holding `now`; None for 'all'."""
    today = as_utc(now).date()
    if period == "all":
        return None
    if period == "week":
        start = today - timedelta(days=today.weekday())  # ISO weeks start on Monday
        end = start + timedelta(days=7)
    elif period == "month":
        start = today.replace(day=1)
        end = date(start.year + start.month // 12, start.month % 12 + 1, 1)
    else:
        raise ValueError(f"unknown period {period!r} (all, month or week)")
    return start.isoformat(), end.isoformat()
