"""Presence: each process's leases on the players whose streams it holds open, and the
presence each player's friends were last told.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-03 21:40:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "presence_leases",
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("player_id", sa.String(128), primary_key=True),
        sa.Column("holder", sa.String(64), primary_key=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_presence_leases_expires_at", "presence_leases", ["expires_at"])
    op.create_table(
        "presences",
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("player_id", sa.String(128), primary_key=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("match_id", sa.String(36)),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
    )
    online = sa.text("status = 'online'")
    op.create_index("ix_presences_online", "presences", ["tenant_pk", "player_id"],
                    postgresql_where=online, sqlite_where=online)


def downgrade() -> None:
    op.drop_table("presences")
    op.drop_table("presence_leases")
