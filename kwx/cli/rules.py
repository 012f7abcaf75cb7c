"""`python -m kwx rules`: the rule tables (patterns and their multipliers under each preset, the cap, options,
presets, payment reasons), made from the engine's rule tables — the same tables docs/rules.md shows.

    python -m kwx rules [--lang en|zh-CN]          # the tables as markdown (default: $KWX_LANG, else Chinese)
    python -m kwx rules --update                   # rewrite the generated blocks of docs/rules*.md
    python -m kwx rules --check                    # exit 1 when a doc's tables differ from the code
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kwx.cli import CliError, Subcommands, chosen_language, language
from kwx.present.i18n import LANGUAGES
from kwx.present.rulebook import DOCS, fill_generated, rule_tables

ROOT = Path(__file__).resolve().parents[2]


def add_parser(subparsers: Subcommands) -> None:
    p = subparsers.add_parser(
        "rules", help="the rule tables: patterns, multipliers per preset, options, presets",
        description="Print the rule tables made from the code (markdown), or bring docs/rules.md and "
                    "docs/rules.zh-CN.md up to date with them.",
    )
    p.add_argument("--lang", type=language, default=None,
                   help=f"language of the tables: {' or '.join(LANGUAGES)} (default: $KWX_LANG, else zh-CN)")
    p.add_argument("--markdown", action="store_true", help="print markdown (the default; kept for scripts)")
    p.add_argument("--update", action="store_true", help="rewrite the generated tables in the docs")
    p.add_argument("--check", action="store_true", help="exit 1 when a doc's generated tables are out of date")


def stale_docs(root: Path = ROOT) -> list[str]:
    """The docs whose generated blocks differ from the code."""
    out = []
    for lang, rel in DOCS.items():
        path = root / rel
        if not path.exists():
            out.append(rel)
            continue
        text = path.read_text(encoding="utf-8")
        if fill_generated(text, lang) != text:
            out.append(rel)
    return out


def run(args: argparse.Namespace) -> int:
    if args.update or args.check:
        if not (ROOT / "docs").is_dir():
            raise CliError("no docs/ folder here: --update and --check work in a checkout of the repository")
        if args.check:
            stale = stale_docs()
            for rel in stale:
                print(f"{rel}: out of date (python -m kwx rules --update)")
            return 1 if stale else 0
        for lang, rel in DOCS.items():
            path = ROOT / rel
            text = path.read_text(encoding="utf-8")
            new = fill_generated(text, lang)
            if new != text:
                path.write_text(new, encoding="utf-8")
                print(f"{rel}: updated")
        return 0
    # the tables alone: the <!-- generated --> markers are for the docs' --update, not for a reader
    print("\n\n".join(rule_tables(chosen_language(args.lang)).values()))
    return 0
