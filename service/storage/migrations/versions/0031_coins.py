"""Coins: a front end's currencies, the accounts holding them, the append-only transfers
between accounts and the holds in escrow; and each front end's settings (the rake, the
starting grant, fair play's thresholds).

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-06 16:30:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0031'
down_revision = '0030'
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
ACCOUNT = 160


def _tenant(**options: object) -> sa.Column:
    return sa.Column("tenant_pk", PK, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                     **options)


def _partial(column: str) -> dict[str, sa.TextClause]:
    where = sa.text(f"{column} IS NOT NULL")
    return {"postgresql_where": where, "sqlite_where": where}


def upgrade() -> None:
    op.create_table(
        "currencies",
        _tenant(primary_key=True),
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "coin_accounts",
        sa.Column("tenant_pk", PK, primary_key=True),
        sa.Column("currency", sa.String(16), primary_key=True),
        sa.Column("account", sa.String(ACCOUNT), primary_key=True),
        sa.Column("balance", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.ForeignKeyConstraint(["tenant_pk", "currency"],
                                ["currencies.tenant_pk", "currencies.code"],
                                ondelete="CASCADE"),
    )
    op.create_table(
        "coin_transfers",
        sa.Column("pk", PK, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(32), nullable=False, unique=True),
        _tenant(nullable=False),
        sa.Column("currency", sa.String(16), nullable=False),
        sa.Column("debit", sa.String(ACCOUNT), nullable=False),
        sa.Column("credit", sa.String(ACCOUNT), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text()),
        sa.Column("reference", sa.String(200)),
        sa.Column("match_pk", sa.BigInteger()),
        sa.Column("tournament_pk", sa.BigInteger()),
        sa.Column("idempotency_key", sa.String(200)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("amount > 0", name="ck_coin_transfers_amount"),
    )
    op.create_index("ix_coin_transfers_debit", "coin_transfers",
                    ["tenant_pk", "currency", "debit", "pk"])
    op.create_index("ix_coin_transfers_credit", "coin_transfers",
                    ["tenant_pk", "currency", "credit", "pk"])
    op.create_index("ix_coin_transfers_match", "coin_transfers", ["match_pk"],
                    **_partial("match_pk"))
    op.create_index("ix_coin_transfers_tournament", "coin_transfers", ["tournament_pk"],
                    **_partial("tournament_pk"))
    op.create_index("ix_coin_transfers_idempotency", "coin_transfers",
                    ["tenant_pk", "idempotency_key"], unique=True,
                    **_partial("idempotency_key"))
    op.create_table(
        "coin_holds",
        sa.Column("pk", PK, primary_key=True, autoincrement=True),
        _tenant(nullable=False),
        sa.Column("currency", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("escrow", sa.String(ACCOUNT), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("match_pk", sa.BigInteger()),
        sa.Column("tournament_pk", sa.BigInteger()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_coin_holds_once", "coin_holds",
                    ["tenant_pk", "escrow", "player_id", "currency"], unique=True)
    op.create_index("ix_coin_holds_player", "coin_holds", ["tenant_pk", "player_id"])
    op.create_index("ix_coin_holds_match", "coin_holds", ["match_pk"], **_partial("match_pk"))
    op.create_index("ix_coin_holds_tournament", "coin_holds", ["tournament_pk"],
                    **_partial("tournament_pk"))
    op.create_table(
        "front_end_settings",
        _tenant(primary_key=True),
        sa.Column("rake_share_bp", sa.Integer(), nullable=False),
        sa.Column("rake_cap", sa.BigInteger()),
        sa.Column("starting_grant", sa.JSON(), nullable=False),
        sa.Column("fair_play", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("front_end_settings")
    op.drop_table("coin_holds")
    op.drop_table("coin_transfers")
    op.drop_table("coin_accounts")
    op.drop_table("currencies")
