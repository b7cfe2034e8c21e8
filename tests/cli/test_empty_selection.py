"""A rule selection that leaves nothing to check is a usage error (exit 2), never a clean pass.

`ignore: [ALL]`, `select: []`, `--select BENCH` (rules only `bench judge` feeds) or IB rules on a
RoCE fabric would run no rule and report "complete, 0 findings": each is refused with one line
that names where the selection came from.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
POD = ROOT / "inventories" / "roce-pod"
IB = ROOT / "inventories" / "ib-cluster"

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.fixture
def pod(tmp_path: Path) -> Path:
    """roce-pod copied, so its policy.yaml may be rewritten."""
    return Path(shutil.copytree(POD, tmp_path / "roce-pod"))


def _policy(pod: Path, extra: str) -> None:
    policy = pod / "policy.yaml"
    policy.write_text(policy.read_text(encoding="utf-8") + extra, encoding="utf-8")


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ("ignore: [ALL]\n", "ignore"),
        ("select: []\n", "select"),
        ("select: [PFC]\nignore: [PFC]\n", "select"),
        ("select: [CTR, BENCH]\n", "select"),
    ],
)
def test_policy_selecting_nothing_is_refused_at_its_line(pod: Path, extra: str, key: str) -> None:
    _policy(pod, extra)
    lines = (pod / "policy.yaml").read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(lines, 1) if text.startswith(f"{key}:"))
    code, out = _run("check", str(pod), "--snapshot", "baseline")
    assert code == 2, out
    assert f"policy.yaml:{line}:" in out
    assert "nothing to check" in out
    assert "devices checked" not in out  # refused before anything is read


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--select", "BENCH"], "--select BENCH: the rules selected judge only `fabriclint bench"),
        (["--select", "CTR001"], "judge only `fabriclint counters` runs"),
        (
            ["--select", "IB"],
            "judge only subnet-manager devices or the hosts of an intent profile declaring "
            "`infiniband` and roce-pod has none",
        ),
        (["--select", "PFC", "--ignore", "PFC"], "--select PFC --ignore PFC: the rule selection"),
        (["--ignore", "ALL"], "--ignore ALL: the rule selection leaves no rule to run"),
        (["--select", "SUP"], "leaves no rule to run"),
    ],
)
def test_cli_selection_checking_nothing_is_refused(args: list[str], said: str) -> None:
    code, out = _run("check", str(POD), "--snapshot", "baseline", *args)
    assert code == 2, out
    assert said in " ".join(out.split())


@pytest.mark.parametrize(
    ("fabric", "args"),
    [
        (POD, ["--select", "PFC002"]),  # one rule that judges this fabric
        (POD, ["--select", "IB,PFC002"]),  # IB judges nothing here, PFC002 does
        (IB, ["--select", "IB"]),  # IB rules on an InfiniBand fabric
        (POD, ["--ignore", "PFC"]),
    ],
)
def test_a_selection_that_checks_something_runs(fabric: Path, args: list[str]) -> None:
    code, out = _run("check", str(fabric), "--snapshot", "baseline", *args)
    assert code in (0, 1), out
    assert "devices checked" in out


def test_policy_suppressing_every_finding_is_not_an_empty_selection(pod: Path) -> None:
    _policy(pod, 'suppressions:\n  - rule: PFC\n    device: "*"\n    reason: lab fabric\n')
    code, out = _run("check", str(pod), "--snapshot", "broken", "--select", "PFC")
    assert code in (0, 1), out
    assert "devices checked" in out


def test_nightly_refuses_a_policy_selecting_nothing(pod: Path) -> None:
    _policy(pod, "ignore: [ALL]\n")
    code, out = _run("nightly", str(pod), "--snapshot", "baseline")
    assert code == 2, out
    assert "policy.yaml" in out and "nothing to check" in out


def test_diff_refuses_a_policy_selecting_nothing(pod: Path) -> None:
    _policy(pod, "select: []\n")
    snaps = pod / "snapshots"
    code, out = _run("diff", str(snaps / "baseline"), str(snaps / "broken"), "--fabric", str(pod))
    assert code == 2, out
    assert "nothing to check" in out


def test_hca_rule_on_an_infiniband_fabric_without_its_sm_node(tmp_path: Path) -> None:
    """Where OpenSM runs on a managed switch the inventory lacks, IB010 still judges the hosts'
    HCA ports: the intent's `infiniband` profile says the fabric is InfiniBand."""
    fabric = Path(shutil.copytree(IB, tmp_path / "ib-hosts"))
    inventory = fabric / "inventory.yaml"
    text = inventory.read_text(encoding="utf-8")
    start, end = text.index("  sm01:\n"), text.index("  gpu01:\n")
    credentials = "    credentials: &sm_creds\n      username_env: FABRICLINT_HOST_USER\n"
    inventory.write_text(
        text[:start] + text[end:].replace("    credentials: *sm_creds\n", credentials, 1),
        encoding="utf-8",
    )
    code, out = _run("check", str(fabric), "--snapshot", "broken", "--select", "IB010")
    assert code == 1, out
    assert "IB010" in out and "mlx5_5/1" in out
    code, out = _run("check", str(fabric), "--snapshot", "broken", "--select", "IB001")
    assert code == 2 and "judge only subnet-manager devices and ib-cluster has none" in out, out
