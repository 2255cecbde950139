"""Webhook messages carry their lane (the match or tournament whose messages go out in
order) and a priority (a finish is claimed before anything else due); the index of due
messages holds only the pending ones, in the order they are claimed; the week's purge
finds old messages by an index of their age.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03 17:00:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("webhook_messages", sa.Column("lane", sa.String(40)))
    op.add_column("webhook_messages", sa.Column("holds_lane", sa.Boolean(), nullable=False,
                                                server_default=sa.false()))
    op.add_column("webhook_messages", sa.Column("priority", sa.SmallInteger(), nullable=False,
                                                server_default="1"))
    op.drop_index("ix_webhook_messages_due", table_name="webhook_messages")
    pending = sa.text("status = 'pending'")
    op.create_index("ix_webhook_messages_due", "webhook_messages",
                    ["priority", "next_attempt_at", "pk"], postgresql_where=pending,
                    sqlite_where=pending)
    op.create_index("ix_webhook_messages_created_at", "webhook_messages", ["created_at"])
    op.create_index("ix_webhook_messages_lane", "webhook_messages",
                    ["webhook_pk", "lane", "pk"], postgresql_where=sa.text("holds_lane"),
                    sqlite_where=sa.text("holds_lane"))


def downgrade() -> None:
    op.drop_index("ix_webhook_messages_created_at", table_name="webhook_messages")
    op.drop_index("ix_webhook_messages_lane", table_name="webhook_messages")
    op.drop_index("ix_webhook_messages_due", table_name="webhook_messages")
    op.create_index("ix_webhook_messages_due", "webhook_messages", ["status", "next_attempt_at"])
    op.drop_column("webhook_messages", "priority")
    op.drop_column("webhook_messages", "holds_lane")
    op.drop_column("webhook_messages", "lane")
