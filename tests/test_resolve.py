"""resolve(): one DSCP through trust, maps, queue, PFC and ECN, with per-port overrides."""

from __future__ import annotations

from fabriclint.models.common import Source
from fabriclint.models.resolve import (
    effective_qos,
    lossless_priorities,
    lossless_queues,
    lossless_tcs,
    priorities_in_use,
    priority_queue,
    priority_queues,
    priority_tcs,
    resolve,
    tc_queue,
    tcs_in_use,
    traffic_classes,
)
from fabriclint.models.state import (
    DeviceState,
    EcnConfig,
    Interface,
    PfcConfig,
    PfcWatchdog,
    QosConfig,
    QueueConfig,
    Trust,
)


def _state() -> DeviceState:
    qos = QosConfig(
        trust=Trust.DSCP,
        dscp_to_tc={26: 3, 48: 6},
        tc_to_priority={3: 3, 6: 6},
        tc_to_queue={3: 5},
        queues={5: QueueConfig(queue=5, ecn=EcnConfig(min_bytes=1, max_bytes=2))},
        pfc=PfcConfig(
            enabled=True, priorities=[3], watchdog=PfcWatchdog(enabled=True, detection_ms=200)
        ),
    )
    qos.mark("dscp_to_tc.26", Source(file="cfg", line=10))
    uplink = Interface(
        name="Ethernet2",
        qos=QosConfig(dscp_to_tc={26: 1}, pfc=PfcConfig(enabled=True, priorities=[1])),
    )
    return DeviceState(
        name="leaf01",
        platform="eos",
        qos=qos,
        interfaces={"Ethernet1": Interface(name="Ethernet1"), "Ethernet2": uplink},
    )


def test_device_wide_chain() -> None:
    res = resolve(_state(), "Ethernet1", 26)
    assert (res.tc, res.queue, res.priority, res.lossless) == (3, 5, 3, True)
    assert res.ecn is not None and res.ecn.max_bytes == 2
    assert res.sources[0] == Source(file="cfg", line=10)


def test_identity_defaults_for_unmapped_tc() -> None:
    res = resolve(_state(), "Ethernet1", 48)
    assert (res.tc, res.queue, res.priority, res.lossless) == (6, 6, 6, False)
    assert res.scheduler is None


def test_unmapped_dscp() -> None:
    res = resolve(_state(), None, 10)
    assert res.tc is None and res.priority is None and not res.lossless


def test_port_override_wins_and_inherits_watchdog() -> None:
    state = _state()
    res = resolve(state, "Ethernet2", 26)
    assert (res.tc, res.priority, res.lossless) == (1, 1, True)
    qos = effective_qos(state, "Ethernet2")
    assert qos.trust == Trust.DSCP  # inherited
    assert (
        qos.pfc is not None
        and qos.pfc.watchdog is not None
        and qos.pfc.watchdog.detection_ms == 200
    )
    assert lossless_priorities(qos) == [1]


def test_pfc_off_means_nothing_lossless() -> None:
    qos = QosConfig(pfc=PfcConfig(enabled=False, priorities=[3]))
    assert lossless_priorities(qos) == []


# ---- the reverse questions: queue of a priority, lossless classes, what is in use -------------


def _junos_like() -> QosConfig:
    """Queue 3 carries a lossy CNP class next to a no-loss class 4 that claims priority 3."""
    return QosConfig(
        trust=Trust.DSCP,
        dscp_to_tc={26: 4, 48: 3},
        tc_to_priority={4: 3},
        tc_to_queue={4: 2},
        lossy_tcs=[0, 3],
        pfc=PfcConfig(enabled=True, priorities=[3]),
    )


def test_identity_queue_unless_mapped() -> None:
    qos = _junos_like()
    assert [tc_queue(qos, tc) for tc in (3, 4, 7)] == [3, 2, 7]
    assert tc_queue(QosConfig(), 5) == 5


def test_queue_of_a_priority_skips_declared_lossy_classes() -> None:
    qos = _junos_like()
    # class 3 is lossy and its identity priority is claimed by class 4: it carries no priority
    assert priority_tcs(qos, 3) == [4]
    assert priority_queue(qos, 3) == 2
    lossy_first = QosConfig(lossy_tcs=[1], tc_to_priority={1: 5, 5: 5})
    assert priority_tcs(lossy_first, 5) == [5, 1]  # the no-loss class first
    assert priority_queues(lossy_first, 5) == [5, 1]
    only_lossy = QosConfig(lossy_tcs=[2], tc_to_priority={2: 6, 6: 0})
    assert priority_queues(only_lossy, 6) == [2] and priority_queue(only_lossy, 6) is None


def test_lossless_classes_and_queues() -> None:
    qos = _junos_like()
    assert lossless_tcs(qos) == {4}
    assert lossless_queues(qos) == {2}
    no_pfc = qos.model_copy(update={"pfc": PfcConfig(enabled=False, priorities=[3])})
    assert lossless_tcs(no_pfc) == set() and lossless_queues(no_pfc) == set()
    wide = QosConfig(
        tc_to_queue={9: 1}, tc_to_priority={9: 3}, pfc=PfcConfig(enabled=True, priorities=[3])
    )
    assert 9 in traffic_classes(wide) and lossless_tcs(wide) == {3, 9}


def test_classes_and_priorities_in_use() -> None:
    qos = _junos_like()
    assert tcs_in_use(qos) == {3, 4}
    assert priorities_in_use(qos) == {3}  # class 3 has no priority, class 4 carries 3
    assert tcs_in_use(QosConfig()) is None and priorities_in_use(QosConfig()) is None
    pcp = QosConfig(trust=Trust.PCP, dscp_to_tc={26: 3}, tc_to_priority={3: 4})
    assert tcs_in_use(pcp) == set(range(8))  # PCP trusted through the identity map
    assert priorities_in_use(pcp) == set(range(8))
    mapped = QosConfig(trust=Trust.PCP, pcp_to_tc={3: 3}, tc_to_priority={3: 4})
    assert tcs_in_use(mapped) == {3} and priorities_in_use(mapped) == {4}
