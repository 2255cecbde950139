"""Players vouched for by their front end: players, a per-key browser origin list (a key
without one is a server key), each tenant's player-token secret, vouched seats.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 21:00:00

"""
from alembic import op
import sqlalchemy as sa

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    op.create_table(
        'players',
        sa.Column('pk', PK, autoincrement=True, nullable=False),
        sa.Column('tenant_pk', PK, nullable=False),
        sa.Column('player_id', sa.String(length=128), nullable=False),
        sa.Column('name', sa.String(length=64), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['tenant_pk'], ['tenants.pk'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('pk'),
    )
    op.create_index('ix_players_tenant_player', 'players', ['tenant_pk', 'player_id'],
                    unique=True)
    with op.batch_alter_table('api_keys') as batch:
        batch.add_column(sa.Column('origins', sa.JSON(), nullable=False,
                                   server_default=sa.text("'[]'")))
    # a tenant's origins applied to all its keys: each key keeps them
    op.execute("UPDATE api_keys SET origins = (SELECT tenants.origins FROM tenants "
               "WHERE tenants.pk = api_keys.tenant_pk)")
    with op.batch_alter_table('tenants') as batch:
        batch.add_column(sa.Column('player_secret', sa.String(length=64), nullable=True))
    with op.batch_alter_table('seats') as batch:
        batch.add_column(sa.Column('vouched', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))


def downgrade():
    with op.batch_alter_table('seats') as batch:
        batch.drop_column('vouched')
    with op.batch_alter_table('tenants') as batch:
        batch.drop_column('player_secret')
    with op.batch_alter_table('api_keys') as batch:
        batch.drop_column('origins')
    op.drop_index('ix_players_tenant_player', table_name='players')
    op.drop_table('players')
