"""What `bench run --hosts-via slurm` records of srun (hosts-via-slurm.json in the bundle):
a secret passed in an srun option or echoed on its stderr never reaches the record, while
srun itself still gets the option as given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabriclint.slurm import HostTask, run_srun

TOKEN = "0123456789abcdef0123456789abcdef01234567"
FAKE_SRUN = """#!/bin/sh
printf '%s\\n' "$@" > {argv}
echo "srun: error: task 0 launch failed: NETBOX_TOKEN={token} not accepted" >&2
exit 1
"""


@pytest.mark.parametrize(
    "extra",
    [
        f"--export=ALL,NETBOX_TOKEN={TOKEN}",
        f"--export=NCCL_DEBUG=INFO,AWS_SECRET_ACCESS_KEY={TOKEN},X=1",
        f"--comment=DB_PASSWORD={TOKEN}",
    ],
)
def test_a_secret_in_an_srun_option_stays_out_of_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: str
) -> None:
    argv_file = tmp_path / "argv"
    srun = tmp_path / "bin" / "srun"
    srun.parent.mkdir()
    srun.write_text(FAKE_SRUN.format(argv=argv_file, token=TOKEN))
    srun.chmod(0o755)
    monkeypatch.setenv("PATH", f"{srun.parent}:/usr/bin:/bin")
    task = HostTask(tmp_path / "hosts", "mlnx-host", counters=False)
    record = run_srun(["gpu01"], task, [extra], timeout_s=30)
    assert record.exit_status == 1
    assert extra in argv_file.read_text().splitlines()  # srun was given the real value
    text = json.dumps(record.as_dict())
    assert TOKEN not in text
    assert "<redacted>" in text and "srun: error: task 0 launch failed" in text
    assert "NCCL_DEBUG=INFO" in text or "NCCL" not in extra  # harmless settings stay legible
