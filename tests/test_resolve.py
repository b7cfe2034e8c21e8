"""resolve(): one DSCP through trust, maps, queue, PFC and ECN, with per-port overrides."""

from __future__ import annotations

from fabriclint.models.common import Source
from fabriclint.models.resolve import effective_qos, lossless_priorities, resolve
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
