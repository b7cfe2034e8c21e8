"""A live inventory source (inventory-source.yaml): `check`, `collect` and `nightly` read the
fake NetBox through the importers, keep a cache, fall back to it when NetBox is down, and
never write the token anywhere."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.collectors.run import CollectUsageError, load_inventory
from fabriclint.inventories import SourceError
from fabriclint.inventories.live import cache_info, parse_duration, refresh
from fabriclint.loaders.fabric import CACHE_FILE
from tests.inventories import roce_pod
from tests.inventories.netbox_server import TOKEN, netbox_data, serve

ROOT = Path(__file__).resolve().parents[2]
FABRIC = ROOT / "inventories" / "roce-pod"
BROKEN = str(FABRIC / "snapshots" / "broken")
runner = CliRunner()


def live_fabric(tmp_path: Path, url: str, extra: str = "") -> Path:
    """roce-pod's intent and policy, with its inventory read live from NetBox at `url`."""
    fabric = tmp_path / "roce-pod"
    fabric.mkdir(parents=True)
    for name in ("intent.yaml", "policy.yaml"):
        shutil.copy(FABRIC / name, fabric / name)
    roce_pod.write_mapping(fabric)
    (fabric / "inventory-source.yaml").write_text(
        "source: netbox\n"
        f"url: {url}\n"
        "token_env: POD_NETBOX_TOKEN\n"
        "filters: {sites: [pod-a]}\n"
        "mapping: mapping.yaml\n" + extra
    )
    return fabric


def invoke(*args: str, token: str = TOKEN) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"POD_NETBOX_TOKEN": token})
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def findings(*args: str) -> tuple[int, list[tuple[str, str, str]]]:
    """Exit code and (rule, device, message) of every finding of a JSON check."""
    result = runner.invoke(
        app, ["check", *args, "--format", "json"], env={"POD_NETBOX_TOKEN": TOKEN}
    )
    start = result.stdout.index("{")
    report = json.loads(result.stdout[start:])
    found = sorted((f["rule"], f["device"] or "", f["message"]) for f in report["findings"])
    return result.exit_code, found


def test_check_reads_netbox_and_equals_the_hand_written_inventory(tmp_path: Path) -> None:
    data = netbox_data()
    with serve(data) as url:
        fabric = live_fabric(tmp_path, url)
        mine = findings(str(fabric), "--snapshot", BROKEN)
        code, out = invoke("check", str(fabric), "--snapshot", BROKEN)
    theirs = findings(str(FABRIC), "--snapshot", BROKEN)
    assert mine == theirs and mine[0] == 1 and mine[1]
    assert "inventory: read 10 devices, 16 links from netbox" in out
    assert code == 1
    cache = (fabric / CACHE_FILE).read_text()
    assert TOKEN not in cache and TOKEN not in out
    info = cache_info(fabric / CACHE_FILE)
    assert info is not None and info.source == "netbox" and info.where == f"{url}"
    assert abs(datetime.now(UTC) - info.fetched) < timedelta(minutes=5)
    assert all("Authorization" not in r for r in data.requests)  # only the header carries it


def test_offline_and_a_netbox_that_is_down_use_the_cache(tmp_path: Path) -> None:
    with serve(netbox_data()) as url:
        fabric = live_fabric(tmp_path, url)
        code, out = invoke("inventory", "refresh", str(fabric))
        assert code == 0, out
    want = findings(str(FABRIC), "--snapshot", BROKEN)
    # the server is gone: its port refuses connections
    assert findings(str(fabric), "--snapshot", BROKEN, "--offline") == want
    code, out = invoke("check", str(fabric), "--snapshot", BROKEN, "--offline")
    assert code == 1 and "warning: inventory: offline: using the cache of netbox" in out
    assert findings(str(fabric), "--snapshot", BROKEN) == want
    code, out = invoke("check", str(fabric), "--snapshot", BROKEN)
    assert code == 1
    assert "warning: inventory: " in out and "cannot reach NetBox" in out
    assert "using the cache of netbox" in out and "ago)" in out


def test_down_with_no_cache_or_a_stale_one_is_incomplete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POD_NETBOX_TOKEN", TOKEN)
    with serve(netbox_data()) as url:
        fabric = live_fabric(tmp_path, url, "max_age: 2h\n")
    code, out = invoke("check", str(fabric), "--snapshot", BROKEN)
    assert code == 3 and "cannot reach NetBox" in out and "no inventory cache" in out
    assert not (fabric / CACHE_FILE).exists()
    with serve(netbox_data()) as url2:
        fabric2 = live_fabric(tmp_path / "two", url2, "max_age: 2h\n")
        assert refresh(fabric2) is not None
    later = datetime.now(UTC) + timedelta(hours=1)
    done = refresh(fabric2, now=later)  # down, cache 1 h old: fine
    assert done is not None and done.warning and "(1h ago)" in done.message
    with pytest.raises(SourceError) as caught:
        refresh(fabric2, now=later + timedelta(hours=2))
    assert caught.value.exit_code == 3
    assert "the cache is 3h old, more than max_age 2h" in str(caught.value)


def test_a_refused_token_is_a_usage_error_even_with_a_cache(tmp_path: Path) -> None:
    with serve(netbox_data()) as url:
        fabric = live_fabric(tmp_path, url)
        assert invoke("inventory", "refresh", str(fabric))[0] == 0
        wrong = "wrong-token-" + "y" * 28
        code, out = invoke("check", str(fabric), "--snapshot", BROKEN, token=wrong)
        assert code == 2 and "NetBox refused the token (HTTP 403" in out
        assert wrong not in out and wrong not in (fabric / CACHE_FILE).read_text()
        code, out = invoke("check", str(fabric), "--snapshot", BROKEN, token="")
        assert code == 2 and "set the environment variable POD_NETBOX_TOKEN" in out


def test_offline_without_a_cache_and_changed_settings(tmp_path: Path) -> None:
    with serve(netbox_data()) as url:
        fabric = live_fabric(tmp_path, url)
        code, out = invoke("check", str(fabric), "--snapshot", BROKEN, "--offline")
        assert code == 2 and "--offline: no inventory cache" in out
        assert invoke("inventory", "refresh", str(fabric))[0] == 0
    # other filters: the cache no longer describes this source, so it is no fallback
    source = fabric / "inventory-source.yaml"
    source.write_text(source.read_text().replace("[pod-a]", "[pod-a, pod-b]"))
    code, out = invoke("check", str(fabric), "--snapshot", BROKEN)
    assert code == 3 and "fetched with other settings of inventory-source.yaml" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("source: netbox\nurl: http://127.0.0.1:9\nmax_age: soon\n", "is not a duration"),
        ("source: netbox\nurl: http://127.0.0.1:9\ntoken: abc\n", "token"),
        ("source: librenms\n", "source"),
        ("source: nornir\ninputs: [../outside]\n", "outside"),
    ],
)
def test_a_wrong_source_file_is_located(tmp_path: Path, content: str, message: str) -> None:
    fabric = live_fabric(tmp_path, "http://127.0.0.1:9")
    (fabric / "inventory-source.yaml").write_text(content)
    code, out = invoke("check", str(fabric), "--snapshot", BROKEN)
    assert code == 2 and message in out, out
    assert "inventory-source.yaml" in out


def test_inventory_yaml_beside_a_source_is_refused(tmp_path: Path) -> None:
    fabric = live_fabric(tmp_path, "http://127.0.0.1:9")
    shutil.copy(FABRIC / "inventory.yaml", fabric / "inventory.yaml")
    code, out = invoke("check", str(fabric), "--snapshot", BROKEN)
    assert code == 2 and "both inventory.yaml and inventory-source.yaml" in out
    code, out = invoke("validate", str(fabric))
    assert code == 2 and "inventory.yaml is here too" in out


def test_collect_validate_and_nightly_read_the_cache(tmp_path: Path) -> None:
    with serve(netbox_data()) as url:
        fabric = live_fabric(tmp_path, url)
        with pytest.raises(CollectUsageError, match="no inventory fetched yet"):
            load_inventory(fabric)
        code, out = invoke("validate", str(fabric))
        assert code == 2 and "no inventory fetched yet" in out
        code, out = invoke(
            "nightly", str(fabric), "--snapshot", str(FABRIC / "snapshots" / "baseline")
        )
        assert code == 0, out
        assert "inventory: read 10 devices, 16 links from netbox" in out
    assert set(load_inventory(fabric).devices) == set(roce_pod.SWITCHES) | set(roce_pod.HOSTS)
    assert invoke("validate", str(fabric))[0] == 0
    reports = list((fabric / "reports").rglob("*"))
    assert reports and not any(TOKEN in p.read_text() for p in reports if p.is_file())


def test_nornir_source_inside_the_fabric_folder(tmp_path: Path) -> None:
    fabric = live_fabric(tmp_path, "http://127.0.0.1:9")
    (fabric / "nornir").mkdir()
    roce_pod.write_nornir(fabric / "nornir")
    (fabric / "inventory-source.yaml").write_text(
        "source: nornir\ninputs: [nornir]\nmapping: mapping.yaml\n"
    )
    assert findings(str(fabric), "--snapshot", BROKEN) == findings(
        str(FABRIC), "--snapshot", BROKEN
    )


@pytest.mark.parametrize(
    ("text", "seconds"), [("90", 90), ("30m", 1800), ("24h", 86400), (" 7d ", 604800)]
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text).total_seconds() == seconds


def test_collect_reads_the_source_then_collects_from_the_lab(tmp_path: Path) -> None:
    from tests.collectors.labkit import lab_for, write_overlay

    with serve(netbox_data()) as url, lab_for(FABRIC / "snapshots" / "baseline") as lab:
        fabric = live_fabric(tmp_path, url)
        out = tmp_path / "snap"
        args = ["collect", str(fabric), "--overlay", str(write_overlay(lab, tmp_path))]
        result = runner.invoke(
            app,
            [*args, "--out", str(out), "--limit", "leaf01", "--timeout", "20"],
            env={**lab.env(), "POD_NETBOX_TOKEN": TOKEN},
        )
    assert result.exit_code == 0, result.output
    assert "inventory: read 10 devices, 16 links from netbox" in result.stderr
    assert (out / "leaf01" / "show_running-config.txt").is_file()
    written = [p for p in out.rglob("*") if p.is_file()] + [fabric / CACHE_FILE]
    assert not [p for p in written if TOKEN in p.read_text(errors="replace")]


def test_the_fast_check_start_knows_offline() -> None:
    from fabriclint.cli import check as command
    from fabriclint.cli import fast

    parsed = fast.parse(["check", "pod", "--offline", "--snapshot", "s"], command.check)
    assert parsed is not None and parsed[1]["offline"] is True
    default = fast.parse(["check", "pod"], command.check)
    assert default is not None and default[1]["offline"] is False
