"""Tournaments with an entry fee and prizes: the fee's currency and amount, held in the
tournament's escrow as a player joins, the pool's distribution by final place, and
what each prize winner was paid.

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-06 16:00:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0033'
down_revision = '0032'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("fee_currency", sa.String(16), nullable=True))
        batch.add_column(sa.Column("fee_amount", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("prizes", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("payouts", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("payouts")
        batch.drop_column("prizes")
        batch.drop_column("fee_amount")
        batch.drop_column("fee_currency")
