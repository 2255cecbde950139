"""A webhook can be paused: its messages are still written, and wait until it resumes.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06 00:10:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0024'
down_revision = '0023'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("webhooks") as batch:
        batch.add_column(sa.Column("paused_at", sa.DateTime(timezone=True)))


def downgrade() -> None:
    with op.batch_alter_table("webhooks") as batch:
        batch.drop_column("paused_at")
