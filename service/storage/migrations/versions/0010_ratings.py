"""Rated matches and ratings: a match may be rated (its seats distinct vouched players),
each player has a rating per pool (the variant, one front end's), and each rated match leaves a rating
change per seat (for charts) and the match's rating_changes.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 21:30:00

"""
from alembic import op
import sqlalchemy as sa

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    with op.batch_alter_table('matches') as batch:
        batch.add_column(sa.Column('rated', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column('rating_changes', sa.JSON(), nullable=True))
    op.create_table(
        'ratings',
        sa.Column('player_pk', PK, nullable=False),
        sa.Column('pool', sa.String(length=64), nullable=False),
        sa.Column('tenant_pk', PK, nullable=False),
        sa.Column('mu', sa.Float(), nullable=False),
        sa.Column('sigma', sa.Float(), nullable=False),
        sa.Column('ordinal', sa.Float(), nullable=False),
        sa.Column('games', sa.Integer(), nullable=False),
        sa.Column('rated_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('rank', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(['player_pk'], ['players.pk'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['tenant_pk'], ['tenants.pk'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('player_pk', 'pool'),
    )
    op.create_index('ix_ratings_board', 'ratings', ['tenant_pk', 'pool', 'rank'])
    op.create_table(
        'rating_changes',
        sa.Column('pk', PK, autoincrement=True, nullable=False),
        sa.Column('player_pk', PK, nullable=False),
        sa.Column('pool', sa.String(length=64), nullable=False),
        sa.Column('match_pk', PK, nullable=False),
        sa.Column('mu', sa.Float(), nullable=False),
        sa.Column('sigma', sa.Float(), nullable=False),
        sa.Column('ordinal', sa.Float(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['player_pk'], ['players.pk'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['match_pk'], ['matches.pk'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('pk'),
    )
    op.create_index('ix_rating_changes_player', 'rating_changes', ['player_pk', 'pool', 'pk'])


def downgrade():
    op.drop_index('ix_rating_changes_player', table_name='rating_changes')
    op.drop_table('rating_changes')
    op.drop_index('ix_ratings_board', table_name='ratings')
    op.drop_table('ratings')
    with op.batch_alter_table('matches') as batch:
        batch.drop_column('rating_changes')
        batch.drop_column('rated')
