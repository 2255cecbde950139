"""Webhooks per tenant: endpoints, the outbox of messages, and delivery attempts.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30 09:00:00

"""
from alembic import op
import sqlalchemy as sa

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    op.create_table(
        'webhooks',
        sa.Column('pk', PK, autoincrement=True, nullable=False),
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('tenant_pk', PK, nullable=False),
        sa.Column('url', sa.String(length=2048), nullable=False),
        sa.Column('events', sa.JSON(), nullable=False),
        sa.Column('secret', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('failed_in_a_row', sa.Integer(), nullable=False),
        sa.Column('disabled_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['tenant_pk'], ['tenants.pk'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('pk'),
        sa.UniqueConstraint('id'),
    )
    op.create_index('ix_webhooks_tenant_pk', 'webhooks', ['tenant_pk'])
    op.create_table(
        'webhook_messages',
        sa.Column('pk', PK, autoincrement=True, nullable=False),
        sa.Column('webhook_pk', PK, nullable=False),
        sa.Column('msg_id', sa.String(length=40), nullable=False),
        sa.Column('type', sa.String(length=32), nullable=False),
        sa.Column('body', sa.Text(), nullable=False),
        sa.Column('status', sa.String(length=10), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['webhook_pk'], ['webhooks.pk'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('pk'),
        sa.UniqueConstraint('msg_id'),
    )
    op.create_index('ix_webhook_messages_due', 'webhook_messages', ['status', 'next_attempt_at'])
    op.create_index('ix_webhook_messages_webhook', 'webhook_messages', ['webhook_pk', 'pk'])
    op.create_table(
        'webhook_attempts',
        sa.Column('pk', PK, autoincrement=True, nullable=False),
        sa.Column('message_pk', PK, nullable=False),
        sa.Column('webhook_pk', PK, nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('status_code', sa.Integer(), nullable=True),
        sa.Column('error', sa.String(length=300), nullable=True),
        sa.Column('duration_ms', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['message_pk'], ['webhook_messages.pk'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['webhook_pk'], ['webhooks.pk'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('pk'),
    )
    op.create_index('ix_webhook_attempts_webhook', 'webhook_attempts', ['webhook_pk', 'pk'])
    op.create_index('ix_webhook_attempts_at', 'webhook_attempts', ['at'])


def downgrade():
    op.drop_table('webhook_attempts')
    op.drop_table('webhook_messages')
    op.drop_table('webhooks')
