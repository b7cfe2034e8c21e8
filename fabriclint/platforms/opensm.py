"""OpenSM subnet-manager nodes (InfiniBand): configuration files, `sminfo` and the subnet's
topology (`ibnetdiscover`)."""

from __future__ import annotations

from fabriclint.platforms.base import LINUX_SESSION, CommandSpec, Platform, exact, specs

OPENSM_CONF = "opensm.conf"
PARTITIONS_CONF = "partitions.conf"
QOS_POLICY_CONF = "qos-policy.conf"
SMINFO = "sminfo"
IBNETDISCOVER = "ibnetdiscover"
"""Every node and link of the subnet (ibnetdiscover(8), infiniband-diags; read-only SMP
queries): the cables the CAB rules compare with the plan, as LLDP outputs are on Ethernet."""

_COMMANDS = specs(
    CommandSpec(key=OPENSM_CONF, run="cat /etc/opensm/opensm.conf"),
    CommandSpec(key=PARTITIONS_CONF, run="cat /etc/opensm/partitions.conf", optional=True),
    CommandSpec(key=QOS_POLICY_CONF, run="cat /etc/opensm/qos-policy.conf", optional=True),
    CommandSpec(key=SMINFO, optional=True),
    CommandSpec(key=IBNETDISCOVER, optional=True),
)

PLATFORM = Platform(
    name="opensm",
    kind="subnet-manager",
    parser="fabriclint.parsers.opensm",
    device_type="linux",
    commands=_COMMANDS,
    exact=exact(_COMMANDS),
    session=LINUX_SESSION,
    shell=True,
    lldp=IBNETDISCOVER,
)
