"""Table chat: the lines said at a match's table, kept with it, and each front end's
chat settings.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-03 21:50:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0023'
down_revision = '0022'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "chat_lines",
        sa.Column("pk", PK, primary_key=True, autoincrement=True),
        sa.Column("match_pk", PK, sa.ForeignKey("matches.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("seat", sa.SmallInteger()),
        sa.Column("player_id", sa.String(128)),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("phrase", sa.String(32)),
        sa.Column("text", sa.String(200)),
        sa.Column("filtered", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_chat_lines_match", "chat_lines", ["match_pk", "pk"])
    op.create_table(
        "chat_settings",
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("spectators", sa.Boolean(), nullable=False),
        sa.Column("words", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("chat_settings")
    op.drop_table("chat_lines")
