"""Why a match ended, how many rounds it has played, and whose turn it is, as columns
(for history entries, and for long polls that need not wait on the viewer's own turn).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 06:40:00

"""
from alembic import op
import sqlalchemy as sa

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('end_reason', sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column('rounds', sa.Integer(), nullable=False,
                                      server_default='1'))
        batch_op.add_column(sa.Column('turn', sa.Integer(), nullable=True))
    if op.get_bind().dialect.name == 'postgresql':
        op.execute("UPDATE matches SET rounds = (snapshot->>'round')::int, "
                   "turn = (snapshot->>'turn')::int")
    else:
        op.execute("UPDATE matches SET rounds = json_extract(snapshot, '$.round'), "
                   "turn = json_extract(snapshot, '$.turn')")
    op.execute("UPDATE matches SET end_reason = CASE WHEN EXISTS (SELECT 1 FROM moves "
               "WHERE moves.match_pk = matches.pk AND moves.kind = 'resign') "
               "THEN 'resigned' ELSE 'target_score' END WHERE status = 'finished'")
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.alter_column('rounds', existing_type=sa.Integer(), server_default=None)


def downgrade():
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_column('turn')
        batch_op.drop_column('rounds')
        batch_op.drop_column('end_reason')
