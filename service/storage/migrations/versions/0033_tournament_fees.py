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
    # plain ALTERs, as 0032: a batch on SQLite copies the table anew, and dropping the old
    # one deletes its rounds and pairings through their foreign keys
    op.add_column("tournaments", sa.Column("fee_currency", sa.String(16), nullable=True))
    op.add_column("tournaments", sa.Column("fee_amount", sa.BigInteger(), nullable=True))
    op.add_column("tournaments", sa.Column("prizes", sa.JSON(), nullable=True))
    op.add_column("tournaments", sa.Column("payouts", sa.JSON(), nullable=True))


def downgrade() -> None:
    for column in ("payouts", "prizes", "fee_amount", "fee_currency"):
        op.drop_column("tournaments", column)
