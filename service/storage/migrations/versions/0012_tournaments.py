"""Tournaments (Swiss and arena: entrants, pairings) and each player's event stream.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 08:00:00

"""
from alembic import op
import sqlalchemy as sa

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
WHEN = sa.DateTime(timezone=True)


def upgrade():
    op.create_table(
        'player_events',
        sa.Column('pk', PK, autoincrement=True, nullable=False),
        sa.Column('tenant_pk', PK, nullable=False),
        sa.Column('player_id', sa.String(length=128), nullable=False),
        sa.Column('type', sa.String(length=32), nullable=False),
        sa.Column('body', sa.Text(), nullable=False),
        sa.Column('created_at', WHEN, nullable=False),
        sa.ForeignKeyConstraint(['tenant_pk'], ['tenants.pk'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('pk'),
    )
    op.create_index('ix_player_events_player', 'player_events',
                    ['tenant_pk', 'player_id', 'pk'])
    op.create_index('ix_player_events_created_at', 'player_events', ['created_at'])
    op.create_table(
        'tournaments',
        sa.Column('pk', PK, autoincrement=True, nullable=False),
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('tenant_pk', PK, nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('variant', sa.String(length=64), nullable=False),
        sa.Column('rules', sa.JSON(), nullable=False),
        sa.Column('system', sa.String(length=8), nullable=False),
        sa.Column('rounds', sa.Integer(), nullable=True),
        sa.Column('duration_minutes', sa.Integer(), nullable=True),
        sa.Column('starts_at', WHEN, nullable=False),
        sa.Column('ends_at', WHEN, nullable=True),
        sa.Column('min_players', sa.Integer(), nullable=False),
        sa.Column('max_players', sa.Integer(), nullable=False),
        sa.Column('rated', sa.Boolean(), nullable=False),
        sa.Column('clock_seconds', sa.Integer(), nullable=False),
        sa.Column('clock_timeout', sa.String(length=8), nullable=False),
        sa.Column('status', sa.String(length=10), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('created_at', WHEN, nullable=False),
        sa.Column('finished_at', WHEN, nullable=True),
        sa.Column('standings', sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(['tenant_pk'], ['tenants.pk'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('pk'),
        sa.UniqueConstraint('id'),
    )
    op.create_index('ix_tournaments_due', 'tournaments', ['status', 'starts_at'])
    op.create_index('ix_tournaments_tenant', 'tournaments', ['tenant_pk', 'status', 'pk'])
    op.create_table(
        'tournament_entrants',
        sa.Column('tournament_pk', PK, nullable=False),
        sa.Column('player_id', sa.String(length=128), nullable=False),
        sa.Column('name', sa.String(length=64), nullable=True),
        sa.Column('joined_at', WHEN, nullable=False),
        sa.Column('withdrawn_at', WHEN, nullable=True),
        sa.ForeignKeyConstraint(['tournament_pk'], ['tournaments.pk'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('tournament_pk', 'player_id'),
    )
    op.create_table(
        'tournament_pairings',
        sa.Column('pk', PK, autoincrement=True, nullable=False),
        sa.Column('tournament_pk', PK, nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('first', sa.String(length=128), nullable=False),
        sa.Column('second', sa.String(length=128), nullable=True),
        sa.Column('match_pk', PK, nullable=True),
        sa.Column('status', sa.String(length=10), nullable=False),
        sa.Column('winner', sa.String(length=128), nullable=True),
        sa.Column('draw', sa.Boolean(), nullable=False),
        sa.Column('created_at', WHEN, nullable=False),
        sa.Column('finished_at', WHEN, nullable=True),
        sa.ForeignKeyConstraint(['tournament_pk'], ['tournaments.pk'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['match_pk'], ['matches.pk'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('pk'),
    )
    op.create_index('ix_tournament_pairings_tournament', 'tournament_pairings',
                    ['tournament_pk', 'round', 'pk'])
    op.create_index('ix_tournament_pairings_playing', 'tournament_pairings',
                    ['tournament_pk', 'status'])


def downgrade():
    op.drop_index('ix_tournament_pairings_playing', table_name='tournament_pairings')
    op.drop_index('ix_tournament_pairings_tournament', table_name='tournament_pairings')
    op.drop_table('tournament_pairings')
    op.drop_table('tournament_entrants')
    op.drop_index('ix_tournaments_tenant', table_name='tournaments')
    op.drop_index('ix_tournaments_due', table_name='tournaments')
    op.drop_table('tournaments')
    op.drop_index('ix_player_events_created_at', table_name='player_events')
    op.drop_index('ix_player_events_player', table_name='player_events')
    op.drop_table('player_events')
