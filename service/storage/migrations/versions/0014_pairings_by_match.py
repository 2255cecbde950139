"""A tournament game is found by its match (its result is written as the match ends):
an index on the pairings' match.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03 13:00:00

"""
from alembic import op

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_tournament_pairings_match", "tournament_pairings", ["match_pk"])


def downgrade() -> None:
    op.drop_index("ix_tournament_pairings_match", table_name="tournament_pairings")
