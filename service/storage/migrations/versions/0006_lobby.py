"""Open seats, quick-play tables and rematches: a seat may wait for its player.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 06:50:00

"""
from alembic import op
import sqlalchemy as sa

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.alter_column('name', existing_type=sa.String(length=64), nullable=True)
        batch_op.alter_column('token_hash', existing_type=sa.String(length=64), nullable=True)
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('quick', sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
        batch_op.add_column(sa.Column('rematch_id', sa.String(length=36), nullable=True))
        batch_op.create_index('ix_matches_lobby', ['tenant_pk', 'status', 'rules_hash', 'pk'],
                              unique=False)
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.alter_column('quick', existing_type=sa.Boolean(), server_default=None)


def downgrade():
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_index('ix_matches_lobby')
        batch_op.drop_column('rematch_id')
        batch_op.drop_column('quick')
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.alter_column('token_hash', existing_type=sa.String(length=64), nullable=False)
        batch_op.alter_column('name', existing_type=sa.String(length=64), nullable=False)
