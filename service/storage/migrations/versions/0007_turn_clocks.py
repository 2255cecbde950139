"""Turn clocks: a match's clock, the deadline of the seat to play, timeouts in a row,
and log entries marked as played on a seat's behalf.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30 07:00:00

"""
from alembic import op
import sqlalchemy as sa

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('clock_seconds', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('clock_timeout', sa.String(length=8), nullable=True))
        batch_op.add_column(sa.Column('deadline', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('timeouts', sa.JSON(), nullable=False,
                                      server_default='[]'))
        batch_op.create_index('ix_matches_deadline', ['deadline'], unique=False)
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.alter_column('timeouts', existing_type=sa.JSON(), server_default=None)
    with op.batch_alter_table('moves', schema=None) as batch_op:
        batch_op.add_column(sa.Column('timeout', sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
    with op.batch_alter_table('moves', schema=None) as batch_op:
        batch_op.alter_column('timeout', existing_type=sa.Boolean(), server_default=None)


def downgrade():
    with op.batch_alter_table('moves', schema=None) as batch_op:
        batch_op.drop_column('timeout')
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_index('ix_matches_deadline')
        batch_op.drop_column('timeouts')
        batch_op.drop_column('deadline')
        batch_op.drop_column('clock_timeout')
        batch_op.drop_column('clock_seconds')
