"""The one polling helper (kwx.devtools.polling, which the Discord kit and the benchmarks use too)."""

from kwx.devtools.polling import eventually

__all__ = ["eventually"]
