"""Rows written with a change, described once for both databases.

A domain that writes something when a change is saved (the move log, the webhooks'
outbox, the players' events, ratings and totals, a tournament's result) describes it as
:class:`Rows` of its own table, without knowing what else goes with it. :func:`save_if`
writes a guarded change and every description at once: on PostgreSQL as one statement,
a data-modifying WITH whose parts run only if the guarding UPDATE found its row (so it
needs no transaction around it), with the NOTIFYs sent when it commits; on SQLite as
the same steps in the caller's write transaction. :func:`write` writes descriptions
with no change to guard them. Each shape of statement is built (from the tables) and
compiled once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import psycopg
from psycopg.types.json import Json
from sqlalchemy import (
    JSON,
    Table,
    bindparam,
    column,
    exists,
    func,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql import ColumnElement, Update
from sqlalchemy.sql.expression import CTE

from .db import backend, db, postgresql_text, session_execute

Wake = Callable[[Any], ColumnElement[Any]]
"""An inserted row's NOTIFY payload, as SQL over the table's columns."""


@dataclass(frozen=True)
class Rows:
    """Rows of one table to write with a change: inserted; or, with ``key``, the rows
    whose ``key`` columns equal a row's (and whose columns hold the values ``where``
    names) updated to its other values, or with ``add`` those values added to them; with
    ``upsert``, inserted or, where the primary key names a row already, its other values
    set (or with ``add``, added to it)."""

    table: Table
    rows: tuple[Mapping[str, Any], ...]
    """Each with the same columns."""
    key: tuple[str, ...] = ()
    add: bool = False
    where: tuple[tuple[str, Any], ...] = ()
    upsert: bool = False
    """An insert that updates the row its primary key already names (with ``add``: adds
    to it)."""
    wake: Wake | None = None
    """PostgreSQL: a NOTIFY for each inserted row, its payload this (listeners poll on
    SQLite)."""

    @property
    def shape(self) -> Hashable:
        """What the statement depends on (its values aside)."""
        return (self.table, tuple(self.rows[0]), self.key, self.add,
                tuple(name for name, _ in self.where), self.upsert, self.wake)


def save_if(guard: Update, params: Mapping[str, Any], parts: Sequence[Rows],
            notices: Sequence[str] = (), channel: str = "",
            alone: psycopg.Connection[Any] | None = None) -> bool:
    """Run ``guard`` (an UPDATE of one row, its ``params`` bound by name) and, only if it
    updated its row, write ``parts`` and NOTIFY ``notices`` on ``channel`` at commit;
    whether it did. On PostgreSQL one statement, on the session's connection or on
    ``alone`` (:func:`~service.storage.db.statement_connection`); on SQLite the steps in
    the caller's write transaction."""
    parts = [p for p in parts if p.rows]
    if backend() != "postgresql":
        conn = db.session.connection()
        if conn.execute(guard, dict(params)).rowcount != 1:
            return False
        _write_in_steps(parts)
        return True
    statement = _statement(guard, tuple(p.shape for p in parts), len(notices))
    values = _values(params, parts, notices, channel)
    if alone is not None:
        return alone.execute(statement, values).fetchone() is not None
    return session_execute(statement, values).fetchone() is not None


def write(parts: Sequence[Rows], channel: str = "", notices: Sequence[str] = ()) -> None:
    """Write ``parts`` in the caller's transaction (PostgreSQL: one statement, with their
    NOTIFYs and ``notices`` on ``channel`` at commit)."""
    parts = [p for p in parts if p.rows]
    if backend() != "postgresql":
        _write_in_steps(parts)
    elif parts or notices:
        statement = _statement(None, tuple(p.shape for p in parts), len(notices))
        session_execute(statement, _values({}, parts, notices, channel))


# --- PostgreSQL: one statement ---------------------------------------------------------


def _values(params: Mapping[str, Any], parts: Sequence[Rows], notices: Sequence[str],
            channel: str) -> dict[str, Any]:
    values = {name: Json(value) if isinstance(value, dict | list) else value
              for name, value in params.items()}
    for i, part in enumerate(parts):
        values[f"rows{i}"] = Json(list(part.rows))
        values.update((f"where{i}_{name}", value) for name, value in part.where)
    values.update((f"notice{i}", notice) for i, notice in enumerate(notices))
    values["channel"] = channel
    return values


@lru_cache(maxsize=256)
def _statement(guard: Update | None, shapes: tuple[Hashable, ...], notices: int) -> str:
    """The one statement of a guarded change (or of parts alone, ``guard`` None), built
    from the tables once per shape and compiled for psycopg."""
    saved = None
    if guard is not None:
        saved = guard.returning(*guard.table.primary_key.columns).cte("saved")
    ctes, wakes = [], []
    for i, shape in enumerate(shapes):
        part = _part(i, saved, *shape)  # type: ignore[misc]
        ctes.append(part)
        if shape[-1] is not None:  # type: ignore[index]
            wakes.append(select(func.count(func.pg_notify(bindparam("channel"), part.c.wake)))
                         .scalar_subquery())
    columns = [func.pg_notify(bindparam("channel"), bindparam(f"notice{i}"))
               for i in range(notices)] + wakes
    final = select(*columns) if columns else select(literal_column("1"))
    if saved is not None:
        final = final.select_from(saved)
    if ctes:
        final = final.add_cte(*ctes)
    return postgresql_text(final)


def _part(i: int, saved: CTE | None, table: Table, names: tuple[str, ...],
          key: tuple[str, ...], add: bool, where: tuple[str, ...], upsert: bool,
          wake: Wake | None) -> CTE:
    """Part ``i`` of the statement: its rows read from a JSON parameter
    (``json_to_recordset``), written only if ``saved`` has its row."""
    rows = func.json_to_recordset(bindparam(f"rows{i}", type_=JSON)).table_valued(
        *(column(name, table.c[name].type) for name in names)
    ).render_derived(name=f"r{i}", with_types=True)
    if key:
        stmt: Any = update(table).where(
            *(table.c[name] == rows.c[name] for name in key),
            *(table.c[name] == bindparam(f"where{i}_{name}") for name in where),
        ).values({name: table.c[name] + rows.c[name] if add else rows.c[name]
                  for name in names if name not in key})
        if saved is not None:
            stmt = stmt.where(exists(select(literal_column("1")).select_from(saved)))
    else:
        chosen = select(*(rows.c[name] for name in names))
        chosen = chosen.select_from(saved, rows) if saved is not None \
            else chosen.select_from(rows)
        stmt = postgresql.insert(table).from_select(list(names), chosen)
        if upsert:
            stmt = stmt.on_conflict_do_update(index_elements=_primary(table),
                                              set_=_upserted(table, names, add, stmt))
        if wake is not None:
            stmt = stmt.returning(wake(table.c).label("wake"))
    return stmt.cte(f"part{i}")  # type: ignore[no-any-return]


# --- SQLite: the same steps ------------------------------------------------------------


def _write_in_steps(parts: Sequence[Rows]) -> None:
    conn = db.session.connection()
    for part in parts:
        statement = _step(part.shape)
        if part.key:
            where = {f"where_{name}": value for name, value in part.where}
            conn.execute(statement, [{**{f"v_{n}": v for n, v in row.items()}, **where}
                                     for row in part.rows])
        else:
            conn.execute(statement, list(part.rows))


@lru_cache(maxsize=128)
def _step(shape: Hashable) -> Any:
    """SQLite: the statement of a part with this shape, run once per row."""
    table, names, key, add, where, upsert, _ = shape  # type: ignore[misc]
    if key:
        return update(table).where(
            *(table.c[name] == bindparam(f"v_{name}") for name in key),
            *(table.c[name] == bindparam(f"where_{name}") for name in where),
        ).values({name: table.c[name] + bindparam(f"v_{name}") if add
                  else bindparam(f"v_{name}") for name in names if name not in key})
    stmt = sqlite.insert(table)
    if upsert:
        stmt = stmt.on_conflict_do_update(index_elements=_primary(table),
                                          set_=_upserted(table, names, add, stmt))
    return stmt


def _primary(table: Table) -> list[str]:
    return [c.name for c in table.primary_key.columns]


def _upserted(table: Table, names: tuple[str, ...], add: bool, stmt: Any) -> dict[str, Any]:
    """What an upsert sets of the row already there: each value given, or added to it."""
    return {name: table.c[name] + stmt.excluded[name] if add else stmt.excluded[name]
            for name in names if name not in _primary(table)}


def rewrite_json_text(text_column: Any, kind_column: Any, where: Any, needles: Sequence[str],
                      rewrite: Callable[[str, Any], Any]) -> int:
    """Rewrite the JSON documents kept as text in ``text_column`` of the rows ``where``
    selects that hold any of ``needles`` as a JSON string (caller's write transaction):
    each parsed, ``rewrite`` applied with the row's ``kind_column`` (its event kind),
    written back. How many rows changed."""
    table = text_column.table
    keys = list(table.primary_key.columns)  # a partitioned table's holds its day too
    found = db.session.execute(select(kind_column, text_column, *keys).where(
        where, or_(*(text_column.contains(json.dumps(n)) for n in needles)))).all()
    changed = 0
    for kind, body, *key in found:
        new = json.dumps(rewrite(kind, json.loads(body)), separators=(",", ":"))
        if new != body:
            same = (c == v for c, v in zip(keys, key, strict=True))
            db.session.execute(table.update().where(*same).values({text_column.name: new}))
            changed += 1
    return changed
