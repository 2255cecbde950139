"""Friends (a request, then a friendship both ways) and challenges between players.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-03 19:30:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "friendships",
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("player_id", sa.String(128), primary_key=True),
        sa.Column("friend_id", sa.String(128), primary_key=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("accepted_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_friendships_friend", "friendships", ["tenant_pk", "friend_id"])
    op.create_table(
        "challenges",
        sa.Column("pk", PK, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(36), nullable=False, unique=True),
        sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("challenger", sa.String(128), nullable=False),
        sa.Column("challenged", sa.String(128), nullable=False),
        sa.Column("variant", sa.String(64), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("clock_seconds", sa.Integer()),
        sa.Column("clock_timeout", sa.String(8)),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("match_id", sa.String(36)),
    )
    op.create_index("ix_challenges_challenger", "challenges",
                    ["tenant_pk", "challenger", "status"])
    op.create_index("ix_challenges_challenged", "challenges",
                    ["tenant_pk", "challenged", "status"])
    op.create_index("ix_challenges_due", "challenges", ["status", "expires_at"])


def downgrade() -> None:
    op.drop_table("challenges")
    op.drop_table("friendships")
