"""Trust and safety: suspensions (and one stamp of when a player's access last changed,
read by every process once a second), a front end's previous signing secret during a
rotation's grace, voided matches, the audit log, blocks and reports.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-03 19:00:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
JSONDoc = sa.JSON()


def upgrade() -> None:
    op.add_column("players", sa.Column("suspended_at", sa.DateTime(timezone=True)))
    op.add_column("players", sa.Column("suspended_until", sa.DateTime(timezone=True)))
    op.add_column("players", sa.Column("suspension_reason", sa.String(500)))
    op.add_column("players", sa.Column("access_changed_at", sa.DateTime(timezone=True)))
    op.execute("UPDATE players SET access_changed_at = signed_out_at "
               "WHERE signed_out_at IS NOT NULL")
    op.drop_index("ix_players_signed_out_at", table_name="players")
    changed = sa.text("access_changed_at IS NOT NULL")
    op.create_index("ix_players_access_changed_at", "players", ["access_changed_at"],
                    postgresql_where=changed, sqlite_where=changed)
    suspended = sa.text("suspended_at IS NOT NULL")
    op.create_index("ix_players_suspended", "players", ["tenant_pk", "player_id"],
                    postgresql_where=suspended, sqlite_where=suspended)

    op.add_column("tenants", sa.Column("previous_player_secret", sa.String(64)))
    op.add_column("tenants", sa.Column("previous_secret_until", sa.DateTime(timezone=True)))

    op.add_column("matches", sa.Column("voided_at", sa.DateTime(timezone=True)))
    op.add_column("matches", sa.Column("void_reason", sa.String(500)))

    op.create_table(
        "audit_log",
        sa.Column("pk", PK, primary_key=True, autoincrement=True),
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(160), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("subject", sa.String(200), nullable=False),
        sa.Column("details", JSONDoc, nullable=False),
    )
    op.create_index("ix_audit_log_tenant", "audit_log", ["tenant_pk", "pk"])

    op.create_table(
        "player_blocks",
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("player_id", sa.String(128), primary_key=True),
        sa.Column("blocked_id", sa.String(128), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_player_blocks_blocked", "player_blocks", ["tenant_pk", "blocked_id"])

    op.create_table(
        "reports",
        sa.Column("pk", PK, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(36), nullable=False, unique=True),
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("match_pk", PK, sa.ForeignKey("matches.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("reporter", sa.String(128), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("text", sa.String(1000)),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved_at", sa.DateTime(timezone=True)),
        sa.Column("resolution", JSONDoc),
    )
    op.create_index("ix_reports_once", "reports",
                    ["tenant_pk", "match_pk", "reporter", "player_id"], unique=True)
    op.create_index("ix_reports_queue", "reports", ["tenant_pk", "status", "pk"])
    op.create_index("ix_reports_player", "reports", ["tenant_pk", "player_id"])


def downgrade() -> None:
    op.drop_table("reports")
    op.drop_table("player_blocks")
    op.drop_table("audit_log")
    op.drop_column("matches", "void_reason")
    op.drop_column("matches", "voided_at")
    op.drop_column("tenants", "previous_secret_until")
    op.drop_column("tenants", "previous_player_secret")
    op.drop_index("ix_players_suspended", table_name="players")
    op.drop_index("ix_players_access_changed_at", table_name="players")
    signed_out = sa.text("signed_out_at IS NOT NULL")
    op.create_index("ix_players_signed_out_at", "players", ["signed_out_at"],
                    postgresql_where=signed_out, sqlite_where=signed_out)
    for column in ("access_changed_at", "suspension_reason", "suspended_until",
                   "suspended_at"):
        op.drop_column("players", column)
