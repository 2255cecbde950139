"""A tournament's game cannot be aborted by its seats: matches say whether they are one
(those already paired are marked).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03 14:30:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


# plain ALTER TABLE, on SQLite too (3.35+ drops a column in place): a batch rebuild of
# matches would drop the old table, and the pairings' ON DELETE SET NULL lose their games


def upgrade() -> None:
    op.add_column("matches", sa.Column("tournament_game", sa.Boolean(), nullable=False,
                                       server_default=sa.false()))
    op.execute("UPDATE matches SET tournament_game = true WHERE pk IN "
               "(SELECT match_pk FROM tournament_pairings WHERE match_pk IS NOT NULL)")


def downgrade() -> None:
    op.drop_column("matches", "tournament_game")
