"""The InfiniBand corpus (../shared/corpus/ib_opensm and the ibstat files of nic_mlnx): every file
parses without an exception, and every finding the whole rule set makes on it is listed here,
reviewed by hand (the reasons are in the comments). Skipped when the corpus is absent.

Three of the ib_opensm files are excerpts of OpenSM documentation (prose around config blocks):
they are parsed whole (robustness: the prose gives the findings OpenSM's own parser would), and
their config blocks, cut by line range, are checked as the configs they document.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from fabriclint.models.finding import Finding
from fabriclint.models.inventory import Device, Inventory, Link
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers import get_parser
from fabriclint.rules.base import Context
from fabriclint.rules.registry import ALL_RULES

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
OPENSM = CORPUS / "ib_opensm"
NIC = CORPUS / "nic_mlnx"
DEBIAN = OPENSM / "opensm-3.3.23-debian__generated_default_opensm.conf"
QNIB = OPENSM / "docker-qnibng__opensm.conf"
BENTWIRE = "bentwire-ib-pkey-setup__"
SL2VL = OPENSM / "opensm-doc__QoS_management_in_OpenSM__section7_sl2vl_vlarb.txt"
PARTITIONS = OPENSM / "opensm-doc__partition-config__examples.partitions.conf"
POLICY = OPENSM / "opensm-doc__QoS_management_in_OpenSM__section5_full_policy_example.txt"
ALL_ACTIVE = NIC / "gpud__ibstat.47.0.h100.all.active.0.txt"
SOME_DOWN = NIC / "gpud__ibstat.47.0.h100.some.down.0.txt"

pytestmark = pytest.mark.skipif(not OPENSM.is_dir(), reason="shared corpus not available")

Seen = set[tuple[str, str | None, str]]


def lines(path: Path, first: int, last: int) -> str:
    """Lines first..last (1-based, inclusive) of a corpus file."""
    return "\n".join(path.read_text(encoding="utf-8").splitlines()[first - 1 : last]) + "\n"


def device(name: str, platform: str, files: dict[str, str | Path]) -> DeviceState:
    """Parse one device from corpus files (or text)."""
    outputs = {
        key: RawOutput(
            text=value if isinstance(value, str) else value.read_text(encoding="utf-8"),
            file=key if isinstance(value, str) else value.name,
        )
        for key, value in files.items()
    }
    parser = get_parser(platform)
    assert parser is not None
    state = parser(RawDevice(name=name, platform=platform, outputs=outputs))
    state.role = "x"
    return state


def check(states: list[DeviceState], links: list[tuple[str, str]] | None = None) -> list[Finding]:
    """Every rule, default options, no intent; cable ends that are no device become a leaf."""
    devices = {s.name: Device.model_validate({"platform": s.platform, "role": "x"}) for s in states}
    for end in (e for link in links or [] for e in link):
        devices.setdefault(end.split(":")[0], Device(platform="eos", role="leaf"))
    cables = [Link(a=a, b=b) for a, b in links or []]
    inventory = Inventory(name="corpus", devices=devices, links=cables)
    ctx = Context(inventory=inventory, intent=None, states={s.name: s for s in states})
    found: list[Finding] = []
    for rule in ALL_RULES:
        found.extend(rule(rule.options_model.model_validate({})).check(ctx))
    return found


def seen(findings: list[Finding]) -> Seen:
    return {(f.rule, f.device, f.object) for f in findings}


def sm(files: dict[str, str | Path]) -> list[Finding]:
    return check([device("sm", "opensm", files)])


@pytest.mark.parametrize(
    "path", sorted(OPENSM.glob("*")) if OPENSM.is_dir() else [], ids=lambda p: p.name
)
def test_every_opensm_file_parses_in_every_role(path: Path) -> None:
    for key in ("opensm.conf", "partitions.conf", "qos-policy.conf", "sminfo"):
        state = device("sm", "opensm", {"opensm.conf": "", key: path})
        assert not any("parser failed" in p.message for p in state.problems), key
        state.model_dump_json()


def test_generated_default_opensm_conf_is_clean() -> None:
    # `opensm -c` of 3.3.23: every key known, every value valid, no QoS table set: nothing.
    assert sm({"opensm.conf": DEBIAN}) == []
    # 3.3.19's default (perfmgr on, sweep 5 s, /usr/local paths): still nothing to report.
    assert sm({"opensm.conf": QNIB}) == []


def test_bentwire_partitions_without_management_keys() -> None:
    found = sm(
        {
            "opensm.conf": OPENSM / f"{BENTWIRE}opensm.conf",
            "partitions.conf": OPENSM / f"{BENTWIRE}partitions.conf",
        }
    )
    # Four partitions beyond Default (DMZ, private0, private1, ipoib), and opensm.conf sets only
    # allow_both_pkeys: m_key 0 and sm_key/sa_key 1 let any host leave its partition. Genuine.
    assert seen(found) == {("IB005", "sm", "opensm.conf management keys")}


def test_sl2vl_document_whole_and_its_blocks() -> None:
    found = sm({"opensm.conf": SL2VL})
    # Prose lines are keys OpenSM does not know (50 lines), the two example blocks set the same
    # ten keys twice (10 duplicates), and qos is FALSE (the default) while tables are set.
    assert Counter(f.rule for f in found) == Counter({"IB007": 50, "PARSE002": 10, "IB003": 1})
    # The "typical defaults" block as an opensm.conf: tables without `qos TRUE` do nothing.
    defaults = lines(SL2VL, 28, 38)
    assert seen(sm({"opensm.conf": defaults})) == {("IB003", "sm", "opensm.conf qos tables")}
    # Both blocks with QoS on: 15 VLs (max_op_vls 5), 16 SLs each: nothing to report.
    assert sm({"opensm.conf": "qos TRUE\n" + defaults}) == []
    assert sm({"opensm.conf": "qos TRUE\n" + lines(SL2VL, 69, 79)}) == []


def test_partition_examples_whole_and_block() -> None:
    found = sm({"opensm.conf": "", "partitions.conf": PARTITIONS})
    # The first line 'Examples:' opens a partition named Examples that is never closed, so
    # OpenSM reads every later definition as a port of it (12 lines skipped); with tenant
    # partitions and an empty opensm.conf the keys are OpenSM's defaults (IB005).
    assert Counter(f.rule for f in found) == Counter({"IB009": 12, "IB005": 1})
    block = sm({"opensm.conf": "", "partitions.conf": lines(PARTITIONS, 4, 27)})
    # The examples themselves are valid (`limi` is a prefix of limited, mgid lines match the
    # broadcast group); only the empty opensm.conf's default keys remain.
    assert seen(block) == {("IB005", "sm", "opensm.conf management keys")}


def test_qos_policy_example_whole_and_blocks() -> None:
    conf = "qos TRUE\n"
    found = sm({"opensm.conf": conf, "qos-policy.conf": POLICY})
    # OpenSM would reject the file for its prose: each of the 14 prose lines is a syntax error.
    assert {f.rule for f in found} == {"PARSE003"} and len(found) == 14
    assert sm({"opensm.conf": conf, "qos-policy.conf": lines(POLICY, 8, 13)}) == []
    # The full example: every match rule names defined port groups and levels, DEFAULT exists.
    assert sm({"opensm.conf": conf, "qos-policy.conf": lines(POLICY, 25, 131)}) == []


def hosts() -> list[DeviceState]:
    return [
        device("gpu-a", "mlnx-host", {"ibstat": ALL_ACTIVE}),
        device("gpu-b", "mlnx-host", {"ibstat": SOME_DOWN}),
    ]


def test_ibstat_files_parse_every_ca() -> None:
    active, down = hosts()
    assert len(active.rdma) == len(down.rdma) == 12
    assert {p.link_layer for p in active.rdma.values()} == {"Ethernet"}
    ib = [k for k, p in down.rdma.items() if p.link_layer == "InfiniBand"]
    assert len(ib) == 8 and down.infiniband is not None
    assert {p.sm_lid for p in down.infiniband.hca_ports.values()} == {334}


def test_ibstat_alone_needs_ip_link_for_its_ethernet_ports() -> None:
    # Both hosts have Ethernet (RoCE) CAs, whose MTU only `ip -d link show` gives: the host is
    # incomplete (PARSE003). The eight NDR IB ports of gpu-b are all Active/LinkUp at 400.
    for state in hosts():
        assert seen(check([state])) == {("PARSE003", state.name, "file input")}


def test_ibstat_hosts_with_their_ethernet_ports_cabled() -> None:
    states = hosts()
    cables = [
        (f"{s.name}:{port}", f"leaf:{s.name}-{port}")
        for s in states
        for port, nic in s.rdma.items()
        if nic.link_layer == "Ethernet"
    ]
    # gpu-b's three ConnectX-6 Dx ports Down/Disabled (rate 40 is the placeholder), and the two
    # hosts run different ConnectX-6 Dx firmware (22.39.1002 vs 22.38.1002, a 1:1 split).
    assert seen(check(states, cables)) == {
        ("NIC005", "gpu-b", "interface mlx5_2/1"),
        ("NIC005", "gpu-b", "interface mlx5_7/1"),
        ("NIC005", "gpu-b", "interface mlx5_8/1"),
        ("NIC006", "gpu-a", "interface mlx5_1/1"),
        ("NIC006", "gpu-b", "interface mlx5_1/1"),
        ("PARSE003", "gpu-a", "file input"),
        ("PARSE003", "gpu-b", "file input"),
    }
