"""`python -m kwx <command>`: each command lives in its own module with `add_parser(subparsers)` and `run(args)`.

Bad input exits with status 2 and a one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeAlias

# What each command's `add_parser` adds its parser to (argparse's own type, generic only in typeshed).
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

# Command modules, in the order `--help` lists them.
COMMANDS = ("play", "fan", "waits", "rules", "replay", "simulate", "ledger", "verify", "review")


class CliError(Exception):
    """A user mistake: printed as one line, exit status 2. With `key` (a catalog key) and its fields it is said in
    the chosen language (`said`); str() is the English given."""

    def __init__(self, text: str, key: str | None = None, **fmt: object) -> None:
        super().__init__(text)
        self.key = key
        self.fmt = fmt

    def said(self, lang: str) -> str:
        return str(self) if self.key is None else said(self.key, lang, **self.fmt)

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


def said(key: str, lang: str, **fmt: object) -> str:
    """A catalog line for the terminal (its `code` marks dropped)."""
    from kwx.present.i18n import tr

    return tr(key, lang, **fmt).replace("`", "")


def store_error_text(exc: BaseException, lang: str) -> str:
    """A store's error in the operator's language (catalog `store.error.<code>`), else its English."""
    code = getattr(exc, "code", None)
    if code is None:
        return str(exc)
    fmt = {k: store_error_text(v, lang) if isinstance(v, BaseException) else v
           for k, v in getattr(exc, "fmt", {}).items()}
    return said(f"store.error.{code}", lang, **fmt)


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
    CliError naming the file."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}", "cli.read_failed", path=path,
                       reason=exc.strerror) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CliError(f"the {what} {path} is not UTF-8 text (byte {exc.start}): save it as UTF-8") from None


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
                    raise CliError(f"the {what} nests deeper than {MAX_JSON_DEPTH} levels")
        elif ch in "]}":
            depth -= 1
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise CliError(f"the {what} is not valid JSON: {exc}") from None


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
