"""KWX_STORE_RETRY_SECONDS: how long a table tries a failing database write again before it pauses."""

from __future__ import annotations

import pytest

from kwx.cli.settings import ConfigError, settings_from
from kwx.table.retry import STORE_RETRY_SECONDS


def test_the_store_retry_time_is_a_setting() -> None:
    assert settings_from({}).store_retry_seconds == STORE_RETRY_SECONDS == 120
    assert settings_from({"KWX_STORE_RETRY_SECONDS": " 30 "}).store_retry_seconds == 30
    assert settings_from({"KWX_STORE_RETRY_SECONDS": "0"}).store_retry_seconds == 0  # pause at the first failure
    for bad in ("-1", "soon", "nan", "inf"):
        with pytest.raises(ConfigError, match="KWX_STORE_RETRY_SECONDS"):
            settings_from({"KWX_STORE_RETRY_SECONDS": bad})
