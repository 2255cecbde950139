"""Fair play: each graded match's seats with their signals, the flags filed, the chore's
progress; a report's details (what the service filed with a report of its own).

Revision ID: 0034
Revises: 0033
Create Date: 2026-12-06 17:00:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0034'
down_revision = '0033'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "fair_play_seats",
        sa.Column("match_pk", PK, sa.ForeignKey("matches.pk", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("match_id", sa.String(36), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("pool", sa.String(64), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("signals", sa.JSON(), nullable=False),
        sa.Column("coins", sa.Integer(), nullable=False),
    )
    op.create_index("ix_fair_play_seats_player", "fair_play_seats",
                    ["tenant_pk", "player_id", "finished_at"])
    op.create_index("ix_fair_play_seats_pool", "fair_play_seats",
                    ["tenant_pk", "pool", "finished_at"])
    op.create_table(
        "fair_play_flags",
        sa.Column("pk", PK, primary_key=True, autoincrement=True),
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("subject", sa.String(260), nullable=False),
        sa.Column("report_id", sa.String(36), nullable=False),
        sa.Column("flagged_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("evidence", sa.JSON(), nullable=False),
    )
    op.create_index("ix_fair_play_flags_once", "fair_play_flags",
                    ["tenant_pk", "kind", "subject"], unique=True)
    op.create_table(
        "fair_play_progress",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("next_pk", PK, nullable=False),
    )
    op.add_column("reports", sa.Column("details", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("reports", "details")
    op.drop_table("fair_play_progress")
    op.drop_index("ix_fair_play_flags_once", table_name="fair_play_flags")
    op.drop_table("fair_play_flags")
    op.drop_index("ix_fair_play_seats_pool", table_name="fair_play_seats")
    op.drop_index("ix_fair_play_seats_player", table_name="fair_play_seats")
    op.drop_table("fair_play_seats")
