"""inventories/ib-cluster collected from its own lab: InfiniBand-only hosts have no RoCE
netdevs, so `ip -d link show` is optional for them; a RoCE host still needs it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fabriclint.collectors.plan import PlanResult
from fabriclint.commands import missing_required
from tests.collectors.labkit import ROCE_POD, ROOT, check, collect_from, finding_keys, lab_for

IB_CLUSTER = ROOT / "inventories" / "ib-cluster"


@pytest.mark.parametrize("name", ["baseline", "broken"])
def test_ib_cluster_is_collectable_from_its_lab(tmp_path: Path, name: str) -> None:
    original = IB_CLUSTER / "snapshots" / name
    out = tmp_path / "live"
    with lab_for(original) as lab:
        result = collect_from(lab, IB_CLUSTER, out)
    assert result.complete, [(r.name, r.status, r.reason) for r in result.failed]
    offline, live = check(IB_CLUSTER, original), check(IB_CLUSTER, out)
    assert finding_keys(live) == finding_keys(offline)
    assert live.exit_code == offline.exit_code == (0 if name == "baseline" else 1)


def test_a_roce_host_without_ip_link_is_still_a_failed_device(tmp_path: Path) -> None:
    original = ROCE_POD / "snapshots" / "baseline"
    snapshot = tmp_path / "baseline"
    shutil.copytree(original, snapshot)
    (snapshot / "gpu01" / "ip_-d_link_show.txt").unlink()  # the lab answers: command not found
    manifest = json.loads((snapshot / "manifest.json").read_text())
    del manifest["devices"]["gpu01"]["files"]["ip -d link show"]
    (snapshot / "manifest.json").write_text(json.dumps(manifest))
    out = tmp_path / "live"
    with lab_for(snapshot) as lab:
        result = collect_from(lab, ROCE_POD, out, facts=False)
    failed = {r.name: r for r in result.failed}
    assert list(failed) == ["gpu01"] and failed["gpu01"].status == "command-failed"
    assert "'ip -d link show' is needed for the RoCE netdevs ens1np0, ens2np0" in str(
        failed["gpu01"].reason
    )


def test_roce_ports_seen_only_by_ibstat_need_the_netdev_map() -> None:
    ibstat = "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tLink layer: Ethernet\n"
    outputs = PlanResult(outputs={"ibstat": ibstat, "ip -d link show": "1: lo: <LOOPBACK>\n"})
    reason = missing_required("mlnx-host", outputs.outputs)
    assert reason is not None and "'ibdev2netdev' or 'rdma link show'" in reason
    infiniband = ibstat.replace("Ethernet", "InfiniBand")
    assert missing_required("mlnx-host", {"ibstat": infiniband}) is None
