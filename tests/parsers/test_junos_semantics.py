"""Junos semantics from Juniper's documentation: the AI/ML design's CNP queue, no-loss classes."""

from __future__ import annotations

from textwrap import dedent
from typing import Any

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.resolve import resolve
from fabriclint.models.state import DeviceState, QosConfig
from fabriclint.parsers.junos import parse
from fabriclint.rules.registry import BY_CODE
from tests.rules.harness import Case, run_case

# Juniper's AI/ML data-center design (QFX5240 GPU leaf): RoCE in NO-LOSS on queue 4 with
# pfc-priority 3 (DSCP-based PFC on 011010 = 26), CNPs (110000 = 48) in their own class on queue
# 3, the queue whose number equals the lossless class's pfc-priority; pause frames for
# priority 3 stop queue 4 (flow-control-queue).
AIML_LEAF = """\
class-of-service {
    classifiers {
        dscp dscp-aiml {
            forwarding-class CNP {
                loss-priority low code-points 110000;
            }
            forwarding-class NO-LOSS {
                loss-priority low code-points 011010;
            }
        }
    }
    drop-profiles {
        dp-roce {
            interpolate {
                fill-level [ 55 90 ];
                drop-probability [ 0 100 ];
            }
        }
    }
    forwarding-classes {
        class CNP queue-num 3;
        class NO-LOSS queue-num 4 NOLOSS pfc-priority 3;
    }
    congestion-notification-profile {
        cnp-aiml {
            pfc-watchdog;
            input {
                dscp {
                    code-point 011010 {
                        pfc;
                    }
                }
            }
            output {
                ieee-802.1 {
                    code-point 011 {
                        flow-control-queue 4;
                    }
                }
            }
        }
    }
    interfaces {
        et-* {
            congestion-notification-profile cnp-aiml;
            scheduler-map sm-aiml;
            unit * {
                classifiers {
                    dscp dscp-aiml;
                }
            }
        }
    }
    scheduler-maps {
        sm-aiml {
            forwarding-class CNP scheduler s-cnp;
            forwarding-class NO-LOSS scheduler s-roce;
        }
    }
    schedulers {
        s-roce {
            drop-profile-map loss-priority any protocol any drop-profile dp-roce;
            explicit-congestion-notification;
        }
        s-cnp {
            transmit-rate percent 5;
            priority strict-high;
        }
    }
}
interfaces {
    et-0/0/0 {
        mtu 9216;
        unit 0 {
            family inet {
                mtu 9170;
            }
        }
    }
    et-0/0/1 {
        mtu 9216;
        unit 0 {
            family inet {
                mtu 9170;
            }
        }
    }
}
"""

INTENT: dict[str, Any] = {
    "profiles": {
        "aiml": {
            "trust": "dscp",
            "roce": {"dscp": [26], "priority": 3},
            "cnp": {"dscp": 48, "priority": 3, "strict": True},
            "pfc": {"priorities": [3], "watchdog": {"enabled": True}},
        }
    },
    "roles": {"leaf": {"profile": "aiml"}},
}
LINKS = [("leaf1:et-0/0/0", "leaf2:et-0/0/0"), ("leaf1:et-0/0/1", "leaf2:et-0/0/1")]


def junos(text: str, name: str = "leaf1") -> DeviceState:
    """Parse a Junos configuration."""
    outputs = {"show configuration": RawOutput(text=dedent(text), file="cfg.txt")}
    return parse(RawDevice(name=name, platform="junos", outputs=outputs))


def aiml(no_loss: bool = True, name: str = "leaf1") -> DeviceState:
    """The AI/ML leaf, its RoCE class with or without `no-loss`."""
    return junos(AIML_LEAF.replace(" NOLOSS", " no-loss" if no_loss else ""), name)


def qos_configs(state: DeviceState) -> list[QosConfig]:
    """Device-wide and per-port QoS of a state."""
    ports = [i.qos for i in state.interfaces.values() if i.qos is not None]
    return [state.qos, *ports]


def test_aiml_design_maps_hold_no_null() -> None:
    for qos in qos_configs(aiml()):
        for field in ("dscp_to_tc", "pcp_to_tc", "tc_to_priority", "tc_to_queue", "tc_to_pg"):
            mapping = getattr(qos, field) or {}
            assert None not in mapping.values(), field


def test_aiml_design_cnp_queue_is_lossy_and_roce_lossless() -> None:
    state = aiml()
    roce, cnp = resolve(state, "et-0/0/1", 26), resolve(state, "et-0/0/1", 48)
    assert (roce.queue, roce.priority, roce.lossless) == (4, 3, True)
    assert (cnp.queue, cnp.priority, cnp.lossless) == (3, None, False)


@pytest.mark.parametrize("code", sorted(BY_CODE))
def test_aiml_design_every_rule_runs(code: str) -> None:
    """The design crashed QOS003 (`0 <= None`); no rule may raise on it, none may print None."""
    states = [aiml(name="leaf1"), aiml(name="leaf2")]
    findings = run_case(Case("aiml", code, states, [], links=LINKS, intent=INTENT))
    assert all("None" not in f.message for f in findings)
    if code in ("QOS003", "PFC002", "ECN001", "QOS004", "PFC005", "FAB001", "FAB002"):
        assert [f.message for f in findings] == []


@pytest.mark.parametrize("no_loss", [True, False])
def test_pfc_priority_without_no_loss_is_lossy(no_loss: bool) -> None:
    """Juniper: "If you do not specify the no-loss option ... the forwarding class is lossy",
    even with a pfc-priority and PFC on that priority in the congestion notification profile."""
    state = aiml(no_loss=no_loss)
    res = resolve(state, "et-0/0/1", 26)
    assert res.lossless is no_loss
    assert (res.queue, res.priority) == (4, 3)  # the class and its PFC priority are unchanged
    states = [state, aiml(no_loss=no_loss, name="leaf2")]
    found = run_case(Case("x", "PFC002", states, [], links=LINKS, intent=INTENT))
    assert sorted({f.device or "" for f in found}) == ([] if no_loss else ["leaf1", "leaf2"])


DEFAULT_CLASSES = """\
class-of-service {
    congestion-notification-profile {
        cnp-fcoe {
            input {
                ieee-802.1 {
                    code-point 011 {
                        pfc;
                    }
                }
            }
        }
    }
    interfaces {
        et-0/0/0 {
            congestion-notification-profile cnp-fcoe;
            classifiers {
                ieee-802.1 default;
            }
        }
    }
}
interfaces {
    et-0/0/0 {
        unit 0 {
            family ethernet-switching;
        }
    }
}
"""


@pytest.mark.parametrize(
    ("classes", "lossless"),
    [
        ("", True),  # the default fcoe class on queue 3 is lossless
        ("forwarding-classes {\n        class fcoe queue-num 3;\n    }\n    ", False),
        ("forwarding-classes {\n        class fcoe queue-num 3 no-loss;\n    }\n    ", True),
    ],
)
def test_default_lossless_classes_and_explicit_ones(classes: str, lossless: bool) -> None:
    """The default fcoe/no-loss classes are lossless; configured explicitly they need no-loss."""
    text = DEFAULT_CLASSES.replace(
        "congestion-notification-profile {\n", classes + "congestion-notification-profile {\n", 1
    )
    state = junos(text)
    qos = state.interfaces["et-0/0/0"].qos
    assert qos is not None and qos.pcp_to_tc is not None and qos.pcp_to_tc[3] == 3
    assert (3 in (state.qos.lossy_tcs or [])) is not lossless


# `interfaces all`, a wildcard and an explicit block (Juniper, "Assigning CoS Components to
# Interfaces": components can be assigned to one interface, to several with wildcards, and a
# congestion notification profile globally to all interfaces).
LAYERED = """\
class-of-service {
    classifiers {
        dscp dscp-roce {
            forwarding-class roce {
                loss-priority low code-points 011010;
            }
        }
    }
    forwarding-classes {
        class roce queue-num 3 no-loss pfc-priority 3;
    }
    congestion-notification-profile {
        cnp-all {
            input {
                dscp {
                    code-point 011010 {
                        pfc;
                    }
                }
            }
        }
    }
    interfaces {
        all {
            congestion-notification-profile cnp-all;
        }
        et-* {
            scheduler-map sm-roce;
            unit * {
                classifiers {
                    dscp dscp-roce;
                }
            }
        }
        et-0/0/5 {
            scheduler-map sm-storage;
        }
    }
    scheduler-maps {
        sm-roce {
            forwarding-class roce scheduler s-roce;
        }
        sm-storage {
            forwarding-class roce scheduler s-storage;
        }
    }
    schedulers {
        s-roce {
            transmit-rate percent 50;
            explicit-congestion-notification;
        }
        s-storage {
            transmit-rate percent 20;
        }
    }
}
interfaces {
    et-0/0/4 {
        unit 0 {
            family inet;
        }
    }
    et-0/0/5 {
        unit 0 {
            family inet;
        }
    }
    xe-0/0/1 {
        unit 0 {
            family inet;
        }
    }
}
"""


def test_interfaces_all_is_every_port_not_a_port() -> None:
    state = junos(LAYERED)
    assert "all" not in state.interfaces
    for port, priorities in (("et-0/0/4", [3]), ("et-0/0/5", [3]), ("xe-0/0/1", [])):
        qos = state.interfaces[port].qos
        assert qos is not None and qos.pfc is not None and qos.pfc.enabled, port
        assert qos.pfc.priorities == priorities, port
    # Only `all` applies to xe-0/0/1: its CNP, but the default classifier, so DSCP 26 is best
    # effort and the DSCP-based PFC code point has no pfc-priority there (reported).
    xe = resolve(state, "xe-0/0/1", 26)
    assert (xe.queue, xe.lossless) == (0, False)
    assert any("no pfc-priority" in u.reason for u in state.unparsed)


def test_explicit_block_overrides_what_it_sets_and_inherits_the_rest() -> None:
    state = junos(LAYERED)
    wild, own = resolve(state, "et-0/0/4", 26), resolve(state, "et-0/0/5", 26)
    assert (wild.queue, wild.lossless) == (3, True) and (own.queue, own.lossless) == (3, True)
    assert wild.scheduler is not None and wild.scheduler.weight == 50  # et-*'s scheduler map
    assert own.scheduler is not None and own.scheduler.weight == 20  # its own scheduler map
    assert own.ecn is None and wild.ecn is not None
    profiles = state.interfaces["et-0/0/5"].profiles
    assert profiles == ["sm-storage", "cnp-all", "dscp-roce"]
