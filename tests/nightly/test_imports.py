"""`fabriclint --help` stays fast: the database libraries load only when a command uses them."""

from __future__ import annotations

import subprocess
import sys


def test_help_does_not_import_the_database_libraries() -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from fabriclint.cli.app import app\n"
        "for args in (['--help'], ['nightly', '--help'], ['history', '--help']):\n"
        "    r = CliRunner().invoke(app, args)\n"
        "    assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in ('sqlalchemy', 'alembic', 'psycopg') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
