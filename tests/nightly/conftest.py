"""Fixtures of the nightly tests: a writable copy of roce-pod, a CLI runner, a throwaway
PostgreSQL server (Debian's `postgresql` package, skipped with the reason when absent)."""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
POD = ROOT / "inventories" / "roce-pod"


@pytest.fixture
def fabric(tmp_path: Path) -> Path:
    """roce-pod copied where the history and reports may be written."""
    target = tmp_path / "roce-pod"
    shutil.copytree(POD, target)
    return target


def nightly(fabric: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    """Run `fabriclint nightly FABRIC ARGS --format json`: exit code, the report, stderr."""
    result = CliRunner().invoke(app, ["nightly", str(fabric), *args, "--format", "json"])
    doc = json.loads(result.stdout) if result.stdout.strip().startswith("{") else {}
    return result.exit_code, doc, result.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_postgres_user(cmd: list[str]) -> list[str]:
    """initdb refuses to run as root (CI runs as root): run the server as `nobody` there."""
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "nobody", "--", *cmd]


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server of its own on a unix socket in a temporary folder, for this session."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.skip("PostgreSQL binaries absent (apt-get install postgresql; .ci/run does)")
    bindir = Path(found[-1]).parent
    home = Path(tempfile.mkdtemp(prefix="fabriclint-pg-"))
    data = home / "data"
    os.chmod(home, 0o755)
    if os.geteuid() == 0:
        shutil.chown(home, "nobody")
    port = _free_port()
    run = subprocess.run
    run(
        _as_postgres_user(
            [str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"]
        ),
        check=True,
        capture_output=True,
    )
    options = f"-k {home} -p {port} -c listen_addresses=''"
    run(
        _as_postgres_user(
            [
                str(bindir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-w",
                "-l",
                str(home / "log"),
                "start",
            ]
        ),
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql://postgres@/postgres?host={home}&port={port}"
    finally:
        run(
            _as_postgres_user([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
            capture_output=True,
            check=False,
        )
        shutil.rmtree(home, ignore_errors=True)
