"""Tournament games are given their results as their matches end (they were given them
by the worker's next pass): the games whose match ended before this are given theirs
now, as the worker would have.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03 12:00:00

"""
from alembic import op

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None

ENDED = """
UPDATE tournament_pairings SET
    status = CASE WHEN m.status = 'aborted' THEN 'void' ELSE 'finished' END,
    draw = m.status = 'finished' AND m.draw,
    winner = CASE WHEN m.status <> 'finished' OR m.draw OR m.winner IS NULL THEN NULL
                  WHEN m.winner = 0 THEN tournament_pairings.first
                  ELSE tournament_pairings.second END,
    finished_at = m.updated_at
FROM matches m
WHERE m.pk = tournament_pairings.match_pk AND tournament_pairings.status = 'playing'
  AND m.status IN ('finished', 'aborted')
"""


def upgrade() -> None:
    op.execute(ENDED)


def downgrade() -> None:
    pass  # the results stay: the worker of 0012 reads only games still playing
