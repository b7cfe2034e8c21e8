"""Focused tests of the mlnx-host parser: formats, the model mapping, sources and robustness."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.resolve import resolve
from fabriclint.models.state import DeviceState, SchedulerMode, Trust
from fabriclint.parsers.mlnx_host import parse
from tests.parsers.test_golden import GOLDEN, load_case

CASES = GOLDEN / "mlnx-host"
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "nic_mlnx"

IP_LINK = (
    "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT\n"
    "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00 promiscuity 0\n"
    "3: ens1np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT\n"
    "    link/ether 94:6d:ae:cd:e7:2c brd ff:ff:ff:ff:ff:ff promiscuity 0\n"
)


def devinfo(width: str = "4X (2)", speed: str = "100.0 Gbps (128)", ports: int = 1) -> str:
    """A minimal `ibv_devinfo -v` for mlx5_0 in the real tab layout."""
    text = (
        "hca_id:\tmlx5_0\n"
        "\ttransport:\t\t\tInfiniBand (0)\n"
        "\tfw_ver:\t\t\t\t28.39.1002\n"
        "\tvendor_part_id:\t\t\t4129\n"
        f"\tphys_port_cnt:\t\t\t{ports}\n"
    )
    for port in range(1, ports + 1):
        text += (
            f"\t\tport:\t{port}\n"
            "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
            "\t\t\tactive_mtu:\t\t4096 (5)\n"
            "\t\t\tlink_layer:\t\tEthernet\n"
            f"\t\t\tactive_width:\t\t{width}\n"
            f"\t\t\tactive_speed:\t\t{speed}\n"
            "\t\t\tphys_state:\t\tLINK_UP (5)\n"
            "\t\t\tGID[  3]:\t\t::ffff:10.0.10.1, RoCE v2\n\n"
        )
    return text


def host(outputs: dict[str, str], *, base: bool = True) -> DeviceState:
    """Parse a host whose outputs are given inline (plus a valid base set unless `base=False`)."""
    texts = dict(outputs)
    if base:
        texts.setdefault("ibdev2netdev", "mlx5_0 port 1 ==> ens1np0 (Up)\n")
        texts.setdefault("ibv_devinfo -v", devinfo())
        texts.setdefault("ip -d link show", IP_LINK)
    raw = RawDevice(
        name="gpu",
        platform="mlnx-host",
        outputs={cmd: RawOutput(text=t, file=cmd.replace(" ", "_")) for cmd, t in texts.items()},
    )
    return parse(raw)


def golden(case: str) -> DeviceState:
    return parse(load_case(CASES / case))


def line_of(case: str, file: str, line: int | None) -> str:
    assert line is not None
    return (CASES / case / file).read_text().splitlines()[line - 1]


# --- mlnx_qos ------------------------------------------------------------------------------


def test_dscp2prio_parsed_for_all_64_dscps_with_their_lines() -> None:
    qos = golden("roce-tuned").interfaces["ens1np0"].qos
    assert qos is not None
    assert qos.trust is Trust.DSCP
    assert qos.dscp_to_tc == {dscp: dscp >> 3 for dscp in range(64)}
    for dscp in (0, 26, 48, 63):
        src = qos.sources[f"dscp_to_tc.{dscp}"]
        assert src.file == "mlnx_qos_-i_ens1np0.txt"
        shown = line_of("roce-tuned", src.file, src.line)
        assert f"prio:{dscp >> 3} " in shown and f"{dscp:02d}," in shown


def test_dscp2prio_wrapped_lines_and_reordered_lists() -> None:
    mapping = {d: 0 for d in range(64)} | {26: 3, 48: 6, 46: 5}
    by_prio: dict[int, list[int]] = {}
    for dscp, prio in sorted(mapping.items(), reverse=True):
        by_prio.setdefault(prio, []).append(dscp)
    lines = ["Priority trust state: dscp", "dscp2prio mapping:"]
    for prio, dscps in sorted(by_prio.items()):
        items = "".join(f"{d:02d}," for d in dscps)
        lines += [f"\tprio:{prio} dscp:{items[i : i + 24]}" for i in range(0, len(items), 24)]
    lines += ["PFC configuration:", "\tpriority    0   1   2   3   4   5   6   7"]
    lines += ["\tenabled     0   0   0   1   0   0   0   0   "]
    state = host({"mlnx_qos -i ens1np0": "\n".join(lines) + "\n"})
    qos = state.interfaces["ens1np0"].qos
    assert qos is not None and qos.dscp_to_tc == mapping
    assert sum(line.lstrip().startswith("prio:0 ") for line in lines) == 8  # 61 DSCPs wrapped
    assert not state.problems and not state.unparsed


def test_dscp_listed_under_two_priorities_is_a_conflict() -> None:
    text = (
        "Priority trust state: dscp\ndscp2prio mapping:\n"
        "\tprio:0 dscp:26,00,\n\tprio:3 dscp:26,\n"
        "PFC configuration:\n\tenabled     0   0   0   1   0   0   0   0\n"
    )
    qos = host({"mlnx_qos -i ens1np0": text}).interfaces["ens1np0"].qos
    assert qos is not None and qos.dscp_to_tc == {0: 0, 26: 0}
    [conflict] = qos.conflicts
    assert (conflict.map, conflict.key, conflict.values) == ("dscp_to_tc", 26, [0, 3])
    assert [s.line for s in conflict.sources] == [3, 4]


def test_pfc_ets_queues_and_buffers() -> None:
    case = "roce-tuned"
    qos = golden(case).interfaces["ens2np0"].qos
    assert qos is not None and qos.pfc is not None
    assert (qos.pfc.enabled, qos.pfc.priorities) == (True, [3])
    pfc_src = qos.sources["pfc"]
    assert line_of(case, pfc_src.file, pfc_src.line).split()[:5] == ["enabled", "0", "0", "0", "1"]
    assert qos.tc_to_queue == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 6, 7: 0}
    assert qos.tc_to_priority is None
    assert qos.queues is not None
    assert (qos.queues[3].scheduler, qos.queues[3].weight) == (SchedulerMode.ETS, 50.0)
    assert (qos.queues[6].scheduler, qos.queues[6].weight) == (SchedulerMode.STRICT, None)
    assert qos.tc_to_pg is not None and qos.tc_to_pg[3] == 1 and qos.tc_to_pg[0] == 0
    assert qos.buffers is not None and qos.buffers.lossless_pool_bytes == 130944


def test_vendor_tsa_and_rate_limit() -> None:
    state = golden("roce-mistuned")
    qos = state.interfaces["ens1np0"].qos
    assert qos is not None and qos.queues is not None
    assert all(q.scheduler is None and q.weight is None for q in qos.queues.values())
    reasons = {(u.source.file if u.source else "", u.reason) for u in state.unparsed}
    assert ("mlnx_qos_-i_ens1np0.txt", "per-TC rate limit not modeled") in reasons
    assert any("lldpad" in u.text for u in state.unparsed)


def test_garbage_mlnx_qos_is_one_problem_not_also_unparsed() -> None:
    state = host({"mlnx_qos -i ens1np0": "sudo: mlnx_qos: command not found\n"})
    [problem] = state.problems
    assert problem.kind == "unparseable" and "not mlnx_qos output" in problem.message
    assert problem.source is not None and problem.source.line == 1
    assert state.unparsed == []
    assert state.interfaces["ens1np0"].qos is None


def test_mlnx_qos_without_pfc_table_is_truncated() -> None:
    state = golden("truncated-garbage")
    messages = [p.message for p in state.problems]
    assert "mlnx_qos -i ens2np0: output truncated: no PFC 'enabled' row" in messages
    qos = state.interfaces["ens2np0"].qos
    assert qos is not None and qos.pfc is None and qos.dscp_to_tc is not None
    assert len(qos.dscp_to_tc) == 40  # five complete prio lines before the cut


# --- resolve --------------------------------------------------------------------------------


def test_resolve_roce_dscp_is_priority_3_and_lossless() -> None:
    state = golden("roce-tuned")
    res = resolve(state, "ens1np0", 26)
    assert (res.tc, res.priority, res.lossless, res.queue) == (3, 3, True, 3)
    assert res.scheduler is not None and res.scheduler.scheduler is SchedulerMode.ETS
    assert {(s.file, s.line) for s in res.sources} >= {
        ("mlnx_qos_-i_ens1np0.txt", 7),
        ("mlnx_qos_-i_ens1np0.txt", 17),
    }


def test_resolve_cnp_dscp_is_priority_6_strict_and_lossy() -> None:
    res = resolve(golden("roce-tuned"), "ens2np0", 48)
    assert (res.priority, res.lossless) == (6, False)
    assert res.scheduler is not None and res.scheduler.scheduler is SchedulerMode.STRICT


def test_trust_pcp_leaves_dscp_unmapped() -> None:
    state = golden("roce-mistuned")
    qos = state.interfaces["ens1np0"].qos
    assert qos is not None and qos.trust is Trust.PCP and qos.dscp_to_tc is None
    assert qos.pfc is not None and qos.pfc.priorities == [4]
    res = resolve(state, "ens1np0", 26)
    assert (res.priority, res.lossless) == (None, False)


# --- ibv_devinfo ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "speed", "rate"),
    [
        ("4X (2)", "100.0 Gbps (128)", 400.0),  # NDR / 400GbE
        ("2X (16)", "100.0 Gbps (128)", 200.0),
        ("4X (2)", "50.0 Gbps (64)", 200.0),  # HDR / 200GbE
        ("4X (2)", "25.0 Gbps (32)", 100.0),  # EDR / 100GbE
        ("1X (1)", "25.0 Gbps (32)", 25.0),
        ("4X (2)", "14.0 Gbps (16)", 56.0),  # FDR
        ("4X (2)", "10.0 Gbps (4)", 40.0),  # QDR, also a down Ethernet port's placeholder
        ("invalid widthX (0)", "100.0 Gbps (128)", None),
        ("4X (2)", "invalid speed (0)", None),
    ],
)
def test_rate_is_width_times_lane_speed(width: str, speed: str, rate: float | None) -> None:
    port = host({"ibv_devinfo -v": devinfo(width, speed)}).rdma["ens1np0"]
    assert port.rate_gbps == rate
    if rate is not None:
        assert port.width == width.split(maxsplit=1)[0]
        assert port.sources["rate_gbps"].line == 11  # the active_speed line


def test_devinfo_fields_and_sources() -> None:
    case = "roce-tuned"
    port = golden(case).rdma["ens1np0"]
    assert (port.hca, port.port, port.link_layer) == ("mlx5_0", 1, "Ethernet")
    assert (port.state, port.phys_state, port.active_mtu) == ("PORT_ACTIVE", "LINK_UP", 4096)
    assert (port.model, port.firmware, port.rate_gbps) == ("ConnectX-7", "28.39.1002", 400.0)
    for key, word in (("state", "state:"), ("active_mtu", "active_mtu:"), ("firmware", "fw_ver:")):
        src = port.sources[key]
        assert line_of(case, src.file, src.line).strip().startswith(word)


def test_port_down() -> None:
    state = golden("roce-mistuned")
    port = state.rdma["ens2np0"]
    assert (port.state, port.phys_state, port.firmware) == ("PORT_DOWN", "DISABLED", "28.36.1010")
    iface = state.interfaces["ens2np0"]
    assert (iface.admin_up, iface.oper_up, iface.mtu) == (True, False, 9000)
    assert state.rdma["ens1np0"].active_mtu == 1024


def test_model_is_the_family_of_the_vendor_part_id() -> None:
    assert host({}).rdma["ens1np0"].model == "ConnectX-7"


def test_missing_ibv_devinfo_is_unparseable() -> None:
    state = host(
        {"ibdev2netdev": "mlx5_0 port 1 ==> ens1np0 (Up)\n", "ip -d link show": IP_LINK},
        base=False,
    )
    assert [(p.kind, p.message) for p in state.problems] == [
        ("unparseable", "ibv_devinfo -v: required output is missing")
    ]
    assert state.rdma["ens1np0"].state is None
    assert state.interfaces["ens1np0"].mtu == 9000


def test_missing_ip_link_is_unparseable() -> None:
    state = host({"ibv_devinfo -v": devinfo()}, base=False)
    assert [p.message for p in state.problems] == ["ip -d link show: required output is missing"]


def test_devinfo_garbage_and_truncation() -> None:
    state = host({"ibv_devinfo -v": "No IB devices found\n"})
    assert [p.message for p in state.problems] == [
        "ibv_devinfo -v: no 'hca_id:' block (first line: 'No IB devices found')"
    ]
    cut = devinfo(ports=2).split("\t\tport:\t2")[0]
    [problem] = host({"ibv_devinfo -v": cut}).problems
    assert "truncated: mlx5_0 has 2 port(s), 1 printed" in problem.message


# --- ibdev2netdev, ip link, ethtool, cma_roce_tos, ECN ----------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "mlx5_0 port 1 ==> ens1np0 (Up)",
        "0000:17:00.0 mlx5_0 (MT4129 - MCX75310AAS-NEAT) ConnectX-7 fw 28.39.1002 port 1 "
        "(ACTIVE) ==> ens1np0 (Up)",
        "mlx5_0 port 1 <===> ens1np0",
    ],
)
def test_ibdev2netdev_formats(line: str) -> None:
    port = host({"ibdev2netdev": line + "\n"}).rdma["ens1np0"]
    assert (port.hca, port.port, port.state) == ("mlx5_0", 1, "PORT_ACTIVE")


def test_ip_link_variants() -> None:
    text = IP_LINK + (
        "5: ens1np0.100@ens1np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue "
        "state UP mode DEFAULT\n"
        "6: ens2np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 4200 qdisc mq state UNKNOWN\n"
        "7: ens3np0: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 9000 qdisc mq state DOWN\n"
        "8: ens4np0: <BROADCAST,MULTICAST> mtu 9000 qdisc noop state DOWN mode DEFAULT\n"
    )
    links = (
        "mlx5_0 port 1 ==> ens1np0.100 (Up)\nmlx5_1 port 1 ==> ens2np0 (Up)\n"
        "mlx5_2 port 1 ==> ens3np0 (Down)\nmlx5_3 port 1 ==> ens4np0 (Down)\n"
    )
    state = host({"ip -d link show": text, "ibdev2netdev": links})
    got = {n: (i.mtu, i.admin_up, i.oper_up) for n, i in state.interfaces.items()}
    assert got == {
        "ens1np0.100": (1500, True, True),
        "ens2np0": (4200, True, True),
        "ens3np0": (9000, True, False),
        "ens4np0": (9000, False, False),
    }
    assert state.interfaces["ens2np0"].sources["mtu"].line == 6


def test_ip_link_garbage_is_unparseable() -> None:
    [problem] = host({"ip -d link show": 'Device "x" does not exist.\n'}).problems
    assert problem.message.startswith("ip -d link show: no 'N: name: <FLAGS> mtu ...' line")


def test_ethtool_driver_firmware_fallback_and_os_version() -> None:
    no_fw = devinfo().replace("\tfw_ver:\t\t\t\t28.39.1002\n", "")
    ethtool = (
        "driver: mlx5_core\nversion: 6.8.0-45-generic\n"
        "firmware-version: 28.39.2048 (MT_0000000838)\nbus-info: 0000:17:00.0\n"
    )
    state = host({"ibv_devinfo -v": no_fw, "ethtool -i ens1np0": ethtool})
    port = state.rdma["ens1np0"]
    assert (port.driver, port.firmware) == ("6.8.0-45-generic", "28.39.2048")
    assert port.sources["firmware"].file == "ethtool_-i_ens1np0"
    assert state.os_version == "6.8.0-45-generic"
    assert state.sources["os_version"].line == 2


@pytest.mark.parametrize(
    ("text", "tos"), [("106\n", 106), ("\n106\n\n", 106), ("  96  ", 96), ("", None)]
)
def test_cma_roce_tos_lenient(text: str, tos: int | None) -> None:
    state = host({"cma_roce_tos -d mlx5_0 -p 1": text})
    assert state.rdma["ens1np0"].roce_tos == tos
    assert not state.problems


def test_cma_roce_tos_error_and_unmapped_port() -> None:
    state = host(
        {
            "cma_roce_tos -d mlx5_0 -p 1": "Device mlx5_0 port 1 does not exist\n",
            "cma_roce_tos -d mlx5_7": "106\n",
        }
    )
    [problem] = state.problems
    assert problem.message == (
        "cma_roce_tos -d mlx5_0 -p 1: expected the default RoCE ToS as an integer, "
        "got 'Device mlx5_0 port 1 does not exist'"
    )
    assert state.rdma["ens1np0"].roce_tos is None
    [unparsed] = state.unparsed
    assert unparsed.reason == "mlx5_7 port 1 has no netdev in ibdev2netdev"


def test_ecn_sysfs() -> None:
    state = golden("roce-mistuned")
    port = state.rdma["ens1np0"]
    assert port.ecn_np == {p: p == 3 for p in range(8)}
    assert port.ecn_rp == {p: False for p in range(8)}
    assert (port.cnp_dscp, port.cnp_priority) == (48, 6)
    assert state.rdma["ens2np0"].cnp_dscp == 46
    src = port.sources["ecn_rp.3"]
    assert line_of("roce-mistuned", src.file, src.line).endswith("/ecn/roce_rp/enable/3:0")
    assert not [u for u in state.unparsed if "ecn" in (u.source.file if u.source else "")]


def test_ecn_params_path_unknown_attribute_and_read_errors() -> None:
    base = "/sys/class/net/ens1np0/ecn"
    text = (
        f"{base}/roce_np/params/cnp_dscp:24\n"
        f"{base}/roce_np/enable/3:1\n"
        f"{base}/roce_np/cnp_prio_mode:1\n"
        f"{base}/roce_rp/rpg_ai_rate:5\n"
        f"grep: {base}/roce_rp/enable/3: Operation not supported\n"
    )
    state = host({"grep -rH . /sys/class/net/ens1np0/ecn": text})
    port = state.rdma["ens1np0"]
    assert (port.cnp_dscp, port.ecn_np, port.ecn_rp) == (24, {3: True}, {})
    assert [(u.source.line if u.source else None, u.reason) for u in state.unparsed] == [
        (3, "ECN attribute not modeled"),
        (5, "ECN sysfs entry could not be read"),
    ]
    assert not state.problems


def test_tuned_and_mistuned_cases_have_no_problems() -> None:
    assert golden("roce-tuned").problems == []
    assert golden("roce-tuned").unparsed == []
    assert golden("roce-mistuned").problems == []


# --- robustness -----------------------------------------------------------------------------

GARBAGE = [
    "",
    "\x00\x01\x02 binary \xff",
    "::::\n:\n==>\nport\nhca_id:\n\t\tport:\tx\n",
    "prio:9 dscp:99,\npriority:  3\ntc: 99 ratelimit: 1.0 Gbps, tsa: ets, bw: 300%\n",
    "hca_id:\tmlx5_0\n\tphys_port_cnt:\t\t\tmany\n\t\tport:\t1\n\t\t\tactive_width:\t\tX\n",
    "/sys/class/net/x/ecn/roce_np/enable/nine:yes\n",
]


def _corpus_texts() -> list[str]:
    if not CORPUS.is_dir():
        return []
    return [path.read_text() for path in sorted(CORPUS.glob("*.txt"))]


@pytest.mark.parametrize("text", GARBAGE + _corpus_texts())
def test_never_raises_on_garbage(text: str) -> None:
    keys = [
        "ibdev2netdev",
        "ibv_devinfo -v",
        "ip -d link show",
        "mlnx_qos -i ens1np0",
        "grep -rH . /sys/class/net/ens1np0/ecn",
        "cma_roce_tos -d mlx5_0 -p 1",
        "ethtool -i ens1np0",
        "ibstat",
    ]
    for everything in (True, False):
        outputs = dict.fromkeys(keys, text) if everything else {keys[3]: text}
        state = host(outputs, base=not everything)
        assert not any("parser failed" in p.message for p in state.problems)
        state.model_dump_json()  # the result serializes


def test_corpus_ibstat_adds_the_hcas_devinfo_does_not_show() -> None:
    texts = _corpus_texts()
    if not texts:
        pytest.skip("shared corpus not available")
    state = host({"ibstat": texts[0]})
    assert state.problems == [] and "ibstat" in state.inputs
    assert state.rdma["ens1np0"].sources["state"].file == "ibv_devinfo_-v"  # devinfo wins
    assert "mlx5_1/1" in state.rdma  # a CA only ibstat shows, without a netdev
