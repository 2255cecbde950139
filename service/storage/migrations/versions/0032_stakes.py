"""Staked tables: a match keeps its stake (currency, amount: what each seat holds in the
table's escrow) and the rake its front end's settings gave it when it was made (a share
in basis points, a cap), so a settings change never alters a table already made; a
challenge keeps the stake its acceptance seats at.

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-11 10:00:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0032'
down_revision = '0031'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("stake_currency", sa.String(16)))
    op.add_column("matches", sa.Column("stake_amount", sa.BigInteger()))
    op.add_column("matches", sa.Column("rake_share_bp", sa.Integer()))
    op.add_column("matches", sa.Column("rake_cap", sa.BigInteger()))
    op.add_column("challenges", sa.Column("stake_currency", sa.String(16)))
    op.add_column("challenges", sa.Column("stake_amount", sa.BigInteger()))


def downgrade() -> None:
    with op.batch_alter_table("challenges") as batch:
        batch.drop_column("stake_amount")
        batch.drop_column("stake_currency")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("rake_cap")
        batch.drop_column("rake_share_bp")
        batch.drop_column("stake_amount")
        batch.drop_column("stake_currency")
