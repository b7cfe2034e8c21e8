"""The HTML report: colouring, tiers, which cable a finding is about, the layout at 10 and at
1,000+ devices, escaping of hostile names and messages, and the CLI writing it."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from fabriclint.models.finding import DeviceSummary, Finding
from fabriclint.reporters import Cable, get_reporter
from fabriclint.reporters import html as page
from tests.reporters.fixtures import finding, pod_report, report_for

ROOT = Path(__file__).resolve().parents[2]


def _f(severity: Any, suppressed: str | None = None, **kw: Any) -> Finding:
    kw.setdefault("device", "leaf01")
    kw.setdefault("obj", "qos")
    return finding("PFC002", "x", severity, suppressed=suppressed, **kw)


@pytest.mark.parametrize(
    ("severities", "suppressed", "checked", "expected"),
    [
        ([], [], True, "ok"),
        ([], [], False, "not-checked"),
        (["info"], [], True, "info"),
        (["info", "warning"], [], True, "warning"),
        (["warning", "error", "info"], [], True, "error"),
        ([], ["error"], True, "ok"),  # suppressed findings colour nothing
        (["info"], ["error"], True, "info"),
        (["warning"], [], False, "warning"),  # a finding on an unchecked device still shows
    ],
)
def test_colour_is_the_worst_active_finding(
    severities: list[str], suppressed: list[str], checked: bool, expected: str
) -> None:
    found = [_f(s) for s in severities] + [_f(s, suppressed="accepted") for s in suppressed]
    assert page.worst(found, checked) == expected


@pytest.mark.parametrize(
    ("role", "platform", "tier"),
    [
        ("spine", "eos", "spine"),
        ("super-spine", "junos", "spine"),
        ("leaf", "eos", "leaf"),
        ("rail-leaf", "sonic", "leaf"),
        ("gpu", "mlnx-host", "host"),
        ("anything", "mlnx-host", "host"),  # a host platform is a host whatever its role
        ("sm", "opensm", "subnet-manager"),
        ("ib-leaf", None, "leaf"),
        ("storage", "dellos10", "host"),
        ("border", "nxos", "other"),
        (None, None, "other"),
    ],
)
def test_tier_from_role_and_platform(role: str | None, platform: str | None, tier: str) -> None:
    assert page.tier_of(role, platform) == tier


CABLES = [
    Cable(("gpu01", "ens2np0"), ("leaf02", "Ethernet1/1")),
    Cable(("leaf02", "Ethernet33/1"), ("spine01", "Ethernet2/1")),
    Cable(("leaf01", "Ethernet30/1"), ("leaf02", "Ethernet30/1"), seen="lldp"),
    Cable(("gpu01", "ens2np0"), ("leaf02", "Ethernet2/1"), seen="lldp"),  # on a planned end
]


@pytest.mark.parametrize(
    ("device", "obj", "message", "cables"),
    [
        ("gpu01", "link gpu01:ens2np0 - leaf02:Ethernet1/1", "PFC differs", [0]),
        ("spine01", "link spine01:Ethernet2/1 - leaf02:Ethernet33/1", "MTU differs", [1]),
        ("leaf01", "cable leaf01:Ethernet30/1 - leaf02:Ethernet30/1", "unplanned", [2]),
        (
            "leaf01",
            "cables gpu01:ens2np0 - leaf02:Ethernet1/1 and leaf02:Ethernet33/1 - spine01:Ethernet2/1",
            "swapped",
            [0, 1],
        ),
        ("gpu01", "link gpu01:ens2np0 - leaf09:Ethernet1/1", "a cable nobody planned", []),
        ("gpu01", "cables gpu01:ens2np0 - leaf02:Ethernet2/1 and x:1 - y:2", "swapped", [3]),
        # a port finding naming the far end of its cable is about the cable (NIC001)...
        ("gpu01", "interface ens2np0", "PFC 4 but leaf02:Ethernet1/1 at the other end has 3", [0]),
        # ...one that does not is about the port alone (firmware, DCQCN)
        ("gpu01", "interface ens2np0", "firmware 28.38 on ens2np0", []),
        ("leaf02", "qos", "leaf02:Ethernet1/1 named, but the object is the device's QoS", []),
        (None, "link gpu01:ens2np0 - leaf02:Ethernet1/1", "fabric-wide", [0]),
    ],
)
def test_which_cable_a_finding_is_about(
    device: str | None, obj: str, message: str, cables: list[int]
) -> None:
    found = finding("PFC007", "x", "error", device, obj, message=message)
    report = report_for([found], [])
    assert sorted(page.cable_findings(report, CABLES)) == cables


def test_the_engine_hands_over_the_plan_and_the_cables_only_lldp_shows() -> None:
    from fabriclint.engine import CheckOptions, fabric_cables, run_check

    fabric = ROOT / "inventories" / "roce-pod"
    result = run_check(
        CheckOptions(fabric_dir=fabric, snapshot=fabric / "snapshots" / "lldp-miscabled")
    )
    assert result.context is not None
    cables = fabric_cables(result.context)
    planned = [c for c in cables if c.seen == "plan"]
    assert len(planned) == len(result.fabric.inventory.links) == 16
    assert sorted((c.a, c.b) for c in cables if c.seen == "lldp") == [
        (("gpu01", "ens1np0"), ("leaf01", "Ethernet2/1")),  # CAB004: the swapped pair
        (("gpu02", "ens1np0"), ("leaf01", "Ethernet1/1")),
        (("leaf01", "Ethernet31/1"), ("leaf02", "Ethernet31/1")),  # CAB002: unplanned
    ]
    drawn = page.build_map(result.report, cables)
    colours = {e.title.split(": ")[1].split(";")[0]: e.color for e in drawn.edges}
    assert colours["leaf01:Ethernet31/1 - leaf02:Ethernet31/1 (LLDP only)"] == "warning"
    assert {c for t, c in colours.items() if "gpu01:ens1np0" in t} == {"error"}


def test_counters_hand_over_the_cables_of_the_configuration_they_judge_by() -> None:
    """`counters --config lldp-miscabled`: the same cables as a check of lldp-miscabled."""
    from fabriclint.counterrun import CounterOptions, run_counters
    from fabriclint.engine import CheckOptions, fabric_cables, run_check

    fabric = ROOT / "inventories" / "roce-pod"
    result = run_counters(
        CounterOptions(fabric, "bench-before", "bench-after", config="lldp-miscabled")
    )
    checked = run_check(CheckOptions(fabric_dir=fabric, snapshot="lldp-miscabled"))
    assert result.context is not None and checked.context is not None
    cables = fabric_cables(result.context)
    assert sorted(cables, key=repr) == sorted(fabric_cables(checked.context), key=repr)
    assert sum(c.seen == "lldp" for c in cables) == 3
    titles = [e.title for e in page.build_map(result.report, cables).edges]
    assert any("leaf01:Ethernet31/1 - leaf02:Ethernet31/1 (LLDP only)" in t for t in titles)


def _dev(name: str, role: str, platform: str = "eos", status: str = "ok") -> DeviceSummary:
    return DeviceSummary(name=name, platform=platform, role=role, status=status)


def _pod(spines: int, leaves: int, hosts: int) -> tuple[list[DeviceSummary], list[Cable]]:
    """A leaf-spine fabric: every leaf to every spine, each host to two leaves of a pair."""
    devices = [_dev(f"spine{i:02}", "spine") for i in range(spines)]
    devices += [_dev(f"leaf{i:03}", "leaf") for i in range(leaves)]
    devices += [_dev(f"gpu{i:04}", "gpu", "mlnx-host") for i in range(hosts)]
    cables = [
        Cable((f"leaf{j:03}", f"Ethernet{50 + i}"), (f"spine{i:02}", f"Ethernet{j}"))
        for i in range(spines)
        for j in range(leaves)
    ]
    for h in range(hosts):
        pair = (h // 4) % (leaves // 2) * 2
        for nic in range(2):
            leaf = f"leaf{pair + nic:03}"
            cables.append(Cable((f"gpu{h:04}", f"ens{nic}"), (leaf, f"Ethernet{h % 4 + 1}")))
    return devices, cables


def test_a_small_fabric_is_drawn_device_by_device_hosts_under_their_leaves() -> None:
    devices, cables = _pod(2, 4, 4)
    cables[0] = Cable(("leaf000", "Ethernet50"), ("spine00", "Ethernet0"))
    bad = finding("MTU001", "x", "error", "leaf000", "link leaf000:Ethernet50 - spine00:Ethernet0")
    devices[-1] = _dev("gpu0003", "gpu", "mlnx-host", "unreachable")
    drawn = page.build_map(report_for([bad], devices), cables)
    assert drawn.mode == "full"
    assert [n.label for n in drawn.nodes] == [d.name for d in devices]
    assert len(drawn.edges) == len(cables)
    by_name = {n.label: n for n in drawn.nodes}
    assert by_name["leaf000"].color == "error" and by_name["spine01"].color == "ok"
    assert by_name["gpu0003"].color == "not-checked"
    colours = {e.id: e.color for e in drawn.edges}
    assert colours["e0"] == "error" and list(colours.values()).count("error") == 1
    unchecked = [e for e in drawn.edges if "gpu0003" in e.title]
    assert unchecked and {e.color for e in unchecked} == {"not-checked"}
    assert by_name["gpu0000"].x < by_name["gpu0002"].x  # under leaf000/001, then leaf002/003
    assert by_name["spine00"].y < by_name["leaf000"].y < by_name["gpu0000"].y


def test_many_hosts_are_grouped_per_switch_pair_with_a_count() -> None:
    devices, cables = _pod(4, 8, 64)
    sick = finding("NIC005", "x", "warning", "gpu0005", "interface ens1", message="down")
    drawn = page.build_map(report_for([sick], devices), cables)
    assert drawn.mode == "grouped"
    groups = [n for n in drawn.nodes if n.tier == "host"]
    assert len(groups) == 4 and all(len(g.devices) == 16 for g in groups)
    assert sum(len(g.devices) for g in groups) == 64
    assert {g.label for g in groups} == {"16 hosts"}
    (warned,) = [g for g in groups if "gpu0005" in g.devices]
    assert warned.color == "warning" and "on 1 of them" in warned.title
    host_edges = [e for e in drawn.edges if warned.id in (e.a, e.b)]
    assert len(host_edges) == 2 and all(len(e.cables) == 16 for e in host_edges)
    assert len([n for n in drawn.nodes if n.tier != "host"]) == 12


def test_a_thousand_device_fabric_falls_back_to_a_grid_without_cables() -> None:
    devices, cables = _pod(16, 256, 1024)
    drawn = page.build_map(report_for([], devices), cables)
    assert drawn.mode == "grid" and drawn.edges == []
    assert len(drawn.nodes) == len(devices)
    assert [(t, n) for t, _, n in drawn.tiers] == [("spine", 16), ("leaf", 256), ("host", 1024)]
    assert len({(n.x, n.y) for n in drawn.nodes}) == len(devices)  # no two cells overlap
    text = page.render(report_for([], devices), cables)
    assert text.count('class="node ') == len(devices) and 'class="edge ' not in text


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.tags: list[str] = []
        self.csp = ""
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        found = dict(attrs)
        if tag == "meta" and found.get("http-equiv") == "Content-Security-Policy":
            self.csp = found.get("content") or ""
        self._in = tag if tag in ("script", "style") else None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts.append(data)
        elif self._in == "style":
            self.styles.append(data)

    def handle_endtag(self, tag: str) -> None:
        self._in = None


EVIL = "<script>alert(1)</script>"


def _hostile() -> tuple[str, list[Cable]]:
    devices = [_dev(EVIL, "leaf"), _dev('sp"ine<b>', "spine"), _dev("h&1", "gpu", "mlnx-host")]
    message = f'</td></tr></table>{EVIL}<img src=x onerror=alert(2)> "quoted" \x1b[31m'
    findings = [
        finding("PFC007", "x", "error", EVIL, f"link {EVIL}:Et1 - h&1:ens1", message=message,
                fix=f"interface Et1\n{EVIL}", source=None),
        finding("SITE001", f"name-{EVIL}", "warning", 'sp"ine<b>', f"interface {EVIL}",
                message=message, suppressed=f"because {EVIL}"),
    ]  # fmt: skip
    cables = [Cable((EVIL, "Et1"), ("h&1", "ens1")), Cable(('sp"ine<b>', "x"), (EVIL, "Et2"))]
    return page.render(report_for(findings, devices, fabric=EVIL), cables), cables


def test_hostile_names_and_messages_are_escaped() -> None:
    text, _ = _hostile()
    assert EVIL not in text and "<img" not in text and "\x1b" not in text
    parsed = _Page()
    parsed.feed(text)
    assert parsed.tags.count("script") == 1 and parsed.tags.count("img") == 0
    assert parsed.tags.count("table") == 1  # the message did not close the table
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "sp&quot;ine&lt;b&gt;" in text
    assert "alert" not in parsed.scripts[0]  # the page's script holds no data at all


def test_only_the_pages_own_script_and_style_may_run_and_nothing_is_fetched() -> None:
    text, _ = _hostile()
    parsed = _Page()
    parsed.feed(text)

    def digest(body: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"

    assert f"script-src {digest(parsed.scripts[0])};" in parsed.csp
    assert f"style-src {digest(parsed.styles[0])};" in parsed.csp
    assert "default-src 'none'" in parsed.csp
    assert not re.search(r"(src|href)=\"(https?:)?//", text)


def test_rows_carry_the_ids_the_filters_and_the_map_use() -> None:
    report = pod_report()
    cables = [Cable(("leaf01", "Ethernet1/1"), ("gpu01", "ens1np0"))]
    text = page.render(report, cables)
    rows = re.findall(r'<tr class="finding ([^"]*)" data-sev="([^"]*)" data-devs="([^"]*)"', text)
    active_causes = [f for f in report.findings if f.is_cause or f.suppressed is not None]
    assert len(rows) == len(active_causes)
    assert sum("suppressed" in classes for classes, _, _ in rows) == 1
    options = dict(re.findall(r'<option value="(d\d+)">([^<]*)</option>', text))
    nodes = re.findall(r'data-node="n\d+" data-devs="(d\d+)"', text)
    assert sorted(options[n] for n in nodes) == sorted(d.name for d in report.devices)
    assert "leaf02</b>: unreachable: timed out after 30 s" in text
    assert "coverage: QOS008 not (fully) evaluated on 2 devices" in text


def test_without_cables_the_map_shows_the_devices() -> None:
    report = pod_report()
    text = get_reporter("html")(report)
    assert text.count('class="node ') == len(report.devices) and 'class="edge ' not in text


def _check(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    code = "import sys; from fabriclint.cli import main; sys.argv[0] = 'fabriclint'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, "check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_the_cli_writes_html_beside_other_formats(tmp_path: Path) -> None:
    out, js = tmp_path / "report.html", tmp_path / "report.json"
    done = _check(
        "inventories/roce-pod", "--snapshot", "broken",
        "--format", "html", "--output", str(out), "--format", "json", "--output", str(js),
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    report = json.loads(js.read_text())
    text = out.read_text()
    assert text.count('class="node ') == len(report["devices"]) == 10
    assert "10/10 devices checked (complete); 33 error(s), 5 warning(s)" in text
    assert list(tmp_path.iterdir()) == sorted([out, js], key=lambda p: p.name != "report.html")


def test_an_html_output_paired_with_another_format_is_refused(tmp_path: Path) -> None:
    done = _check("inventories/roce-pod", "--format", "json", "--output", str(tmp_path / "r.html"))
    assert done.returncode == 2 and "paired with --format json" in done.stderr


def test_a_plain_text_check_does_not_import_the_html_reporter() -> None:
    code = (
        "import sys\nfrom fabriclint.cli import main\nsys.argv = ['fabriclint', 'check', "
        "'inventories/roce-pod', '--snapshot', 'baseline']\ntry:\n    main()\nexcept SystemExit:\n"
        "    pass\nprint('fabriclint.reporters.html' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.stderr.strip().splitlines()[-1] == "False", done.stderr
