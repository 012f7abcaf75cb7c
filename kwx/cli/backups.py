"""`python -m kwx ledger backup | restore | verify`: keeping a store safe (the `ledger` command's operator side).

    python -m kwx ledger backup [DEST] [--keep N]   # a checked online backup (SQLite) into a folder, then retention
    python -m kwx ledger restore BACKUP [--db PATH] # refused while the store is open; keeps what it replaces
    python -m kwx ledger verify [STORE]             # a live store or a backup, SQLite or PostgreSQL: exit 0 / 1

The store is `--db`, else `$KWX_DATABASE_URL`, else `$KWX_DB` (environment or `.env`), else data/kwx.sqlite3.
Backups go to `$KWX_BACKUP_DIR` (default: backups/ beside the store), the newest `$KWX_BACKUP_KEEP` (14) kept.
A refusal (nothing changed) exits 2 with what to do; `verify` exits 0 on a sound store and 1 when there is no
sound store at STORE: one line per problem it finds, where a missing file or one that cannot be read as a store is
a problem like any other (a script checking its backups wants "is this a good backup?", and a missing one is
not); 2 is left to a command line that cannot be understood. Errors and refusals are said in $KWX_LANG (--lang).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kwx.cli import chosen_language, problem_text, said, store_error_text
from kwx.present.i18n import tr
from kwx.present.ledger_text import signed_money, table
from kwx.store import StoreError
from kwx.store.backup import BackupResult, back_up, back_up_to, default_backup_dir
from kwx.store.db import database_url, default_db_path
from kwx.store.restore import Balances, RestoreReport, restore_store
from kwx.store.verify import VerifyReport, verify_store

HELPS = {
    "backup": "a checked online backup of the SQLite store (into $KWX_BACKUP_DIR, the newest 14 kept)",
    "restore": "put a backup in place of the SQLite store (refused while it is open; keeps what it replaces)",
    "verify": "check a live store or a backup: integrity, payments, summaries, append-only triggers",
}


class Refused(Exception):
    """Nothing was done: the message (in the operator's language) says why (exit 2)."""


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    parsers["backup"].add_argument("dest", nargs="?", metavar="DEST", default=None,
                                   help="a folder (default $KWX_BACKUP_DIR, else backups/ beside the store), or a new "
                                        "file such as before-upgrade.sqlite3")
    parsers["backup"].add_argument("--keep", type=int, default=None, metavar="N",
                                   help="backups to keep in the folder (default $KWX_BACKUP_KEEP, else 14)")
    parsers["restore"].add_argument("backup", metavar="BACKUP", help="the backup file to restore")
    parsers["verify"].add_argument("store", nargs="?", metavar="STORE", default=None,
                                   help="a SQLite file (a backup) or postgresql:// URL; default: the store")


async def run(command: str, args: argparse.Namespace, settings: Any) -> int:
    store: Path | str = getattr(args, "db", None) or database_url() or default_db_path()
    as_json = bool(getattr(args, "json", False))
    lang = chosen_language(getattr(args, "lang", None))
    if command == "verify":
        return await _verify(getattr(args, "store", None) or store, as_json, lang)
    if _is_url(store):
        raise Refused(said("cli.backup.postgres", lang))
    if command == "backup":
        keep = args.keep if args.keep is not None else settings.backup_keep  # --keep 0 is refused, not the default
        return await _backup(Path(store), args.dest, keep, settings, as_json, lang)
    return await _restore(Path(args.backup), Path(store), as_json, lang)


def _is_url(target: object) -> bool:
    return str(target).startswith(("postgresql://", "postgres://"))


async def _backup(store: Path, dest: str | None, keep: int, settings: Any, as_json: bool, lang: str) -> int:
    if keep < 1:
        raise Refused(said("cli.backup.keep", lang, keep=keep))
    if not store.is_file():
        raise Refused(said("store.error.no_store", lang, path=str(store)))
    try:
        if dest is not None and Path(dest).suffix and not Path(dest).is_dir():
            result = await back_up_to(store, Path(dest))  # one new file, exactly there: no retention
        else:
            folder = Path(dest) if dest is not None else settings.backup_dir or default_backup_dir(store)
            result = await back_up(store, folder, keep=keep)
    except StoreError as exc:
        raise Refused(store_error_text(exc, lang)) from None
    if as_json:
        print(json.dumps({"backup": str(result.path), "bytes": result.size, "seconds": round(result.seconds, 3),
                          "integrity": "ok", "removed": [str(p) for p in result.removed]}))
    else:
        print(_backup_text(store, result, lang))
    return 0


def _backup_text(store: Path, result: BackupResult, lang: str) -> str:
    fields: dict[str, object] = {"store": store, "path": result.path, "size": f"{result.size / 1e6:.1f}",
                                 "seconds": f"{result.seconds:.2f}"}
    if not result.removed:
        return said("cli.backup.done", lang, **fields)
    names = tr("common.list_sep", lang).join(p.name for p in result.removed)
    return said("cli.backup.done_removed", lang, **fields, count=len(result.removed), names=names)


async def _verify(target: Path | str, as_json: bool, lang: str) -> int:
    try:
        report = await verify_store(target)
    except StoreError as exc:  # no file, or one that is not a readable store: a problem found, not a usage error
        if as_json:
            print(json.dumps({"store": str(target), "ok": False, "problems": [str(exc)]}, ensure_ascii=False))
        else:
            print(store_error_text(exc, lang))
        return 1
    if as_json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    elif report.ok:
        print(said("cli.verify_store.ok", lang, summary=_summary(report, lang)))
    else:
        print("\n".join(problem_text(p, lang) for p in report.problems))
        count = len(report.problems)
        print(said(f"cli.verify_store.found.{_plural(count)}", lang, count=count, summary=_summary(report, lang)))
    return 0 if report.ok else 1


def _summary(report: VerifyReport, lang: str) -> str:
    """What was checked: 'data/kwx.sqlite3 (SQLite, schema v7; 1 server, 3 hands, 7 ledger entries)'."""
    counts = tr("common.list_sep", lang).join(
        said(f"cli.verify_store.{what}.{_plural(n)}", lang, count=f"{n:,}")
        for what, n in (("servers", report.servers), ("hands", report.hands), ("entries", report.entries)))
    return said("cli.verify_store.summary", lang, store=report.store, schema=report.schema, counts=counts,
                backend=said(f"cli.verify_store.backend.{report.backend}", lang))


def _plural(n: int) -> str:
    return "one" if n == 1 else "other"


async def _restore(backup: Path, target: Path, as_json: bool, lang: str) -> int:
    try:
        report = await restore_store(backup, target)
    except StoreError as exc:
        raise Refused(store_error_text(exc, lang)) from None
    if as_json:
        print(json.dumps({"restored": str(target), "from": str(backup), "kept": [str(p) for p in report.kept],
                          "before": _plain(report.before), "after": _plain(report.after),
                          "problems_after": report.problems_after}, ensure_ascii=False))
    else:
        print(_restore_text(report, lang))
    return 0 if not report.problems_after else 1


def _plain(balances: Balances | None) -> dict[str, dict[str, int]] | None:
    if balances is None:
        return None
    return {guild: {player: amount for player, (_, amount) in rows.items()} for guild, rows in balances.items()}


def _restore_text(report: RestoreReport, lang: str) -> str:
    lines = [said("cli.restore.checked", lang, summary=_summary(report.checked, lang))]
    if report.kept:
        lines.append(said("cli.restore.kept", lang, files=tr("common.list_sep", lang).join(map(str, report.kept))))
    elif report.before is None and report.before_error is None:
        lines.append(said("cli.restore.created", lang, path=report.target))
    lines.append(said("cli.restore.done", lang, path=report.target, backup=report.backup))
    if report.before_error is not None:
        lines.append(said("cli.restore.before_unreadable", lang, detail=report.before_error))
    before = report.before or {}
    for guild in sorted(set(before) | set(report.after)):
        old, new = before.get(guild, {}), report.after.get(guild, {})
        rows = []
        for player in [*new, *(p for p in old if p not in new)]:
            name = (new.get(player) or old[player])[0]
            was, now = old.get(player, (name, 0))[1], new.get(player, (name, 0))[1]
            rows.append([name, player, signed_money(was), signed_money(now), signed_money(now - was) if now != was else ""])
        headers = [said(f"cli.restore.{h}", lang) for h in ("name", "player", "before", "after", "change")]
        lines += ["", said("cli.restore.server", lang, server=guild), table(rows, "llrrr", headers, sep="  ")]
    if report.problems_after:
        lines += ["", said("cli.restore.fails", lang), *(problem_text(p, lang) for p in report.problems_after)]
    return "\n".join(lines)


def fail(exc: Refused, lang: str) -> int:
    print(said("cli.backup.refused", lang, text=str(exc)), file=sys.stderr)
    return 2
