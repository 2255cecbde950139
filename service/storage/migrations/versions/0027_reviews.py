"""A finished match's review: every play scored against the expert's choice.

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-06 03:00:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0027'
down_revision = '0026'
branch_labels = None
depends_on = None


PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("match_pk", PK, sa.ForeignKey("matches.pk", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk"), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("ready_at", sa.DateTime(timezone=True)),
        sa.Column("plays", sa.JSON()),
        sa.Column("cpu_ms", sa.Float()),
    )
    op.create_index("ix_reviews_status_asked", "reviews", ["status", "asked_at"])


def downgrade() -> None:
    op.drop_index("ix_reviews_status_asked", "reviews")
    op.drop_table("reviews")
