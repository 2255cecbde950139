"""Rows that stop growing kept for a retention: on PostgreSQL the moves, the players'
stream events, the webhook messages and their tries become tables partitioned by day
(the rows kept so far one partition, ``<table>_history``, attached as it is, no copy;
a default partition; the days ahead to a week); a match a report points to is marked
kept (its moves outlive any retention). A partitioned table's unique keys hold its
partition's column, so a message's random ``msg_id`` is unique with its ``created_at``
(as every message of one change is) and a try no longer has a foreign key to its message, on SQLite too (one model for both);
SQLite's tables are not partitioned.

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-10 10:00:00

"""
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

revision = '0030'
down_revision = '0029'
branch_labels = None
depends_on = None

DAYS_AHEAD = 7

# table: (partition column, primary key before, indexes (name, columns, where), foreign
# keys (column, table referred), its pk's sequence)
TABLES = {
    "moves": ("created_at", "match_pk, seq", [], [("match_pk", "matches")], None),
    "player_events": ("created_at", "pk", [
        ("ix_player_events_player", "tenant_pk, player_id, pk", None),
        ("ix_player_events_created_at", "created_at", None),
    ], [("tenant_pk", "tenants")], "player_events_pk_seq"),
    "webhook_messages": ("created_at", "pk", [
        ("ix_webhook_messages_due", "priority, next_attempt_at, pk", "status = 'pending'"),
        ("ix_webhook_messages_webhook", "webhook_pk, pk", None),
        ("ix_webhook_messages_created_at", "created_at", None),
        ("ix_webhook_messages_lane", "webhook_pk, lane, pk", "holds_lane"),
        ("ix_webhook_messages_msg_id", "msg_id, created_at", None),
    ], [("webhook_pk", "webhooks")], "webhook_messages_pk_seq"),
    "webhook_attempts": ("at", "pk", [
        ("ix_webhook_attempts_webhook", "webhook_pk, pk", None),
        ("ix_webhook_attempts_at", "at", None),
    ], [("webhook_pk", "webhooks")], "webhook_attempts_pk_seq"),
}

NAMES = {"fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
         "uq": "uq_%(table_name)s_%(column_0_name)s"}
"""Names for SQLite's unnamed constraints, so batch mode can drop them."""


def upgrade() -> None:
    op.add_column("matches", sa.Column("kept", sa.Boolean(), nullable=False,
                                       server_default=sa.false()))
    op.execute("UPDATE matches SET kept = true WHERE pk IN (SELECT match_pk FROM reports)")
    if op.get_bind().dialect.name != "postgresql":
        with op.batch_alter_table("webhook_attempts", naming_convention=NAMES) as batch:
            batch.drop_constraint("fk_webhook_attempts_message_pk_webhook_messages",
                                  type_="foreignkey")
        with op.batch_alter_table("webhook_messages", naming_convention=NAMES) as batch:
            batch.drop_constraint("uq_webhook_messages_msg_id", type_="unique")
            batch.create_index("ix_webhook_messages_msg_id", ["msg_id", "created_at"],
                               unique=True)
        return
    op.execute("ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_message_pk_fkey")
    op.execute("ALTER TABLE webhook_messages DROP CONSTRAINT webhook_messages_msg_id_key")
    tomorrow = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) \
        + timedelta(days=1)
    for table, (column, key, indexes, foreign, sequence) in TABLES.items():
        _partition(table, column, key, indexes, foreign, sequence, tomorrow)


def _partition(table: str, column: str, key: str, indexes: list, foreign: list,
               sequence: str | None, tomorrow: datetime) -> None:
    """``table`` made partitioned by day of ``column``: its rows so far the partition
    ``<table>_history`` (up to ``tomorrow``), a default partition, the week ahead."""
    history = f"{table}_history"
    op.execute(f"ALTER TABLE {table} RENAME TO {history}")
    op.execute(f"ALTER TABLE {history} DROP CONSTRAINT {table}_pkey")
    for name, _, _ in indexes:  # the partition's own now, adopted by the parent's below
        if name != "ix_webhook_messages_msg_id":
            op.execute(f"ALTER INDEX {name} RENAME TO {name}_history")
    op.execute(f"CREATE TABLE {table} (LIKE {history} INCLUDING DEFAULTS) "
               f"PARTITION BY RANGE ({column})")
    if sequence:  # the parent's, so dropping the history partition keeps it
        op.execute(f"ALTER SEQUENCE {sequence} OWNED BY {table}.pk")
    op.execute(f"ALTER TABLE {table} ADD CONSTRAINT {table}_pkey "
               f"PRIMARY KEY ({key}, {column})")
    for name, columns, where in indexes:
        unique = "UNIQUE " if name == "ix_webhook_messages_msg_id" else ""
        op.execute(f"CREATE {unique}INDEX {name} ON {table} ({columns})"
                   + (f" WHERE {where}" if where else ""))
    for mine, referred in foreign:
        op.execute(f"ALTER TABLE {table} ADD CONSTRAINT {table}_{mine}_fkey FOREIGN KEY "
                   f"({mine}) REFERENCES {referred} (pk) ON DELETE CASCADE")
    op.execute(f"CREATE TABLE {table}_default PARTITION OF {table} DEFAULT")
    op.execute(f"ALTER TABLE {table} ATTACH PARTITION {history} "
               f"FOR VALUES FROM (MINVALUE) TO ('{tomorrow.isoformat()}')")
    for ahead in range(DAYS_AHEAD):
        low = tomorrow + timedelta(days=ahead)
        op.execute(f"CREATE TABLE {table}_p{low:%Y%m%d} PARTITION OF {table} FOR VALUES "
                   f"FROM ('{low.isoformat()}') TO ('{(low + timedelta(days=1)).isoformat()}')")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        with op.batch_alter_table("webhook_messages", naming_convention=NAMES) as batch:
            batch.drop_index("ix_webhook_messages_msg_id")
            batch.create_unique_constraint("uq_webhook_messages_msg_id", ["msg_id"])
        op.execute("DELETE FROM webhook_attempts WHERE message_pk NOT IN "
                   "(SELECT pk FROM webhook_messages)")
        with op.batch_alter_table("webhook_attempts", naming_convention=NAMES) as batch:
            batch.create_foreign_key("fk_webhook_attempts_message_pk_webhook_messages",
                                     "webhook_messages", ["message_pk"], ["pk"],
                                     ondelete="CASCADE")
    else:
        for table, (column, key, indexes, foreign, sequence) in TABLES.items():
            _unpartition(table, key, indexes, foreign, sequence)
        op.execute("ALTER TABLE webhook_messages ADD CONSTRAINT webhook_messages_msg_id_key "
                   "UNIQUE (msg_id)")
        op.execute("DELETE FROM webhook_attempts WHERE message_pk NOT IN "
                   "(SELECT pk FROM webhook_messages)")
        op.execute("ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_message_pk_fkey "
                   "FOREIGN KEY (message_pk) REFERENCES webhook_messages (pk) ON DELETE CASCADE")
    op.drop_column("matches", "kept")


def _unpartition(table: str, key: str, indexes: list, foreign: list,
                 sequence: str | None) -> None:
    """``table`` a plain table again, its rows copied out of every partition."""
    plain = f"{table}_plain"
    op.execute(f"CREATE TABLE {plain} (LIKE {table} INCLUDING DEFAULTS)")
    op.execute(f"INSERT INTO {plain} SELECT * FROM {table}")
    if sequence:
        op.execute(f"ALTER SEQUENCE {sequence} OWNED BY {plain}.pk")
    op.execute(f"DROP TABLE {table}")
    op.execute(f"ALTER TABLE {plain} RENAME TO {table}")
    op.execute(f"ALTER TABLE {table} ADD CONSTRAINT {table}_pkey PRIMARY KEY ({key})")
    for name, columns, where in indexes:
        if name != "ix_webhook_messages_msg_id":
            op.execute(f"CREATE INDEX {name} ON {table} ({columns})"
                       + (f" WHERE {where}" if where else ""))
    for mine, referred in foreign:
        op.execute(f"ALTER TABLE {table} ADD CONSTRAINT {table}_{mine}_fkey FOREIGN KEY "
                   f"({mine}) REFERENCES {referred} (pk) ON DELETE CASCADE")
