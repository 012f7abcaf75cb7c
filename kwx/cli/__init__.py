"""`python -m kwx <command>`: each command lives in its own module with `add_parser(subparsers)` and `run(args)`.

Bad input exits with status 2 and a one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from typing import Any, NamedTuple, NoReturn, Protocol, TypeAlias, runtime_checkable

# What each command's `add_parser` adds its parser to (argparse's own type, generic only in typeshed).
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

# Command modules, in the order `--help` lists them.
COMMANDS = ("play", "fan", "waits", "rules", "replay", "simulate", "ledger", "verify", "review")


class CliError(Exception):
    """A user mistake: printed as one line, exit status 2. With `key` (a catalog key) and its fields it is said in
    the chosen language (`said`); a field that can say itself (Sayable: Words …) is said in that language too.
    str() is the English given."""

    def __init__(self, text: str, key: str | None = None, **fmt: object) -> None:
        super().__init__(text)
        self.key = key
        self.fmt = fmt

    def said(self, lang: str) -> str:
        if self.key is None:
            return str(self)
        return said(self.key, lang, **{k: v.said(lang) if isinstance(v, Sayable) else v for k, v in self.fmt.items()})

    @property
    def has_words(self) -> bool:
        """Whether the catalog says it (else it is English, and so is the line that prints it)."""
        return self.key is not None


class StoreCliError(CliError):
    """A store's error where a command line tool stops on it (kwx.store.StoreError, said from its code)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error

    def said(self, lang: str) -> str:
        return store_error_text(self.error, lang)

    @property
    def has_words(self) -> bool:
        return getattr(self.error, "code", None) is not None


@runtime_checkable
class Sayable(Protocol):
    """A value a message holds that is words itself: said in the message's language when it is printed."""

    def said(self, lang: str) -> str: ...


class Words(NamedTuple):
    """A catalog word said later, in the language of the message it is a field of (a CliError's)."""

    key: str

    def said(self, lang: str) -> str:
        return said(self.key, lang)


def said(key: str, lang: str, **fmt: object) -> str:
    """A catalog line for the terminal (its `code` marks dropped)."""
    from kwx.present.i18n import tr

    return tr(key, lang, **fmt).replace("`", "")


def store_error_text(exc: BaseException, lang: str) -> str:
    """A store's error in the operator's language (catalog `store.error.<code>`), else its English. The problems
    `verify` found, when it carries them, are said one a line."""
    code = getattr(exc, "code", None)
    if code is None:
        return str(exc)
    fmt = {k: store_error_text(v, lang) if isinstance(v, BaseException)
           else "\n  ".join(problem_text(p, lang) for p in v) if isinstance(v, tuple) else v
           for k, v in getattr(exc, "fmt", {}).items()}
    return said(f"store.error.{code}", lang, **fmt)


def problem_text(problem: str, lang: str) -> str:
    """A problem `ledger verify` found (kwx.store.verify.Problem) in the operator's language (catalog
    `store.verify.<code>`; a summary column's word from `store.verify.field.<field>`), a loss written with a minus
    sign; a line without a code as it is."""
    code = getattr(problem, "code", None)
    if code is None:
        return problem
    fmt = {k: _minus(v) if isinstance(v, int) else v for k, v in getattr(problem, "fmt", {}).items()}
    if "field" in fmt:
        fmt["field"] = said(f"store.verify.field.{fmt['field']}", lang)
    return said(f"store.verify.{code}", lang, **fmt)


def _minus(number: int) -> str:
    """A whole number as it is, but a negative one with a minus sign (−2, U+2212, as wide as the plus)."""
    from kwx.present.numbers import MINUS

    return f"{MINUS}{-number}" if number < 0 else str(number)


def bounded_int(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse `type` for a whole number in [lo, hi]; anything else is a one-line usage error (exit 2)."""
    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:24]!r} is not a whole number") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be from {lo:,} to {hi:,}, not {text[:24]}")
        return value

    parse.__name__ = "whole number"
    return parse


def language(text: str) -> str:
    """An argparse `type` for --lang: zh-CN or en (zh, zh-TW, en-GB … name one of them); any other language is a
    one-line usage error (exit 2) rather than a quiet fall back to Chinese."""
    from kwx.present.i18n import LANGUAGES, resolve_lang

    lang = resolve_lang(text)
    prefix = text.strip().split("-")[0].split("_")[0].lower()
    if lang.split("-")[0].lower() != prefix:
        raise argparse.ArgumentTypeError(f"{text[:24]!r} is not a language kwx speaks: {' or '.join(LANGUAGES)}")
    return lang


language.__name__ = "language"


def chosen_language(given: str | None) -> str:
    """--lang if given, else $KWX_LANG (or the .env's), else Chinese: the language every command speaks."""
    import os

    from kwx.present.i18n import DEFAULT_LANG, resolve_lang

    return given or resolve_lang(os.environ.get("KWX_LANG") or DEFAULT_LANG)


def read_text(path: str, what: str = "file") -> str:
    """A text file (or standard input for '-') as UTF-8; a UTF-8 byte order mark is fine. Anything else is a
    CliError naming the file as `what` ('file', 'action log', 'replay file': the catalog's cli.what.*)."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except FileNotFoundError:
        raise CliError(f"cannot read {path}: no such file", "cli.no_file", path=path) from None
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}", "cli.read_failed", path=path,
                       reason=exc.strerror) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CliError(f"the {what} {path} is not UTF-8 text (byte {exc.start}): save it as UTF-8", "cli.not_utf8",
                       what=_what(what), path=path, byte=exc.start) from None


MAX_JSON_DEPTH = 32


def load_json_text(text: str, what: str = "file") -> Any:
    """JSON from text, refusing nesting deeper than MAX_JSON_DEPTH (a CliError, never a RecursionError)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:  # brackets outside strings: the nesting the parser would have to recurse into
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_JSON_DEPTH:
                    raise CliError(f"the {what} nests deeper than {MAX_JSON_DEPTH} levels", "cli.json_deep",
                                   what=_what(what), depth=MAX_JSON_DEPTH)
        elif ch in "]}":
            depth -= 1
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(f"the {what} is not valid JSON: {exc}", "cli.json_invalid", what=_what(what), line=exc.lineno,
                       column=exc.colno) from None
    except RecursionError:
        raise CliError(f"the {what} nests deeper than {MAX_JSON_DEPTH} levels", "cli.json_deep", what=_what(what),
                       depth=MAX_JSON_DEPTH) from None


def _what(what: str) -> Words:
    """What read_text or load_json_text read ('file', 'action log', 'replay file'), in the catalog's words
    (cli.what.action_log …)."""
    return Words(f"cli.what.{what.replace(' ', '_')}")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse prints usage + exits 2; keep it to one line
        self.exit(2, f"{self.prog}: {message}\n")


def build_parser(only: str | None = None, prog: str = "python -m kwx") -> argparse.ArgumentParser:
    """The argument parser; with `only`, just that command's module is imported (fast start for scripts)."""
    parser = _Parser(prog=prog, description="Ka Wu Xing (卡五星) referee tools")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS if only is None else (only,):
        try:
            module = importlib.import_module(f"kwx.cli.{name}")
        except ModuleNotFoundError as exc:  # a command still being written by another session
            if exc.name != f"kwx.cli.{name}":
                raise
            continue
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None, prog: str = "python -m kwx") -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None, prog)
    args = parser.parse_args(argv)
    try:
        return int(importlib.import_module(f"kwx.cli.{args.command}").run(args) or 0)
    except CliError as exc:
        lang = chosen_language(getattr(args, "lang", None)) if exc.has_words else "en"
        print(said("cli.error", lang, text=exc.said(lang)), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


def console_main() -> int:
    """`kwx`: the installed command (pipx / uv tool install), the same as `python -m kwx` in a checkout."""
    return main(prog="kwx")
