"""Typed bytes that are not UTF-8 reach the terminal table as U+FFFD (�) and are refused like any other text
it does not understand, never as a crash: a GBK terminal or input method sends 五筒 as `ce e5 cd b2`.

    lenient_textual_input()      # the game screen: before the app runs
    StdinLines(...)              # the line mode (kwx.local.plain) reads its stream through `lenient`
"""

from __future__ import annotations

import codecs
import contextlib
import functools
from collections.abc import Callable
from typing import IO, Any

REPLACE = "replace"  # the codecs error handler: an undecodable byte becomes U+FFFD


def replacing_decoder(encoding: str) -> Callable[..., codecs.IncrementalDecoder]:
    """`codecs.getincrementaldecoder`, except that its decoders replace what they cannot decode."""
    return functools.partial(codecs.getincrementaldecoder(encoding), errors=REPLACE)


def lenient_textual_input() -> None:
    """Textual's Linux driver decodes stdin with a strict UTF-8 decoder (Textualize/textual#6456): one byte
    that is not UTF-8 kills its input thread, and the app panics. The driver makes that decoder in its input
    thread from the module's `getincrementaldecoder`; from now on it gets one that replaces instead."""
    from textual.drivers import linux_driver

    # Through the module's namespace: the patched name is typed as codecs' overloads, which this one narrows.
    vars(linux_driver)["getincrementaldecoder"] = replacing_decoder


def lenient(stream: IO[str]) -> IO[str]:
    """A text stream (stdin) that reads undecodable bytes as U+FFFD; Python's stdin is strict under most
    UTF-8 locales, where one such byte would end the input as if at its end."""
    reconfigure: Any = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(OSError, ValueError):  # not a file we may change: keep it as it is
            reconfigure(errors=REPLACE)
    return stream
