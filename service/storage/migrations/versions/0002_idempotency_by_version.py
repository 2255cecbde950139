"""Idempotency keys remember the moves they answered, not the rendered response.

A retried request's response is rebuilt from the move log (the source of
truth), so a key costs a few integers instead of a copy of the whole view.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 06:00:00

"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade():
    # stored responses cannot be turned into move ranges; keys are short-lived retries
    op.execute("DELETE FROM idempotency_keys")
    with op.batch_alter_table('idempotency_keys', schema=None) as batch_op:
        batch_op.add_column(sa.Column('first_seq', sa.Integer(), nullable=False))
        batch_op.add_column(sa.Column('version', sa.Integer(), nullable=False))
        batch_op.drop_column('body')
        batch_op.drop_column('status')


def downgrade():
    op.execute("DELETE FROM idempotency_keys")
    with op.batch_alter_table('idempotency_keys', schema=None) as batch_op:
        batch_op.add_column(sa.Column('status', sa.Integer(), nullable=False))
        batch_op.add_column(sa.Column(
            'body', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'),
            nullable=False,
        ))
        batch_op.drop_column('version')
        batch_op.drop_column('first_seq')
