"""Staff keys with a role, and the console sessions they sign in to.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06 00:30:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0025'
down_revision = '0024'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "staff_keys",
        sa.Column("pk", PK, primary_key=True, autoincrement=True),
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_staff_keys_tenant_pk", "staff_keys", ["tenant_pk"])
    op.create_table(
        "staff_sessions",
        sa.Column("pk", PK, primary_key=True, autoincrement=True),
        sa.Column("staff_key_pk", PK, sa.ForeignKey("staff_keys.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("csrf_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_staff_sessions_staff_key_pk", "staff_sessions", ["staff_key_pk"])


def downgrade() -> None:
    op.drop_table("staff_sessions")
    op.drop_table("staff_keys")
