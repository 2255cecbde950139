"""Idempotency keys of match creates, per front end and caller, with the match each made.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04 09:00:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        'create_keys',
        sa.Column('tenant_pk', PK, nullable=False),
        sa.Column('caller', sa.String(length=64), nullable=False),
        sa.Column('key', sa.String(length=255), nullable=False),
        sa.Column('fingerprint', sa.String(length=64), nullable=False),
        sa.Column('match_pk', PK, nullable=False),
        sa.Column('salt', sa.String(length=64), nullable=False),
        sa.Column('token_check', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['tenant_pk'], ['tenants.pk']),
        sa.ForeignKeyConstraint(['match_pk'], ['matches.pk'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('tenant_pk', 'caller', 'key'),
    )
    op.create_index('ix_create_keys_created_at', 'create_keys', ['created_at'])


def downgrade() -> None:
    op.drop_index('ix_create_keys_created_at', table_name='create_keys')
    op.drop_table('create_keys')
