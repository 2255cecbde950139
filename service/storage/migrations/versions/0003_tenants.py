"""Tenants (front ends) and their API keys; every match belongs to one.

Matches made before keys existed belong to the built-in "local" tenant.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 06:10:00

"""
from alembic import op
import sqlalchemy as sa

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')


def upgrade():
    op.create_table('tenants',
    sa.Column('pk', PK, autoincrement=True, nullable=False),
    sa.Column('name', sa.String(length=64), nullable=False),
    sa.Column('origins', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('pk'),
    sa.UniqueConstraint('name')
    )
    op.create_table('api_keys',
    sa.Column('pk', PK, autoincrement=True, nullable=False),
    sa.Column('tenant_pk', PK, nullable=False),
    sa.Column('key_hash', sa.String(length=64), nullable=False),
    sa.Column('prefix', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['tenant_pk'], ['tenants.pk'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('pk'),
    sa.UniqueConstraint('key_hash')
    )
    op.execute("INSERT INTO tenants (pk, name, origins, created_at) "
               "VALUES (1, 'local', '[]', CURRENT_TIMESTAMP)")
    if op.get_bind().dialect.name == 'postgresql':  # the sequence goes on after pk 1
        op.execute("SELECT setval(pg_get_serial_sequence('tenants', 'pk'), 1)")
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('tenant_pk', PK, nullable=True))
    op.execute("UPDATE matches SET tenant_pk = 1")
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.alter_column('tenant_pk', existing_type=PK, nullable=False)
        batch_op.create_foreign_key('fk_matches_tenant_pk_tenants', 'tenants', ['tenant_pk'], ['pk'])
        batch_op.create_index('ix_matches_tenant_pk', ['tenant_pk', 'pk'], unique=False)


def downgrade():
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_index('ix_matches_tenant_pk')
        batch_op.drop_constraint('fk_matches_tenant_pk_tenants', type_='foreignkey')
        batch_op.drop_column('tenant_pk')
    op.drop_table('api_keys')
    op.drop_table('tenants')
