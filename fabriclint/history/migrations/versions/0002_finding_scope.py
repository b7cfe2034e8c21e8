"""Each finding's setting and ports, to follow a finding that changes scope across nights.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add findings.setting and findings.ports (JSON list), empty for rows recorded before."""
    with op.batch_alter_table("findings") as batch:
        batch.add_column(sa.Column("setting", sa.Text, nullable=True))
        batch.add_column(sa.Column("ports", sa.Text, nullable=True))


def downgrade() -> None:
    """Drop the two columns."""
    with op.batch_alter_table("findings") as batch:
        batch.drop_column("ports")
        batch.drop_column("setting")
