"""Shared test settings. On CI (CI=true) hypothesis runs derandomized, so a run is repeatable; locally it
explores new examples each run."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
