"""The first history schema: runs, run_devices, findings, run_findings.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the four tables of fabriclint.history.schema as of revision 0001."""
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("fabric", sa.String(200), nullable=False),
        sa.Column("started_at", sa.String(32), nullable=False),
        sa.Column("snapshot", sa.String(500), nullable=False),
        sa.Column("snapshot_path", sa.Text, nullable=False),
        sa.Column("complete", sa.Boolean, nullable=False),
        sa.Column("exit_code", sa.Integer, nullable=False),
        sa.Column("devices", sa.Integer, nullable=False),
        sa.Column("devices_ok", sa.Integer, nullable=False),
        *(
            sa.Column(name, sa.Integer, nullable=False)
            for name in ("new", "persisting", "resolved", "open_error", "open_warning")
        ),
        sa.Column("open_info", sa.Integer, nullable=False),
        sa.Column("suppressed", sa.Integer, nullable=False),
        sa.Column("collect_seconds", sa.Float, nullable=True),
        sa.Column("check_seconds", sa.Float, nullable=False),
    )
    op.create_index("ix_runs_fabric_started", "runs", ["fabric", "started_at"])
    op.create_table(
        "run_devices",
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id"), primary_key=True),
        sa.Column("device", sa.String(200), primary_key=True),
        sa.Column("role", sa.String(200), nullable=True),
        sa.Column("platform", sa.String(100), nullable=True),
        sa.Column("status", sa.String(50), nullable=False),
        sa.Column("error", sa.Text, nullable=True),
    )
    _findings()
    op.create_table(
        "run_findings",
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id"), primary_key=True),
        sa.Column("fingerprint", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("severity", sa.String(10), nullable=False),
        sa.Column("suppressed", sa.Boolean, nullable=False),
    )


def _findings() -> None:
    op.create_table(
        "findings",
        sa.Column("fabric", sa.String(200), primary_key=True),
        sa.Column("fingerprint", sa.String(64), primary_key=True),
        sa.Column("rule", sa.String(50), nullable=False),
        sa.Column("severity", sa.String(10), nullable=False),
        sa.Column("device", sa.String(200), nullable=True),
        sa.Column("object", sa.Text, nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("first_seen_run", sa.Integer, nullable=False),
        sa.Column("first_seen_at", sa.String(32), nullable=False),
        sa.Column("last_seen_run", sa.Integer, nullable=False),
        sa.Column("last_seen_at", sa.String(32), nullable=False),
        sa.Column("nights_open", sa.Integer, nullable=False),
        sa.Column("resolved_run", sa.Integer, nullable=True),
        sa.Column("resolved_at", sa.String(32), nullable=True),
        sa.Column("suppressed", sa.Text, nullable=True),
        sa.Column("reopened", sa.Integer, nullable=False),
        sa.Column("cause", sa.Text, nullable=True),
    )
    op.create_index("ix_findings_fabric_state", "findings", ["fabric", "state"])


def downgrade() -> None:
    """Drop everything revision 0001 created."""
    for table in ("run_findings", "findings", "run_devices", "runs"):
        op.drop_table(table)
