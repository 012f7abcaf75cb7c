"""The PostgreSQL dialect layer: the store's shared SQL, translated."""

from __future__ import annotations

from kwx.store.postgres.conn import translate


def test_placeholders_become_numbered_and_quoted_text_is_left_alone():
    assert translate("SELECT * FROM t WHERE a = ? AND b = '?' AND c = ?")[:2] == (
        "SELECT * FROM t WHERE a = $1 AND b = '?' AND c = $2", None)
    sql, names, _ = translate("SELECT :g, x::text FROM t WHERE g = :g AND p = :p AND s = 'a:b'")
    assert sql == "SELECT $1, x::text FROM t WHERE g = $1 AND p = $2 AND s = 'a:b'" and names == ("g", "p")


def test_inserts_into_tables_with_ids_return_the_id():
    assert translate("INSERT INTO ledger_entries(a) VALUES (?)") == (
        "INSERT INTO ledger_entries(a) VALUES ($1) RETURNING id", None, True)
    assert translate("INSERT INTO events(a) VALUES (?)")[2] is False
    assert translate("UPDATE tables SET a = ? WHERE id = ? RETURNING guild")[2] is False
