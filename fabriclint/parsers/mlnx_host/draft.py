"""Working state of the mlnx-host parser: the host's outputs by role, and what the host-wide
commands (`ibdev2netdev`, `ibv_devinfo -v`, `ip -d link show`, `ibstat`) were read into."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fabriclint.parsers.kit.lines import Text
from fabriclint.parsers.mlnx_host.ib import Sourced
from fabriclint.parsers.mlnx_host.linux import Link
from fabriclint.parsers.mlnx_host.verbs import Hca, NetdevLink, roce_tos_target

_IBDEV2NETDEV = re.compile(r"^ibdev2netdev(?: -v)?$")
_DEVINFO = re.compile(r"^ibv_devinfo(?: -v| --verbose)?$")
_IP_LINK = re.compile(r"^ip (?:-d|-details) link(?: show)?$")
_MLNX_QOS = re.compile(r"^mlnx_qos -i ?(\S+)$")
_ECN = re.compile(r"^grep -\w+ \. /sys/class/net/([^/\s]+)/ecn/?$")
_ETHTOOL = re.compile(r"^ethtool -i (\S+)$")
_ROCE_TOS = re.compile(r"^cma_roce_tos\b")
_IBSTAT = re.compile(r"^ibstat(?: \S+)?$")
_NVIDIA_SMI = re.compile(r"^nvidia-smi --query-gpu=")
_SHOW_GIDS = re.compile(r"^show_gids$")
_UNAME = re.compile(r"^uname -r$")
_NVIDIA_SMI_SUMMARY = re.compile(r"^nvidia-smi$")
_MLXLINK = re.compile(r"^mlxlink -d (\S+) -m --json$")


@dataclass
class Inputs:
    """The recognised outputs of one host, by role."""

    ibdev: Text | None = None
    devinfo: Text | None = None
    iplink: Text | None = None
    qos: dict[str, Text] = field(default_factory=dict)
    ecn: dict[str, Text] = field(default_factory=dict)
    ethtool: dict[str, Text] = field(default_factory=dict)
    tos: dict[tuple[str, int], Text] = field(default_factory=dict)
    ibstat: list[Text] = field(default_factory=list)
    gpus: Text | None = None
    gids: Text | None = None
    kernel: Text | None = None
    """`uname -r`."""
    summary: Text | None = None
    """Plain `nvidia-smi` (its header shows the CUDA version)."""
    modules: dict[str, Text] = field(default_factory=dict)
    """HCA -> its `mlxlink -m --json` output."""
    used: list[str] = field(default_factory=list)

    def add(self, cmd: str, text: Text) -> None:
        """File `text` under its role; unknown commands are left out."""
        norm = " ".join(cmd.split())
        for pattern, table in (
            (_MLNX_QOS, self.qos),
            (_ECN, self.ecn),
            (_ETHTOOL, self.ethtool),
            (_MLXLINK, self.modules),
        ):
            match = pattern.match(norm)
            if match is not None:
                table.setdefault(match.group(1), text)
                self.used.append(cmd)
                return
        self.add_single(cmd, norm, text)

    def add_single(self, cmd: str, norm: str, text: Text) -> None:
        target = roce_tos_target(norm) if _ROCE_TOS.match(norm) else None
        if target is not None:
            self.tos.setdefault(target, text)
        elif _IBDEV2NETDEV.match(norm) and self.ibdev is None:
            self.ibdev = text
        elif _DEVINFO.match(norm) and self.devinfo is None:
            self.devinfo = text
        elif _IP_LINK.match(norm) and self.iplink is None:
            self.iplink = text
        elif _IBSTAT.match(norm):
            self.ibstat.append(text)
        elif _NVIDIA_SMI.match(norm) and self.gpus is None:
            self.gpus = text
        elif _SHOW_GIDS.match(norm) and self.gids is None:
            self.gids = text
        elif _UNAME.match(norm) and self.kernel is None:
            self.kernel = text
        elif _NVIDIA_SMI_SUMMARY.match(norm) and self.summary is None:
            self.summary = text
        else:
            return
        self.used.append(cmd)


@dataclass
class Parsed:
    """Everything read from the host-wide commands."""

    links: dict[str, NetdevLink]
    hcas: dict[str, Hca]
    iplinks: dict[str, Link]
    ibstat: dict[str, Sourced] = field(default_factory=dict)
