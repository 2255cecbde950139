"""A stand-in bot keeps a dropped seat, and spectators may see a match some plays late.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-06 02:45:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0026'
down_revision = '0025'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTERs: a batch copy of matches on SQLite would cascade to its seats and log
    op.add_column("matches", sa.Column("stand_in", sa.String(16)))
    op.add_column("matches", sa.Column("dropped", sa.JSON(), nullable=False,
                                       server_default=sa.text("'[]'")))
    op.add_column("matches", sa.Column("spectator_delay", sa.Integer(), nullable=False,
                                       server_default=sa.text("0")))
    op.add_column("moves", sa.Column("stand_in", sa.Boolean(), nullable=False,
                                     server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("moves", "stand_in")
    op.drop_column("matches", "spectator_delay")
    op.drop_column("matches", "dropped")
    op.drop_column("matches", "stand_in")
