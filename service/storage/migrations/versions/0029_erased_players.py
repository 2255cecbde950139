"""A player erased: the tombstone row that refuses their old tokens is marked, so their
id answers as an unknown one until a server key vouches for it again.

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-08 10:00:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0029'
down_revision = '0028'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("erased_at", sa.DateTime(timezone=True)))
    # the tombstones of earlier erasures: the one write that set both times alike
    op.execute("UPDATE players SET erased_at = signed_out_at WHERE name IS NULL "
               "AND matches = 0 AND signed_out_at = created_at")


def downgrade() -> None:
    op.drop_column("players", "erased_at")
