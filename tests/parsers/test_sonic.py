"""Focused tests of the SONiC parser: resolution, per-port maps, defaults, units, reporting."""

from __future__ import annotations

import json
import random
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.resolve import resolve
from fabriclint.models.state import DeviceState, SchedulerMode, Trust
from fabriclint.parsers.sonic import parse
from fabriclint.parsers.sonic.text import key_lines

GOLDEN = Path(__file__).parent / "golden" / "sonic"
FILE = "config_db.json"


def run(text: str, key: str = FILE) -> DeviceState:
    outputs = {key: RawOutput(text=dedent(text), file=FILE)}
    return parse(RawDevice(name="sw1", platform="sonic", outputs=outputs))


def run_json(config: Any) -> DeviceState:
    return run(json.dumps(config, indent=4))


def golden(case: str) -> DeviceState:
    return run((GOLDEN / case / FILE).read_text())


def line_of(text: str, needle: str, start: int = 1) -> int:
    """1-based line of the first line at or after `start` that contains `needle`."""
    lines = dedent(text).splitlines()
    return next(n for n, line in enumerate(lines, 1) if n >= start and needle in line)


def unparsed(state: DeviceState, needle: str) -> list[str]:
    return [f"{u.text} | {u.reason}" for u in state.unparsed if needle in f"{u.text} {u.reason}"]


# ---- resolve end to end ------------------------------------------------------------------------


def test_roce_dscp_26_resolves_lossless_with_ecn_on_every_port() -> None:
    state = golden("roce_leaf")
    text = (GOLDEN / "roce_leaf" / FILE).read_text()
    for port in ("Ethernet0", "Ethernet8", "Ethernet16"):
        res = resolve(state, port, 26)
        assert (res.trust, res.tc, res.queue, res.priority, res.lossless) == (
            Trust.DSCP,
            3,
            3,
            3,
            True,
        )
        assert res.ecn is not None and res.ecn.enabled
        assert (res.ecn.min_bytes, res.ecn.max_bytes, res.ecn.probability_pct) == (
            150000,
            1500000,
            5.0,
        )
        assert res.scheduler is not None and res.scheduler.scheduler is SchedulerMode.DWRR
        assert res.scheduler.weight == 60.0 and not res.scheduler.wred_drop
        # dscp line in the map, pfc_to_queue line (tc_to_priority), tc_to_queue line, pfc_enable
        lines = [s.line for s in res.sources]
        assert lines[0] == line_of(text, '"26": "3"')
        assert lines[-1] == line_of(text, '"pfc_enable": "3"', line_of(text, f'"{port}": {{', 80))


def test_cnp_dscp_48_resolves_to_a_strict_lossy_queue() -> None:
    res = resolve(golden("roce_leaf"), "Ethernet0", 48)
    assert (res.tc, res.queue, res.priority, res.lossless) == (6, 6, 6, False)
    assert res.scheduler is not None and res.scheduler.scheduler is SchedulerMode.STRICT
    assert res.ecn is None


def test_watchdog_mtu_buffers_and_facts_of_the_roce_leaf() -> None:
    state = golden("roce_leaf")
    port = state.interfaces["Ethernet0"]
    assert (port.mtu, port.admin_up, port.speed_mbps, port.routed) == (9100, True, 400000, True)
    qos = port.qos
    assert qos is not None and qos.pfc is not None and qos.pfc.priorities == [3]
    dog = qos.pfc.watchdog
    assert dog is not None and dog.enabled
    assert (dog.detection_ms, dog.restoration_ms, dog.action) == (200.0, 400.0, "drop")
    assert qos.buffers is not None and qos.buffers.lossless_pool_bytes == 33554432
    pg = qos.buffers.priority_groups[3]
    assert (pg.headroom_bytes, pg.xoff_bytes, pg.xon_bytes) == (77824, 57344, 20480)
    assert qos.tc_to_pg == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 0, 7: 0}
    assert state.facts["hostname"] == "leaf01" and state.facts["model"] == "Mellanox-SN4600C-C64"
    assert state.os_version is None  # config_db does not carry the SONiC version
    assert not state.problems


# ---- per-port maps and tc_to_priority ----------------------------------------------------------


def test_each_port_is_judged_by_its_own_dscp_map() -> None:
    state = run_json(
        {
            "DSCP_TO_TC_MAP": {"AZURE": {"3": "3", "26": "1"}, "UPLINK": {"3": "1", "26": "3"}},
            "PORT_QOS_MAP": {
                "global": {"dscp_to_tc_map": "AZURE"},
                "Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"},
                "Ethernet4": {"dscp_to_tc_map": "UPLINK", "pfc_enable": "3,4"},
                "Ethernet8": {"pfc_enable": "3"},
            },
        }
    )
    assert resolve(state, "Ethernet0", 26).tc == 1
    assert resolve(state, "Ethernet4", 26).tc == 3 and resolve(state, "Ethernet4", 26).lossless
    # no map on the port: the switch-wide (global) map applies, and the port trusts DSCP
    assert resolve(state, "Ethernet8", 3).tc == 3 and resolve(state, "Ethernet8", 3).lossless
    assert state.interfaces["Ethernet8"].qos is not None
    assert state.interfaces["Ethernet8"].qos.dscp_to_tc is None
    assert state.qos.trust is Trust.DSCP and state.qos.dscp_to_tc == {3: 3, 26: 1}


def test_tc_to_priority_follows_the_pfc_priority_that_pauses_the_queue() -> None:
    state = golden("flat_per_port")
    qos = state.interfaces["Ethernet8"].qos
    assert qos is not None and qos.tc_to_queue is not None and qos.tc_to_queue[3] == 4
    # TC 3 goes to queue 4; priority 4 pauses queue 4 (MAP_PFC_PRIORITY_TO_QUEUE identity)
    assert qos.tc_to_priority is not None and qos.tc_to_priority[3] == 4
    res = resolve(state, "Ethernet8", 26)
    assert (res.tc, res.queue, res.priority, res.lossless) == (3, 4, 4, False)


def test_tc_whose_queue_no_priority_pauses_is_reported() -> None:
    state = run_json(
        {
            "TC_TO_QUEUE_MAP": {"Q": {"3": "5"}},
            "MAP_PFC_PRIORITY_TO_QUEUE": {"P": {"3": "3", "4": "4"}},
            "PORT_QOS_MAP": {
                "Ethernet0": {"tc_to_queue_map": "Q", "pfc_to_queue_map": "P", "pfc_enable": "3"}
            },
        }
    )
    qos = state.interfaces["Ethernet0"].qos
    assert qos is not None and qos.tc_to_priority is not None and 3 not in qos.tc_to_priority
    assert unparsed(state, "no PFC priority pauses")


def test_dot1p_map_with_a_switch_dscp_map_trusts_both() -> None:
    qos = golden("flat_per_port").interfaces["Ethernet12"].qos
    assert qos is not None and qos.trust is Trust.BOTH and qos.pcp_to_tc == {3: 3, 6: 6}
    assert qos.pfc is not None and not qos.pfc.enabled and qos.pfc.priorities == []


def test_no_dscp_map_anywhere_means_traffic_class_0_and_no_trust() -> None:
    state = run_json({"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}})
    res = resolve(state, "Ethernet0", 26)
    assert (res.tc, res.priority, res.lossless, res.trust) == (0, 0, False, Trust.NONE)
    assert state.qos.sources["dscp_to_tc.26"].line is None  # a platform default


def test_a_key_listing_several_ports_applies_to_each() -> None:
    state = run_json(
        {
            "DSCP_TO_TC_MAP": {"M": {"26": "3"}},
            "PORT_QOS_MAP": {"Ethernet0,Ethernet4": {"dscp_to_tc_map": "M", "pfc_enable": "3"}},
            "QUEUE": {"Ethernet0,Ethernet4|3-4": {"scheduler": "S"}},
            "SCHEDULER": {"S": {"type": "DWRR", "weight": "5"}},
        }
    )
    for port in ("Ethernet0", "Ethernet4"):
        res = resolve(state, port, 26)
        assert res.lossless and res.scheduler is not None and res.scheduler.weight == 5.0
        assert sorted(state.interfaces[port].qos.queues or {}) == [3, 4]  # type: ignore[union-attr]


# ---- references -------------------------------------------------------------------------------


def test_references_in_both_styles_and_definitions_use_table_names() -> None:
    state = golden("flat_per_port")
    kinds = {(r.kind, r.name) for r in state.references}
    assert ("DSCP_TO_TC_MAP", "HOST") in kinds and ("SCHEDULER", "strict_typo") in kinds
    assert ("WRED_PROFILE", "DROP_ONLY") in kinds and (
        "BUFFER_POOL",
        "ingress_lossless_pool",
    ) in kinds
    defined = {(d.kind, d.name) for d in state.definitions}
    assert ("SCHEDULER", "strict_typo") not in defined and ("SCHEDULER", "cnp") in defined
    ref = next(r for r in state.references if r.name == "HOST")
    assert ref.by == "PORT_QOS_MAP|global and 2 more PORT_QOS_MAP entries"


def test_dangling_reference_blocks_the_whole_port_qos_map_entry() -> None:
    text = """\
    {
        "SCHEDULER": {"s": {"type": "DWRR", "weight": "1"}},
        "DSCP_TO_TC_MAP": {"M": {"26": "3"}},
        "PORT_QOS_MAP": {
            "Ethernet0": {
                "dscp_to_tc_map": "M",
                "pfc_enable": "3",
                "scheduler": "port_shaper"
            }
        }
    }
    """
    state = run(text)
    qos = state.interfaces["Ethernet0"].qos
    assert qos is not None and qos.pfc is not None and not qos.pfc.enabled
    assert qos.pfc.priorities == [3]
    assert qos.pfc.sources["enabled"].line == line_of(text, "port_shaper")
    assert qos.dscp_to_tc is None and qos.trust is None
    assert unparsed(state, "orchagent retries the entry")


def test_reference_to_the_wrong_table_is_reported_and_blocks() -> None:
    state = golden("duplicates_bad_values")
    assert unparsed(state, "names a DSCP_TO_TC_MAP entry, not a TC_TO_QUEUE_MAP entry")
    ref = next(r for r in state.references if r.by.startswith("PORT_QOS_MAP|Ethernet0"))
    assert ref.kind in ("DSCP_TO_TC_MAP",)


# ---- ECN / WRED, schedulers -------------------------------------------------------------------


def test_ecn_needs_the_green_curve_and_drop_only_wred_is_wred_drop() -> None:
    qos = golden("flat_per_port").interfaces["Ethernet0"].qos
    assert qos is not None and qos.queues is not None
    marks_nothing, drop_only = qos.queues[3], qos.queues[1]
    assert marks_nothing.ecn is not None and not marks_nothing.ecn.enabled
    assert marks_nothing.ecn.probability_pct == 100.0  # orchagent's default
    assert marks_nothing.ecn.sources["probability_pct"].line is None
    assert not marks_nothing.wred_drop
    assert drop_only.wred_drop and drop_only.ecn is not None and not drop_only.ecn.enabled
    assert drop_only.scheduler is SchedulerMode.DWRR  # WRR is weighted like DWRR


@pytest.mark.parametrize(
    ("mode", "green", "marks", "drops"),
    [
        ("ecn_all", "true", True, False),
        ("ecn_green", "true", True, False),
        ("ecn_green_red", "true", True, False),
        ("ecn_yellow", "true", False, True),
        ("ecn_none", "true", False, True),
        ("ecn_all", "false", False, False),
        (None, "true", False, True),
    ],
)
def test_wred_modes(mode: str | None, green: str, marks: bool, drops: bool) -> None:
    profile = {"wred_green_enable": green, "green_min_threshold": "1", "green_max_threshold": "2"}
    if mode is not None:
        profile["ecn"] = mode
    state = run_json(
        {"WRED_PROFILE": {"W": profile}, "QUEUE": {"Ethernet0|3": {"wred_profile": "W"}}}
    )
    queue = state.interfaces["Ethernet0"].qos.queues[3]  # type: ignore[union-attr,index]
    assert queue.ecn is not None and queue.ecn.enabled is marks
    assert queue.wred_drop is drops


def test_scheduler_weights_are_kept_as_relative_numbers() -> None:
    qos = golden("roce_leaf").interfaces["Ethernet16"].qos
    assert qos is not None and qos.queues is not None
    assert [qos.queues[q].weight for q in (0, 3, 5)] == [20.0, 60.0, 20.0]
    assert qos.queues[6].scheduler is SchedulerMode.STRICT and qos.queues[6].weight is None


# ---- PFC watchdog ---------------------------------------------------------------------------


def test_partial_pfcwd_sw_enable_is_reported_and_empty_coverage_turns_it_off() -> None:
    state = run_json(
        {
            "PORT_QOS_MAP": {
                "Ethernet0": {"pfc_enable": "3,4", "pfcwd_sw_enable": "3"},
                "Ethernet4": {"pfc_enable": "3,4", "pfcwd_sw_enable": ""},
            },
            "PFC_WD": {
                "Ethernet0": {"detection_time": "200", "action": "drop"},
                "Ethernet4": {"detection_time": "200", "action": "drop"},
            },
        }
    )
    assert unparsed(state, "priorities [4] have no watchdog")
    first = state.interfaces["Ethernet0"].qos.pfc.watchdog  # type: ignore[union-attr]
    second = state.interfaces["Ethernet4"].qos.pfc.watchdog  # type: ignore[union-attr]
    assert first is not None and first.enabled and first.restoration_ms is None
    assert second is not None and not second.enabled


def test_default_pfcwd_status_starts_the_watchdog_on_neighbor_ports() -> None:
    ports = {f"Ethernet{4 * n}": {"pfc_enable": "3,4"} for n in range(34)}
    config = {
        "DEVICE_METADATA": {"localhost": {"default_pfcwd_status": "enable"}},
        "DEVICE_NEIGHBOR": {name: {"name": "h"} for name in list(ports)[:33]},
        "PORT_QOS_MAP": ports,
    }
    state = run_json(config)
    dog = state.interfaces["Ethernet0"].qos.pfc.watchdog  # type: ignore[union-attr]
    # 33 active PFC ports: start_default doubles its 200 ms for each started group of 32
    assert dog is not None and dog.enabled and (dog.detection_ms, dog.action) == (400.0, "drop")
    assert dog.sources["enabled"].line is not None and dog.sources["detection_ms"].line is None
    last = state.interfaces["Ethernet132"].qos.pfc.watchdog  # type: ignore[union-attr]
    assert last is not None and not last.enabled
    assert unparsed(state, "only starts the watchdog on ports listed in DEVICE_NEIGHBOR")


def test_watchdog_is_off_when_the_metadata_says_disable_and_unknown_without_metadata() -> None:
    pfc = {"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}
    off = run_json({**pfc, "DEVICE_METADATA": {"localhost": {"hostname": "x"}}})
    dog = off.interfaces["Ethernet0"].qos.pfc.watchdog  # type: ignore[union-attr]
    assert dog is not None and not dog.enabled
    unknown = run_json(pfc)
    assert unknown.interfaces["Ethernet0"].qos.pfc.watchdog is None  # type: ignore[union-attr]


def test_watchdog_without_detection_time_is_not_started() -> None:
    dog = golden("duplicates_bad_values").interfaces["Ethernet0"].qos
    assert dog is not None and dog.pfc is not None and dog.pfc.watchdog is not None
    assert not dog.pfc.watchdog.enabled


# ---- PORT, buffers ---------------------------------------------------------------------------


def test_port_defaults_mtu_9100_admin_down_and_mtu_is_the_ip_mtu() -> None:
    state = golden("flat_per_port")
    written, default = state.interfaces["Ethernet0"], state.interfaces["Ethernet4"]
    assert written.mtu == 9216 and written.sources["mtu"].line is not None
    assert default.mtu == 9100 and default.sources["mtu"].line is None
    down = state.interfaces["Ethernet12"]
    assert down.admin_up is False and down.sources["admin_up"].line is None
    assert unparsed(state, "pfc_asym on")
    assert state.interfaces["Ethernet4"].routed is False and state.interfaces["Ethernet8"].routed


def test_dynamic_buffers_are_unknown_not_zero() -> None:
    state = golden("flat_per_port")
    buffers = state.interfaces["Ethernet0"].qos.buffers  # type: ignore[union-attr]
    assert buffers is not None and buffers.lossless_pool_bytes is None
    pg = buffers.priority_groups[3]
    assert (pg.headroom_bytes, pg.xoff_bytes) == (None, None)
    lossy = state.interfaces["Ethernet4"].qos.buffers  # type: ignore[union-attr]
    assert lossy is not None and lossy.priority_groups[3].headroom_bytes == 0


def test_profile_with_a_shared_headroom_pool_keeps_xoff_as_headroom() -> None:
    state = run_json(
        {
            "BUFFER_POOL": {"ingress_lossless_pool": {"size": "5088768", "xoff": "688128"}},
            "BUFFER_PROFILE": {
                "pg": {
                    "pool": "ingress_lossless_pool",
                    "size": "19456",
                    "xon": "19456",
                    "xoff": "22528",
                }
            },
            "BUFFER_PG": {"Ethernet0|3-4": {"profile": "[BUFFER_PROFILE|pg]"}},
        }
    )
    buffers = state.interfaces["Ethernet0"].qos.buffers  # type: ignore[union-attr]
    assert buffers is not None and buffers.lossless_pool_bytes == 5088768
    assert (buffers.priority_groups[4].headroom_bytes, buffers.priority_groups[4].xoff_bytes) == (
        None,
        22528,
    )


# ---- input problems ------------------------------------------------------------------------


def test_duplicate_keys_are_located_and_map_conflicts_kept() -> None:
    state = golden("duplicates_bad_values")
    text = (GOLDEN / "duplicates_bad_values" / FILE).read_text()
    dups = [p for p in state.problems if p.kind == "duplicate-key"]
    twice = next(p for p in dups if '"26"' in p.message)
    assert twice.source is not None and twice.source.line == line_of(text, '"26": "1"')
    assert any("PORT_QOS_MAP|Ethernet0 is written twice" in p.message for p in dups)
    qos = state.interfaces["Ethernet4"].qos
    assert qos is not None and qos.dscp_to_tc is not None
    assert qos.dscp_to_tc[26] == 1  # the last one wins, as in sonic-cfggen
    (conflict,) = qos.conflicts
    assert (conflict.map, conflict.key, conflict.values) == ("dscp_to_tc", 26, [3, 1])
    assert [s.line for s in conflict.sources] == [line_of(text, '"26": "3"'), twice.source.line]
    # out-of-range values are kept for QOS003
    assert qos.dscp_to_tc[9] == 8 and qos.dscp_to_tc[70] == 2


def test_bad_values_are_reported_at_their_lines() -> None:
    state = golden("duplicates_bad_values")
    text = (GOLDEN / "duplicates_bad_values" / FILE).read_text()
    assert state.interfaces["Ethernet0"].mtu is None
    lines = {u.source.line for u in state.unparsed if u.source is not None}
    for needle in ('"jumbo"', '"cs1"', "ecn_sometimes", '"heavy"', '"panic"', '"size": "big"'):
        assert line_of(text, needle) in lines, needle


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('{\n  "PORT": {\n    "Ethernet0": {"mtu": 9100,\n', 4),
        ("hostname leaf01\ninterface Ethernet1\n   mtu 9214\n", 1),
        ("[1, 2, 3]", 1),
        ('"just a string"', 1),
        ("{}", 1),
        ('{"qos": {"roce": {"mode": "lossless"}}}', 1),
        ("   \n", None),
    ],
)
def test_input_that_is_not_a_config_db_is_unparseable(text: str, line: int | None) -> None:
    state = run(text)
    (problem,) = state.problems
    assert problem.kind == "unparseable" and not state.interfaces
    assert problem.source is not None and problem.source.line == line


def test_truncated_json_points_at_the_line() -> None:
    state = golden("truncated_json")
    (problem,) = state.problems
    assert problem.kind == "unparseable" and problem.source is not None
    assert problem.source.line == 15 and "not valid JSON" in problem.message


def test_missing_config_db_is_unparseable() -> None:
    state = run("{}", key="show runningconfiguration all")
    (problem,) = state.problems
    assert problem.kind == "unparseable" and "config_db.json" in problem.message


def test_swssconfig_list_of_ops_is_read_and_del_reported() -> None:
    state = golden("swssconfig_ops")
    res = resolve(state, "Ethernet8", 26)
    assert (res.tc, res.queue, res.lossless) == (3, 3, True)
    assert res.ecn is not None and res.ecn.enabled and res.ecn.probability_pct == 20.0
    assert resolve(state, "Ethernet8", 48).scheduler.scheduler is SchedulerMode.STRICT  # type: ignore[union-attr]
    assert unparsed(state, "OP DEL")


# ---- the JSON scanner ---------------------------------------------------------------------


def test_key_lines_with_escapes_odd_spacing_and_colons_in_values() -> None:
    text = '{"a" :\n 1, "b\\"c": "x:y", "d":\n{"e": "f\\\\", "g"\n:\n2}}'
    assert key_lines(text) == [1, 2, 2, 3, 3]
    plain = '{"a": "x:y",\n "b": {"c": ":"}}'
    assert key_lines(plain) == [1, 2, 2]


def test_lines_survive_crlf_and_unicode() -> None:
    text = '{\r\n  "DEVICE_METADATA": {\r\n    "localhost": {"hostname": "sw\u00e9"}\r\n  },\r\n  "PORT": {"Ethernet0": {"mtu": "9000"}}\r\n}\r\n'
    state = run(text)
    assert state.facts["hostname"] == "sw\u00e9"
    assert state.interfaces["Ethernet0"].sources["mtu"].line == 5


def test_parse_is_pure_and_repeatable() -> None:
    text = (GOLDEN / "roce_leaf" / FILE).read_text()
    assert run(text).model_dump() == run(text).model_dump()


def test_random_garbage_never_raises() -> None:
    rng = random.Random(7)
    base = (GOLDEN / "flat_per_port" / FILE).read_text()
    for _ in range(60):
        chars = list(base)
        for _ in range(rng.randint(1, 8)):
            chars[rng.randrange(len(chars))] = rng.choice('{}[]":,0123456789abc|\n')
        state = run("".join(chars))
        assert not any("parser failed" in p.message for p in state.problems)


def test_odd_but_valid_json_values_never_raise() -> None:
    state = run_json(
        {
            "PORT": {"Ethernet0": {"mtu": 9100, "admin_status": True, "speed": None}},
            "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": 3, "dscp_to_tc_map": ["A"]}},
            "DSCP_TO_TC_MAP": {"A": {"26": 3, "48": None}},
            "QUEUE": {"Ethernet0|3": "not an object"},
            "SCHEDULER": [],
        }
    )
    assert not any("parser failed" in p.message for p in state.problems)
    assert state.interfaces["Ethernet0"].mtu == 9100
    assert unparsed(state, "QUEUE|Ethernet0|3")


def test_a_fragment_without_port_tables_leaves_classification_unknown() -> None:
    state = run_json(
        {"BUFFER_POOL": {"ingress_lossless_pool": {"size": "1000", "type": "ingress"}}}
    )
    assert state.qos.dscp_to_tc is None and state.qos.trust is None
    assert state.qos.buffers is not None and state.qos.buffers.lossless_pool_bytes == 1000


def test_pfc_enable_on_global_is_reported() -> None:
    state = run_json({"PORT_QOS_MAP": {"global": {"pfc_enable": "3"}}})
    assert unparsed(state, "pfc_enable is per port")
    assert state.qos.pfc is None


def _synthetic(ports: int) -> str:
    config: dict[str, Any] = {
        "DSCP_TO_TC_MAP": {"M": {str(d): str(d // 8) for d in range(64)}},
        "SCHEDULER": {"s": {"type": "DWRR", "weight": "10"}},
        "WRED_PROFILE": {"w": {"ecn": "ecn_all", "wred_green_enable": "true"}},
        "PORT": {},
        "PORT_QOS_MAP": {},
        "QUEUE": {},
        "PFC_WD": {},
    }
    for n in range(ports):
        name = f"Ethernet{4 * n}"
        config["PORT"][name] = {"mtu": "9100", "admin_status": "up", "speed": "100000"}
        config["PORT_QOS_MAP"][name] = {"dscp_to_tc_map": "M", "pfc_enable": "3,4"}
        config["PFC_WD"][name] = {"detection_time": "200", "restoration_time": "200"}
        for q in range(8):
            config["QUEUE"][f"{name}|{q}"] = {"scheduler": "s", "wred_profile": "w"}
    return json.dumps(config, indent=4)


def test_parse_time_grows_linearly_with_ports() -> None:
    import time

    small, large = _synthetic(32), _synthetic(256)
    run(small)  # warm up

    def best(text: str) -> float:
        times = []
        for _ in range(5):
            start = time.process_time()  # CPU time: other processes do not stretch it
            run(text)
            times.append(time.process_time() - start)
        return min(times)

    # 8x the ports: linear is ~8x the time, quadratic 64x; the bound leaves room for noise
    assert best(large) < 32 * best(small)
    state = run(large)
    assert len(state.interfaces) == 256 and len(state.references) == 3
