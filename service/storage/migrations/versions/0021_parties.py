"""Parties: a leader and the friends they invite, seated as partners by quick play.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-03 20:00:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "parties",
        sa.Column("pk", PK, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(36), nullable=False, unique=True),
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("leader", sa.String(128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "party_members",
        sa.Column("party_pk", PK, sa.ForeignKey("parties.pk", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("player_id", sa.String(128), primary_key=True),
        sa.Column("tenant_pk", PK, nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    joined = sa.text("status = 'joined'")
    op.create_index("ix_party_members_one_party", "party_members", ["tenant_pk", "player_id"],
                    unique=True, postgresql_where=joined, sqlite_where=joined)


def downgrade() -> None:
    op.drop_table("party_members")
    op.drop_table("parties")
