"""A player can be signed out everywhere: the tokens issued before ``signed_out_at``
are refused (each process reads the sign-outs since its last read once a second, by
an index of them).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-03 18:00:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("signed_out_at", sa.DateTime(timezone=True)))
    signed_out = sa.text("signed_out_at IS NOT NULL")
    op.create_index("ix_players_signed_out_at", "players", ["signed_out_at"],
                    postgresql_where=signed_out, sqlite_where=signed_out)


def downgrade() -> None:
    op.drop_index("ix_players_signed_out_at", table_name="players")
    op.drop_column("players", "signed_out_at")
