"""NIC rules: ConnectX host ports agree with their switch, the intent and the other NICs.

Only NIC ports in the cabling plan are checked, plus a host's InfiniBand ports (IB switches are
rarely in the inventory, so IB ports are rarely cabled; see rules/ib_fleet.py). A cabled netdev
with no RDMA facts, or a fact a rule needs that the inputs do not show, makes the rule skip the
host (coverage), never pass it. InfiniBand HCA ports have no Ethernet QoS, DCQCN ECN or ToS:
NIC001-NIC004 check RoCE ports only; NIC005 compares the rate of IB ports too (a down IB port,
or one below the intent's rate, is IB010's); NIC006 compares firmware of both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from fabriclint.models.finding import Finding
from fabriclint.models.intent import CnpClass, RoceClass
from fabriclint.models.resolve import lossless_priorities
from fabriclint.models.state import DeviceState, QosConfig, RdmaPort, Trust
from fabriclint.platforms.mlnx_models import family
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.helpers import Issue, Setting, gather, host_nics, hosts, report
from fabriclint.rules.ib_fleet import below_intended_rate, is_ib, uncabled_ib_ports
from fabriclint.rules.scope import infiniband_only, pfc_source

T = TypeVar("T")


def _nics_with(
    ctx: Context, code: str, intended: Callable[[str], T | None]
) -> Iterator[tuple[str, RdmaPort, T]]:
    """(host, cabled RoCE NIC port, intended class) for hosts whose profile declares the class.

    Hosts without it are skipped (coverage), as are hosts with a cabled netdev lacking RDMA facts.
    """
    for state in hosts(ctx):
        klass = intended(state.name)
        if klass is None:
            if not infiniband_only(state):  # an IB-only host has no RoCE class to compare
                ctx.skip(code, state.name, "the RoCE/CNP class in the host's intent profile")
            continue
        for nic in host_nics(ctx, state, code, roce=True):
            yield state.name, nic, klass


def _iface(netdev: str) -> str:
    return f"interface {netdev}"


def _pfc(priorities: list[int]) -> str:
    """'PFC on priority 3', 'PFC on priorities 3, 4' or 'no PFC'."""
    if not priorities:
        return "no PFC"
    word = "priority" if len(priorities) == 1 else "priorities"
    return f"PFC on {word} " + ", ".join(map(str, priorities))


# ---- NIC001 -------------------------------------------------------------------------------------


class NicPfcMismatch(Rule[NoOptions]):
    """A NIC's PFC priorities differ from those of the switch port it is cabled to.

    PFC works hop by hop: if the NIC pauses priority 4 while its switch port protects priority 3,
    the switch ignores the NIC's pause frames and the NIC ignores the switch's, so RoCE drops
    under congestion. The NIC's PFC set (`mlnx_qos`) is compared with the effective PFC set of
    the switch port at the other end of its cable; when that switch was not collected, with the
    intent's `pfc.priorities`. With neither, or when the NIC's PFC state is unknown, the host is
    skipped (coverage).

    Options: none.

    Fails (the NIC protects 3 and 4, leaf01:Ethernet1 only 3):
        gpu01: mlnx_qos -i ens1np0 --pfc 0,0,0,1,1,0,0,0

    Passes: mlnx_qos -i ens1np0 --pfc 0,0,0,1,0,0,0,0 behind a switch port with PFC on 3.
    """

    code = "NIC001"
    name = "nic-pfc-mismatch"
    severity = "error"
    summary = "a NIC's PFC priorities differ from its switch port's (or from intent)"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in hosts(ctx):
            for nic in host_nics(ctx, state, self.code, roce=True):
                yield from self._check_port(ctx, state, nic.netdev)

    def _check_port(self, ctx: Context, state: DeviceState, netdev: str) -> Iterator[Finding]:
        qos = ctx.qos(state, netdev)
        wanted = self._expected(ctx, state, netdev)
        if qos.pfc is None or wanted is None:
            ctx.skip(self.code, state.name)
            return
        actual, (expected, where) = lossless_priorities(qos), wanted
        if actual != expected:
            yield self.finding(
                state.name,
                _iface(netdev),
                f"interfaces.{netdev}.qos.pfc.priorities",
                f"{netdev} has {_pfc(actual)} but {where} has {_pfc(expected)}",
                expected=expected,
                actual=actual,
                source=pfc_source(qos),
            )

    @staticmethod
    def _expected(ctx: Context, state: DeviceState, netdev: str) -> tuple[list[int], str] | None:
        """The peer switch port's PFC set (or the intent's) and what it is, for the message."""
        peer = ctx.peer(state.name, netdev)
        other = ctx.states.get(peer[0]) if peer else None
        if peer and other and not other.is_host and peer[1] in other.interfaces:
            where = f"{peer[0]}:{peer[1]} at the other end"
            return lossless_priorities(ctx.qos(other, peer[1])), where
        profile = ctx.profile(state.name)
        if profile is not None and profile.pfc is not None:
            return sorted(set(profile.pfc.priorities)), "the intent"
        return None


# ---- NIC002 -------------------------------------------------------------------------------------

_ECN_POINTS = {
    "ecn_np": "notification point (roce_np: CNP generation)",
    "ecn_rp": "reaction point (roce_rp: rate reduction)",
}


class NicDcqcnDisabled(Rule[NoOptions]):
    """DCQCN (ECN notification point or reaction point) is off on the NIC's RoCE priority.

    DCQCN is what turns ECN marks into slower senders: the receiving NIC's notification point
    sends CNPs for marked packets, the sending NIC's reaction point cuts its rate. With either
    off on the RoCE priority, congestion is handled by PFC alone, which spreads pause storms.
    Read from `/sys/class/net/IF/ecn/roce_np|roce_rp/enable/N` for N = the intent's RoCE
    priority. A host is skipped (coverage) when its profile has no RoCE class or the ECN state
    of that priority was not collected.

    Options: none.

    Fails: /sys/class/net/ens1np0/ecn/roce_rp/enable/3 is 0.

    Passes: roce_np/enable/3 and roce_rp/enable/3 are both 1.
    """

    code = "NIC002"
    name = "nic-dcqcn-disabled"
    severity = "error"
    summary = "DCQCN (ECN np/rp) is not enabled on the NIC's RoCE priority"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for device, nic, roce in _nics_with(ctx, self.code, ctx.roce):
            yield from self._check_nic(ctx, device, nic, roce.priority)

    def _check_nic(
        self, ctx: Context, device: str, nic: RdmaPort, priority: int
    ) -> Iterator[Finding]:
        enabled = {"ecn_np": nic.ecn_np.get(priority), "ecn_rp": nic.ecn_rp.get(priority)}
        if None in enabled.values():
            ctx.skip(self.code, device)
        off = [point for point, on in enabled.items() if on is False]
        if not off:
            return
        yield self.finding(
            device,
            _iface(nic.netdev),
            f"rdma.{nic.netdev}.{off[0]}.{priority}",
            f"{nic.netdev} has the DCQCN "
            + " and the ".join(_ECN_POINTS[point] for point in off)
            + f" disabled on RoCE priority {priority}",
            expected={point: True for point in enabled},
            actual=enabled,
            source=nic.src(f"{off[0]}.{priority}", off[0]),
        )


# ---- NIC003 -------------------------------------------------------------------------------------


class NicCnpMismatch(Rule[NoOptions]):
    """The NIC marks its CNPs with another DSCP or priority than the fabric's CNP class.

    Switches give CNPs a strict-priority queue by their DSCP; a CNP sent with another DSCP
    queues behind the data it is meant to slow down, and DCQCN reacts too late. The NIC's CNP
    DSCP and 802.1p priority (`cnp_dscp`, `cnp_802p_prio`) are compared with the intent's CNP
    class. A host is skipped (coverage) when its profile has no CNP class or a NIC's CNP values
    were not collected.

    Options: none.

    Fails: /sys/class/net/ens1np0/ecn/roce_np/cnp_dscp is 46 while the CNP class is DSCP 48.

    Passes: cnp_dscp 48 and cnp_802p_prio 6 with a CNP class of DSCP 48, priority 6.
    """

    code = "NIC003"
    name = "nic-cnp-mismatch"
    severity = "error"
    summary = "a NIC's CNP DSCP or priority differs from the fabric's CNP class"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for device, nic, cnp in _nics_with(ctx, self.code, ctx.cnp):
            yield from self._check_nic(ctx, device, nic, cnp)

    def _check_nic(
        self, ctx: Context, device: str, nic: RdmaPort, cnp: CnpClass
    ) -> Iterator[Finding]:
        pairs = {
            "cnp_dscp": ("DSCP", nic.cnp_dscp, cnp.dscp),
            "cnp_priority": ("priority", nic.cnp_priority, cnp.priority),
        }
        if any(actual is None for _, actual, _ in pairs.values()):
            ctx.skip(self.code, device)
        wrong = {key: pair for key, pair in pairs.items() if pair[1] not in (None, pair[2])}
        if not wrong:
            return
        have = ", ".join(f"{label} {actual}" for label, actual, _ in wrong.values())
        want = ", ".join(f"{label} {expected}" for label, _, expected in wrong.values())
        first = next(iter(wrong))
        yield self.finding(
            device,
            _iface(nic.netdev),
            f"rdma.{nic.netdev}.{first}",
            f"{nic.netdev} sends CNPs with {have} but the fabric's CNP class uses {want}",
            expected={key: expected for key, (_, _, expected) in wrong.items()},
            actual={key: actual for key, (_, actual, _) in wrong.items()},
            source=nic.src(first),
        )


# ---- NIC004 -------------------------------------------------------------------------------------

ECT0 = 0b10
"""ECN field value ECT(0): ECN-capable transport."""


class NicRoceTosMismatch(Rule["NicRoceTosMismatch.Options"]):
    """The NIC's default RoCE ToS carries another DSCP than the fabric's RoCE class.

    RDMA-CM connections take their ToS from `cma_roce_tos` (default_roce_tos): DSCP in the top six
    bits, ECN in the low two. With the wrong DSCP, RoCE lands in a lossy class on every switch,
    and PFC and ECN protect nothing. The fabric's value is DSCP << 2 | ECT(0): 106 for DSCP 26.
    The finding also says when the ECN bits are 0 (packets not ECN-capable). A host is skipped
    (coverage) when its profile has no RoCE class or a NIC's ToS was not collected.

    Options:
        require_ect: also report a ToS with the right DSCP but ECN bits 0 (104 for DSCP 26).
            Off by default, because the rule is about the class RoCE lands in; turn it on to
            insist on the recommended ECT(0) value (106 rather than 104).

    Fails: cma_roce_tos -d mlx5_0 -t 0 (DSCP 0, best effort) with a RoCE class of DSCP 26.

    Passes: cma_roce_tos -d mlx5_0 -t 106.
    """

    class Options(BaseModel):
        """Options of NIC004."""

        model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, defer_build=True)

        require_ect: bool = False
        """Also report a correct DSCP whose ECN bits are 0 (not ECN-capable)."""

    code = "NIC004"
    name = "nic-roce-tos-mismatch"
    severity = "error"
    summary = "the NIC's default RoCE ToS carries another DSCP than the fabric's RoCE class"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for device, nic, roce in _nics_with(ctx, self.code, ctx.roce):
            if nic.roce_tos is None:
                ctx.skip(self.code, device)
            else:
                yield from self._check_nic(device, nic, nic.roce_tos, roce)

    def _check_nic(
        self, device: str, nic: RdmaPort, tos: int, roce: RoceClass
    ) -> Iterator[Finding]:
        dscp, ecn = tos >> 2, tos & 0b11
        dscp_ok = dscp in roce.dscp
        if dscp_ok and (ecn or not self.options.require_ect):
            return
        expected = roce.dscp[0] << 2 | ECT0
        if dscp_ok:
            problem = f"DSCP {dscp} is right but the ECN bits are 0, so RoCE is not ECN-capable"
        else:
            wanted = " or ".join(map(str, roce.dscp))
            problem = f"that is DSCP {dscp}, not the fabric's RoCE DSCP {wanted}"
            problem += ", and its ECN bits are 0 (not ECN-capable)" if ecn == 0 else ""
        yield self.finding(
            device,
            _iface(nic.netdev),
            f"rdma.{nic.netdev}.roce_tos",
            f"{nic.netdev} has cma_roce_tos {tos}: {problem}; expected {expected}",
            expected=expected,
            actual=tos,
            source=nic.src("roce_tos"),
        )


# ---- NIC005 -------------------------------------------------------------------------------------


def _state_word(value: str) -> str:
    """'PORT_ACTIVE (4)', 'Active' -> 'PORTACTIVE', 'ACTIVE'; 'LINK_UP (5)', 'LinkUp' -> 'LINKUP'."""
    words = value.split()
    return words[0].replace("_", "").upper() if words else ""


_UP = {"state": {"ACTIVE", "PORTACTIVE"}, "phys_state": {"LINKUP"}}
_LABEL = {"state": "state", "phys_state": "physical state"}


def port_is_down(nic: RdmaPort) -> dict[str, str]:
    """The known state fields of a port that are not up ({} when up or unknown)."""
    values = {"state": nic.state, "phys_state": nic.phys_state}
    return {k: v for k, v in values.items() if v is not None and _state_word(v) not in _UP[k]}


class NicPortDown(Rule[NoOptions]):
    """A RoCE NIC port in the cabling plan is down, or slower than its peers.

    A GPU whose NIC is down or trained at a lower rate drags every collective it takes part in
    down to its speed. A port is down when its logical state is not Active (PORT_ACTIVE) or its
    physical state not LinkUp (LINK_UP). An up port is slow when its rate is below the fastest
    cabled port of the same NIC model in the fabric. One finding per port: a down port is not
    also reported as slow. A host is skipped (coverage) when a port's state, rate or model is
    not known. InfiniBand ports (cabled or not) are compared with the other ports of their model
    too; a down IB port, or one below the intent's `infiniband.hca.rate_gbps`, is IB010's.

    Options: none.

    Fails: ibstat shows ens1np0 (MT4129) 'Physical state: Polling', or at Rate 200 while the other
    MT4129 ports run at 400.

    Passes: every cabled port Active / LinkUp at the rate of its model's fastest port.
    """

    code = "NIC005"
    name = "nic-port-down"
    severity = "error"
    summary = "an RDMA NIC port is down, or its rate is below its peers'"

    def check(self, ctx: Context) -> Iterator[Finding]:
        nics = {state.name: _checked_nics(ctx, state, self.code) for state in hosts(ctx)}
        fastest: dict[str, float] = {}
        for nic in (nic for ports in nics.values() for nic in ports):
            model = _model(nic)
            if model is not None and nic.rate_gbps is not None:
                fastest[model] = max(fastest.get(model, 0.0), nic.rate_gbps)
        for device, ports in nics.items():
            for nic in ports:
                yield from self._check_nic(ctx, device, nic, fastest)

    def _check_nic(
        self, ctx: Context, device: str, nic: RdmaPort, fastest: dict[str, float]
    ) -> Iterator[Finding]:
        values = {"state": nic.state, "phys_state": nic.phys_state}
        down = port_is_down(nic)
        if is_ib(nic) and (down or below_intended_rate(ctx, device, nic)):
            return  # IB010 reports it
        if down:
            first = next(iter(down))
            shown = ", ".join(f"{_LABEL[k]} {v}" for k, v in values.items() if v is not None)
            yield self.finding(
                device,
                _iface(nic.netdev),
                f"rdma.{nic.netdev}.{first}",
                f"{nic.netdev} is down ({shown})",
                expected="Active / LinkUp",
                actual=down,
                source=nic.src(first),
            )
        elif None in values.values() or (model := _model(nic)) is None or nic.rate_gbps is None:
            ctx.skip(self.code, device)
        elif nic.rate_gbps < fastest[model]:
            yield self._slow(device, nic, model, nic.rate_gbps, fastest[model])

    def _slow(self, device: str, nic: RdmaPort, model: str, rate: float, best: float) -> Finding:
        width = f" ({nic.width})" if nic.width else ""
        return self.finding(
            device,
            _iface(nic.netdev),
            f"rdma.{nic.netdev}.rate_gbps",
            f"{nic.netdev} ({model}) runs at {rate:g} Gb/s{width} "
            f"while other {model} ports in the fabric run at {best:g} Gb/s",
            expected=best,
            actual=rate,
            source=nic.src("rate_gbps"),
        )


# ---- NIC006 -------------------------------------------------------------------------------------

Component = Literal["firmware", "driver"]


class NicFirmwareSkew(Rule["NicFirmwareSkew.Options"]):
    """NICs of one model run different firmware (or driver) versions across the fabric.

    DCQCN, PFC and congestion-control behaviour live in NIC firmware; two ConnectX-7s on
    different firmware can react differently to the same congestion, and mixed versions are
    usually an update that stopped half-way. Per NIC model, the version most hosts run is the
    reference; each host with a cabled NIC on another version is reported once (on its first
    such NIC), naming the reference; when hosts are split evenly, all of them are reported.
    InfiniBand and RoCE ports are both compared (IB ports whether cabled or not). A host is skipped (coverage) when a NIC's
    model or a compared version is not known.

    Options:
        components: which of firmware, driver to compare (default firmware only: the driver
            version is not in every host's inputs, and a host without it would be skipped).

    The model is the card family (platforms/mlnx_models.py): ibstat's `CA type: MT4129` and
    ibv_devinfo's `vendor_part_id: 4129` are one ConnectX-7, and a ConnectX-6 Dx (firmware
    22.x) is never compared with a ConnectX-7 (28.x).

    Fails (gpu03's ConnectX-7 runs 28.38.1000, gpu01 and gpu02 run 28.39.1002).

    Passes: every ConnectX-7 runs firmware 28.39.1002.
    """

    class Options(BaseModel):
        """Options of NIC006."""

        model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, defer_build=True)

        components: list[Component] = ["firmware"]
        """Which versions to compare across NICs of one model (firmware, driver)."""

    code = "NIC006"
    name = "nic-firmware-skew"
    severity = "warning"
    summary = "NICs of one model run different firmware or driver versions"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        nics = {state.name: _checked_nics(ctx, state, self.code) for state in hosts(ctx)}
        issues: dict[str, list[Issue]] = {}
        for component in self.options.components:
            for model, values in sorted(self._versions(ctx, nics, component).items()):
                gather(issues, values, f"{model} {component}", f"hosts with {model} NICs")
        yield from report(self, issues, "interface {scope}", "has")

    def _versions(
        self, ctx: Context, nics: dict[str, list[RdmaPort]], component: Component
    ) -> dict[str, dict[str, dict[str, Setting]]]:
        """Model -> host -> netdev -> version setting."""
        out: dict[str, dict[str, dict[str, Setting]]] = {}
        for device, ports in nics.items():
            for nic in ports:
                version: str | None = getattr(nic, component)
                model = _model(nic)
                if model is None or version is None:
                    ctx.skip(self.code, device)
                    continue
                setting = Setting(version, f"rdma.{nic.netdev}.{component}", nic.src(component))
                out.setdefault(model, {}).setdefault(device, {})[nic.netdev] = setting
        return out


def _model(nic: RdmaPort) -> str | None:
    """The NIC's family for comparisons: one identity whichever tool named it (ibstat's MT4129,
    ibv_devinfo's part id) and never one for two families (firmware 22.x vs 28.x); the one
    table is platforms/mlnx_models.py."""
    return family(nic.model, nic.firmware)


def _checked_nics(ctx: Context, state: DeviceState, code: str) -> list[RdmaPort]:
    """Cabled RoCE and IB ports of a host, plus its IB ports outside the cabling plan."""
    return host_nics(ctx, state, code) + uncabled_ib_ports(ctx, state)


# ---- NIC007 -------------------------------------------------------------------------------------

DEFAULT_ROCE_TOS = 0
"""cma_roce_tos when nobody set it: RDMA-CM traffic leaves with ToS 0 (DSCP 0)."""
DEFAULT_CNP_DSCP = 48
"""roce_np/cnp_dscp of the mlx5 driver when nobody set it."""


def _default_note(value: int, default: int) -> str:
    return ", the driver default" if value == default else ""


_DSCP_TRUST = (Trust.DSCP, Trust.BOTH)


def _protected(qos: QosConfig, nic: RdmaPort) -> tuple[list[int], str]:
    """Priorities the NIC protects, and how: its PFC priorities, or, on a NIC without PFC
    (lossy RoCE), the priorities with DCQCN on at both points."""
    lossless = lossless_priorities(qos)
    if lossless:
        return lossless, "PFC"
    dcqcn = sorted(p for p, on in nic.ecn_rp.items() if on and nic.ecn_np.get(p))
    return dcqcn, "DCQCN"


class NicEffectiveClassUnprotected(Rule[NoOptions]):
    """The priority a NIC's RoCE traffic or CNPs really use is not the one it protects.

    Judges the values in force, defaults included, not only what was set: RDMA-CM traffic leaves
    with `cma_roce_tos` (ToS 0, DSCP 0, until someone sets it) and CNPs with `roce_np/cnp_dscp`
    (48 by default); with DSCP trust the NIC's own dscp2prio map (`mlnx_qos`) puts each DSCP on a
    priority. RoCE must land on the intent's RoCE priority or, without a RoCE class in intent,
    on a priority the NIC protects: one with PFC on, or, on a NIC without PFC (lossy RoCE), one
    with DCQCN on at both the notification and the reaction point. CNPs must not share the
    priority RoCE data uses: they would queue behind the congestion they signal (NVIDIA's
    defaults give them DSCP 48, priority 6). A ToS or CNP DSCP other than the intent's is
    NIC004's or NIC003's finding; this rule catches the NIC's own map sending the right DSCP to
    the wrong priority, and, without intent, a default left in force. Options: none. Skipped
    when the ToS or the NIC's QoS was not collected, or the NIC does not trust DSCP.

    Fails (mlnx_qos --trust dscp --pfc 0,0,0,1,0,0,0,0, no intent; cma_roce_tos never set)::

        cma_roce_tos -d mlx5_0 -p 1   ->  0   (DSCP 0: dscp2prio puts it on priority 0)

    Passes::

        cma_roce_tos -d mlx5_0 -p 1 -t 106   (DSCP 26: dscp2prio puts it on priority 3)
    """

    code = "NIC007"
    name = "nic-effective-class-unprotected"
    severity = "error"
    summary = "the priority a NIC's RoCE traffic (or CNPs) really use is not the one it protects"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in hosts(ctx):
            for nic in host_nics(ctx, state, self.code, roce=True):
                yield from self._check_nic(ctx, state, nic)

    def _check_nic(self, ctx: Context, state: DeviceState, nic: RdmaPort) -> Iterator[Finding]:
        qos = ctx.qos(state, nic.netdev)
        if nic.roce_tos is None or qos.dscp_to_tc is None or qos.trust not in _DSCP_TRUST:
            ctx.skip(self.code, state.name)
            return
        dscp = nic.roce_tos >> 2
        priority = ctx.resolve(state, nic.netdev, dscp).priority
        wanted = self._wanted(ctx, state, nic, dscp)
        if priority is None or wanted is None:
            return
        if priority not in wanted[0]:
            yield self._roce(state.name, nic, (dscp, priority), *wanted)
        else:
            yield from self._check_cnp(ctx, state, nic, priority)

    @staticmethod
    def _wanted(
        ctx: Context, state: DeviceState, nic: RdmaPort, dscp: int
    ) -> tuple[list[int], str] | None:
        """The priorities RoCE must land on, and what says so; None when another rule judges
        (a DSCP other than the intent's is NIC004's finding) or nothing is protected."""
        roce = ctx.roce(state.name)
        if roce is not None:
            return ([roce.priority], "the RoCE class") if dscp in roce.dscp else None
        qos = ctx.qos(state, nic.netdev)
        protected, how = _protected(qos, nic)
        return (protected, f"its {how}") if protected else None

    def _check_cnp(
        self, ctx: Context, state: DeviceState, nic: RdmaPort, roce_priority: int
    ) -> Iterator[Finding]:
        cnp = ctx.cnp(state.name)
        if nic.cnp_dscp is None or (cnp is not None and cnp.dscp != nic.cnp_dscp):
            return  # a CNP DSCP other than the intent's is NIC003's finding
        if ctx.resolve(state, nic.netdev, nic.cnp_dscp).priority == roce_priority:
            yield self._cnp(state.name, nic, nic.cnp_dscp, roce_priority)

    def _roce(
        self, device: str, nic: RdmaPort, landed: tuple[int, int], protected: list[int], how: str
    ) -> Finding:
        dscp, priority = landed
        tos = nic.roce_tos or 0
        word = "priority" if len(protected) == 1 else "priorities"
        return self.finding(
            device,
            _iface(nic.netdev),
            f"rdma.{nic.netdev}.dscp_to_tc.{dscp}",
            f"{nic.netdev}'s RoCE traffic leaves with DSCP {dscp} (cma_roce_tos {tos}"
            f"{_default_note(tos, DEFAULT_ROCE_TOS)}), which the NIC's dscp2prio map puts on "
            f"priority {priority}, but {how} is on {word} "
            f"{', '.join(map(str, protected))}: RoCE leaves the NIC unprotected",
            expected=f"a DSCP on {word} {', '.join(map(str, protected))}",
            actual={"roce_tos": tos, "dscp": dscp, "priority": priority},
            source=nic.src("roce_tos"),
        )

    def _cnp(self, device: str, nic: RdmaPort, dscp: int, priority: int) -> Finding:
        return self.finding(
            device,
            _iface(nic.netdev),
            f"rdma.{nic.netdev}.cnp_dscp",
            f"{nic.netdev} sends CNPs with DSCP {dscp}{_default_note(dscp, DEFAULT_CNP_DSCP)}, "
            f"which the NIC's dscp2prio map puts on priority {priority}, the priority its RoCE "
            "data uses: CNPs queue behind the congestion they signal",
            expected="a CNP DSCP on a priority of its own",
            actual={"cnp_dscp": dscp, "priority": priority},
            source=nic.src("cnp_dscp"),
        )


RULES: list[type[Rule[Any]]] = [
    NicPfcMismatch,
    NicDcqcnDisabled,
    NicCnpMismatch,
    NicRoceTosMismatch,
    NicPortDown,
    NicFirmwareSkew,
    NicEffectiveClassUnprotected,
]
