"""The one fake clock (kwx.devtools.clock, which the Discord kit's users and the benchmarks use too)."""

from kwx.devtools.clock import FakeClock, FakeTimer

__all__ = ["FakeClock", "FakeTimer"]
