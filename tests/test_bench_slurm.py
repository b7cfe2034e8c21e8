"""`bench run --hosts-via slurm` against a REAL single-node Slurm (tests/slurmkit.py): srun runs
`fabriclint host snapshot` on the node gpu01, whose host tools are stand-ins serving gpu01's
outputs of the bench-before snapshot (tests/hostkit.py); the switches come from the lab over
SSH, as in tests/test_bench.py."""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint import bom
from fabriclint.benchrun import SLURM_RECORD, RunOptions, Verdict, run
from fabriclint.cli.app import app
from fabriclint.collectors.run import CollectOptions, load_inventory
from fabriclint.commands import PLATFORMS
from fabriclint.engine import UsageError
from fabriclint.lab.counters import attach
from fabriclint.lab.device import load_snapshot_devices
from fabriclint.lab.server import Lab
from fabriclint.snapshot import read_manifest
from tests.collectors.labkit import FAST, LAB_PASSWORD, ROCE_POD, write_overlay
from tests.hostkit import fake_tools
from tests.slurmkit import SlurmCluster, binaries_or_reason

ROOT = Path(__file__).resolve().parents[1]
STANDIN = ROOT / "scripts" / "nccl_standin.py"
BASE = ROCE_POD / "snapshots" / "bench-before"


@pytest.fixture(scope="module")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmCluster]:
    reason = binaries_or_reason()
    if reason is not None:
        pytest.skip(reason)
    cluster = SlurmCluster(tmp_path_factory.mktemp("slurm"))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def one_host_fabric(tmp: Path) -> Path:
    """roce-pod with gpu01 as its only host (the one node of the test cluster)."""
    fabric = tmp / "pod1"
    fabric.mkdir()
    for name in ("intent.yaml", "policy.yaml"):
        shutil.copy(ROCE_POD / name, fabric / name)
    text = (ROCE_POD / "inventory.yaml").read_text()
    text = re.sub(r"^  gpu0[234]:\n(?:    .*\n)+", "", text, flags=re.M)
    lines = [line for line in text.splitlines() if not re.search(r"gpu0[234]:", line)]
    (fabric / "inventory.yaml").write_text("\n".join(lines) + "\n")
    return fabric


@pytest.fixture
def on_node(slurm: SlurmCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """srun finds the cluster; the node's tasks find gpu01's stand-in tools first on PATH."""
    bin_dir = fake_tools(tmp_path / "bin", (BASE / "gpu01").resolve())
    monkeypatch.setenv("SLURM_CONF", slurm.env["SLURM_CONF"])
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin:/usr/sbin:/sbin")
    return bin_dir


def gate(tmp: Path, fabric: Path, *, tc: str = "104") -> tuple[Path, Verdict]:
    lock = tmp / "bom.lock.json"
    lock.write_text(bom.dumps(bom.take(fabric, BASE).lock))
    # the lab answers for the switches only: the hosts are reached through srun, never SSH
    devices = [d for d in load_snapshot_devices(BASE) if PLATFORMS[d.platform].kind != "host"]
    attach(devices, [link.ends() for link in load_inventory(ROCE_POD).links], "healthy")
    with Lab(devices, password=LAB_PASSWORD) as lab:
        opts = RunOptions(
            fabric_dir=fabric,
            lock=lock,
            command=[sys.executable, str(STANDIN), "-J", str(tmp / "ar.json")],
            collect=CollectOptions(
                overlay=write_overlay(lab, tmp), env=lab.env(), timeouts=FAST, workers=8
            ),
            out_root=tmp / "bench",
            env={"NCCL_IB_TC": tc, "PATH": "/usr/bin:/bin"},
            hosts_via="slurm",
        )
        return run(opts)


def test_hosts_through_srun_give_a_trusted_run(on_node: Path, tmp_path: Path) -> None:
    fabric = one_host_fabric(tmp_path)
    bundle, verdict = gate(tmp_path, fabric)
    assert (verdict.word, verdict.reasons, verdict.incomplete) == ("trusted", [], [])
    record = json.loads((bundle / SLURM_RECORD).read_text())
    assert sorted(record) == ["after", "before", "config"]
    assert all(r["exit_status"] == 0 and r["nodes"] == ["gpu01"] for r in record.values())
    assert "--nodelist=gpu01" in record["config"]["argv"]
    # gpu01's outputs went through srun and the node's own tools, byte for byte
    config = read_manifest(bundle / "snapshots" / "config").devices
    base = read_manifest(BASE).devices
    assert config["gpu01"].status == "ok"
    for key, filename in config["gpu01"].files.items():
        got = (bundle / "snapshots" / "config" / "gpu01" / filename).read_bytes()
        assert got == (BASE / "gpu01" / base["gpu01"].files[key]).read_bytes(), key
    assert set(config) == {"gpu01", "spine01", "spine02", "leaf01", "leaf02", "leaf03", "leaf04"}
    before = read_manifest(bundle / "snapshots" / "before").devices["gpu01"]
    assert "ethtool -S ens1np0" in before.files
    assert not (bundle / "hosts").exists()
    judged = CliRunner().invoke(app, ["bench", "judge", str(bundle), "--fabric", str(fabric)])
    assert judged.exit_code == 0 and judged.stdout.strip().endswith(": trusted")


def test_nodes_srun_cannot_reach_make_the_run_incomplete_by_name(
    on_node: Path, tmp_path: Path
) -> None:
    # roce-pod's gpu02..gpu04 are no node of this cluster: srun refuses the whole node list
    bundle, verdict = gate(tmp_path, ROCE_POD)
    assert verdict.word == "incomplete"
    text = "\n".join(verdict.incomplete)
    for node in ("gpu01", "gpu02", "gpu03", "gpu04"):
        assert f"{node} unreachable" in text
    assert "hosts via slurm (config): on gpu01, gpu02, gpu03, gpu04: srun exited" in text
    entry = read_manifest(bundle / "snapshots" / "config").devices["gpu03"]
    assert entry.status == "unreachable" and "srun" in (entry.error or "")
    judged = CliRunner().invoke(app, ["bench", "judge", str(bundle), "--fabric", str(ROCE_POD)])
    assert judged.exit_code == 3 and "hosts via slurm (after)" in judged.stdout


def test_a_node_whose_tools_are_missing_is_incomplete(
    on_node: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for tool in on_node.iterdir():
        tool.unlink()  # the node has none of the host tools
    _, verdict = gate(tmp_path, one_host_fabric(tmp_path))
    assert verdict.word == "incomplete"
    text = "\n".join(verdict.incomplete)
    assert "gpu01 command-failed" in text
    assert "srun exited with status 3" in text


def test_no_srun_is_a_usage_error_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    lock = tmp_path / "bom.lock.json"
    lock.write_text(bom.dumps(bom.take(ROCE_POD, BASE).lock))
    opts = RunOptions(
        fabric_dir=ROCE_POD,
        lock=lock,
        command=["true"],
        collect=CollectOptions(),
        out_root=tmp_path / "bench",
        hosts_via="slurm",
    )
    with pytest.raises(UsageError, match="srun"):
        run(opts)
    assert not (tmp_path / "bench").exists()
