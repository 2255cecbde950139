"""Duplicate events: a tournament's deals at each table, 4-player tables, and matches
sealed while their round goes on.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-06 03:30:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0028'
down_revision = '0027'
branch_labels = None
depends_on = None


def _system_width(old: int, new: int) -> None:
    """``tournaments.system`` from VARCHAR(old) to VARCHAR(new) ("duplicate" is 9). Only
    PostgreSQL holds a VARCHAR to its length; SQLite would have to copy the table, and
    dropping the old copy would cascade to its entrants and pairings."""
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("tournaments", "system", type_=sa.String(new),
                        existing_type=sa.String(old), existing_nullable=False)


def upgrade() -> None:
    op.add_column("matches", sa.Column("sealed", sa.Boolean(), nullable=False,
                                       server_default=sa.false()))
    op.add_column("tournaments", sa.Column("deals", sa.Integer()))
    op.add_column("tournament_pairings", sa.Column("third", sa.String(128)))
    op.add_column("tournament_pairings", sa.Column("fourth", sa.String(128)))
    _system_width(8, 16)


def downgrade() -> None:
    _system_width(16, 8)
    op.drop_column("tournament_pairings", "fourth")
    op.drop_column("tournament_pairings", "third")
    op.drop_column("tournaments", "deals")
    op.drop_column("matches", "sealed")
