"""What each rule needs to be evaluated: the input a coverage gap names when a rule is skipped.

A rule that cannot judge a device records a skip (`Context.skip`); the report then says which
input was missing, in the user's terms (a command to collect, a config block, an intent section),
so "not evaluated" always comes with what to add. A call site may name a more precise reason.
"""

from __future__ import annotations

_HOST_QOS = "`mlnx_qos -i IF` output for each cabled netdev"
_ECN_SYSFS = "`grep -rH . /sys/class/net/IF/ecn` output for each cabled netdev"
_VERBS = "`ibv_devinfo -v` / `ibstat` output for each cabled HCA port"
_ROCE = "a `roce:` class (DSCP and priority) in the device's intent profile"
_ROCE_CNP = "`roce:` and `cnp:` classes in the device's intent profile"
_DSCP_MAP = "the DSCP-to-traffic-class map of each cabled port (its QoS map or policy)"
_LLDP = "the LLDP neighbour output of the device's platform (`Platform.lldp`, docs/cabling.md)"
_PORTS = "each cabled port in the device's configuration, and NIC QoS for cabled host netdevs"

NEEDS: dict[str, str] = {
    "PFC001": "the DSCP/PCP classification of every port that enables PFC",
    "PFC002": _DSCP_MAP,
    "PFC005": _DSCP_MAP,
    "PFC009": _DSCP_MAP,
    "PFC007": "PFC priorities at both ends of each cable (switch port config; NIC `mlnx_qos -i IF`)",
    "ECN001": _DSCP_MAP,
    "ECN005": _DSCP_MAP,
    "ECN002": "ECN thresholds in bytes (thresholds in segments or time are not comparable)",
    "ECN006": "ECN thresholds in bytes, segments or percent fill (time units are not judged)",
    "QOS001": "the trust setting of each routed cabled port or NIC (`mlnx_qos -i IF` on hosts)",
    "QOS004": "the scheduler (strict/weighted) of the queue the CNP DSCP lands in",
    "QOS008": "the buffer configuration (lossless pool and priority-group headroom)",
    "MTU001": "the MTU of each cabled port (`show interfaces`, or the port's mtu statement)",
    "MTU002": "the MTU of each cabled port and host netdev (`ip -d link show`)",
    "MTU003": f"the active MTU of each RDMA port ({_VERBS})",
    "MTU004": "a per-class MTU on the lossless classes (NX-OS network-qos `mtu`)",
    "MTU005": "the MTU of each SVI and of the ports carrying its VLAN",
    "MTU006": "the MTU of each port-channel member",
    "NIC001": f"{_HOST_QOS} and {_ROCE}",
    "NIC002": f"{_ECN_SYSFS} and {_ROCE}",
    "NIC003": f"`cma_roce_tos` and {_ECN_SYSFS} (CNP DSCP and priority), and a `cnp:` class in intent",
    "NIC004": f"`cma_roce_tos -d DEV -p 1` output for each HCA, and {_ROCE}",
    "NIC007": f"{_HOST_QOS} (DSCP trust and dscp2prio) and `cma_roce_tos -d DEV -p 1` output",
    "NIC005": f"port state and rate ({_VERBS}) and the NIC model",
    "NIC006": f"NIC model with firmware and driver versions ({_VERBS}, `ethtool -i IF`)",
    "FAB001": _ROCE_CNP,
    "FAB002": _PORTS,
    "FAB003": "the ECN, scheduler and PFC watchdog settings of each cabled port",
    "FAB004": "the OS version (`show version`, or the version line of the configuration)",
    "IB001": "`sminfo` output from each subnet-manager node (or an opensm node in the inventory)",
    "IB010": f"HCA port state and physical state ({_VERBS})",
    "IB011": "partitions.conf of each subnet-manager node",
    "CAB001": _LLDP,
    "CAB002": _LLDP,
    "CAB003": _LLDP,
    "CAB004": _LLDP,
    "DRIFT001": "an intent profile for the device's role (and thresholds in bytes to compare)",
    "DRIFT002": "an intent profile for the device's role",
}
"""Rule code -> the input it needs, named as the user would add it."""

GENERIC = "the inputs this rule reads (see `fabriclint rules explain CODE`)"


def needs(code: str) -> str:
    """The missing input to name for a skip of `code` when the call site gives none."""
    return NEEDS.get(code, GENERIC.replace("CODE", code))
