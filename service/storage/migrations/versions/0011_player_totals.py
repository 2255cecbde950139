"""A player's totals counted as each match finishes (matches, wins, losses, draws,
resigned, timed out, basras, jack basras, points), filled in from the finished matches
already kept; the leaderboard index holds only listed players.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 23:00:00

"""
from alembic import op
import sqlalchemy as sa

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

TOTALS = ('matches', 'wins', 'losses', 'draws', 'resigned', 'timed_out', 'basras',
          'jack_basras', 'points')

LOST = "NOT m.draw AND m.winner <> s.seat % 2"

# each vouched seat of a finished match, with the basras its seat made
FILL = """
UPDATE players SET {sets}
FROM (
    SELECT p.pk AS player_pk,
           count(*) AS matches,
           sum(CASE WHEN NOT m.draw AND m.winner = s.seat % 2 THEN 1 ELSE 0 END) AS wins,
           sum(CASE WHEN {lost} THEN 1 ELSE 0 END) AS losses,
           sum(CASE WHEN m.draw THEN 1 ELSE 0 END) AS draws,
           sum(CASE WHEN {lost} AND m.end_reason = 'resigned' THEN 1 ELSE 0 END) AS resigned,
           sum(CASE WHEN {lost} AND m.end_reason = 'timeout' THEN 1 ELSE 0 END) AS timed_out,
           sum(coalesce(b.basras, 0)) AS basras,
           sum(coalesce(b.jack_basras, 0)) AS jack_basras,
           sum({points}) AS points
    FROM seats s
    JOIN matches m ON m.pk = s.match_pk
    JOIN players p ON p.tenant_pk = m.tenant_pk AND p.player_id = s.player_id
    LEFT JOIN (
        SELECT match_pk, seat,
               sum(CASE WHEN basra = 'basra' THEN 1 ELSE 0 END) AS basras,
               sum(CASE WHEN basra = 'jack_basra' THEN 1 ELSE 0 END) AS jack_basras
        FROM moves WHERE basra IS NOT NULL GROUP BY match_pk, seat
    ) b ON b.match_pk = s.match_pk AND b.seat = s.seat
    WHERE s.vouched AND m.status = 'finished'
    GROUP BY p.pk
) AS t
WHERE players.pk = t.player_pk
"""

POINTS = {
    'postgresql': "coalesce((m.scores ->> (s.seat % 2))::int, 0)",
    'sqlite': "coalesce(json_extract(m.scores, '$[' || (s.seat % 2) || ']'), 0)",
}


def upgrade():
    with op.batch_alter_table('players') as batch:
        for name in TOTALS:
            batch.add_column(sa.Column(name, sa.Integer(), nullable=False,
                                       server_default='0'))
    dialect = op.get_bind().dialect.name
    op.execute(FILL.format(sets=', '.join(f'{name} = t.{name}' for name in TOTALS),
                           lost=LOST, points=POINTS[dialect]))
    op.drop_index('ix_ratings_board', table_name='ratings')
    op.create_index('ix_ratings_board', 'ratings', ['tenant_pk', 'pool', 'rank'],
                    postgresql_where=sa.text('rank IS NOT NULL'),
                    sqlite_where=sa.text('rank IS NOT NULL'))


def downgrade():
    op.drop_index('ix_ratings_board', table_name='ratings')
    op.create_index('ix_ratings_board', 'ratings', ['tenant_pk', 'pool', 'rank'])
    with op.batch_alter_table('players') as batch:
        for name in reversed(TOTALS):
            batch.drop_column(name)
