"""IB005-IB008: one subnet manager's configuration, as OpenSM would read it.

The opensm parser already knows what OpenSM does with every line (value used, reset reason,
unknown key); these rules turn that into findings and add what needs the whole picture (default
keys with tenants, ignore_other_sm with a standby). QoS (IB003, IB004) is in ib_qos.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from fnmatch import fnmatchcase
from typing import Any, Literal

from fabriclint.models.finding import Finding
from fabriclint.models.ib import QosTables, SmConfig, SmOption
from fabriclint.models.state import DeviceState
from fabriclint.platforms.opensm_keys import BUILDS, KEYS, ROUTING_ENGINES
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.ib_fleet import (
    IB_FABRIC,
    active_sms,
    conf,
    conf_object,
    infiniband,
    master,
    sm_nodes,
)
from fabriclint.rules.scope import StrictOptions

# ---- IB005 ---------------------------------------------------------------------------------------

_KEY_DEFAULTS = {"m_key": 0, "sm_key": 1, "sa_key": 1}


class DefaultManagementKeys(Rule["DefaultManagementKeys.Options"]):
    """m_key, sm_key or sa_key is left at OpenSM's default on a fabric shared by tenants.

    With M_Key 0 any host can reprogram a port's PortInfo (LID, P_Key table, state) with SMPs;
    with SM_Key/SA_Key 1 any host can pose as a trusted SA client or a peer SM. Partitions only
    isolate tenants when the management keys are secret, and an M_Key without protection level
    (0) can be read back by anyone. A fabric counts as multi-tenant when partitions.conf defines a
    partition besides the default 0x7fff (option `multi_tenant` forces it either way). A key the
    collector redacted counts as set. Values are never shown.

    Options:
        multi_tenant: true/false to force; default (null): decided from partitions.conf.

    Fails: partitions tenant-a and tenant-b, and no m_key/sm_key/sa_key line (defaults 0, 1, 1).

    Passes: the three keys set to site secrets and `m_key_protection_level 2`.
    """

    class Options(StrictOptions):
        """Options of IB005."""

        multi_tenant: bool | None = None
        """Treat the fabric as multi-tenant (true) or not (false); null: from partitions.conf."""

    code = "IB005"
    kinds = IB_FABRIC
    name = "default-management-keys"
    severity = "warning"
    summary = "m_key/sm_key/sa_key left at defaults on a multi-tenant fabric"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in sm_nodes(ctx):
            if not self._multi_tenant(state):
                continue
            yield from self._keys(state, conf(state))

    def _multi_tenant(self, state: DeviceState) -> bool:
        if self.options.multi_tenant is not None:
            return self.options.multi_tenant
        return any(p.pkey != 0x7FFF for p in infiniband(state).partitions or [])

    def _keys(self, state: DeviceState, sm: SmConfig) -> Iterator[Finding]:
        default = [k for k, v in _KEY_DEFAULTS.items() if _is_default(sm, k, v)]
        if default:
            yield self.finding(
                state.name,
                "opensm.conf management keys",
                "infiniband.sm.keys",
                f"{', '.join(default)} left at OpenSM's default on a fabric with tenant "
                "partitions: any host can send trusted management packets and leave its partition",
                expected="non-default",
                actual={k: "default" for k in default},
                source=sm.src(*default),
            )
        elif not _is_default(sm, "m_key", 0) and sm.number("m_key_protection_level") == 0:
            yield self.finding(
                state.name,
                conf_object("m_key_protection_level"),
                "infiniband.sm.m_key_protection_level",
                "m_key is set but m_key_protection_level is 0: any host can read the M_Key back",
                expected="1-3",
                actual=0,
                source=sm.src("m_key_protection_level", "m_key"),
            )


def _is_default(sm: SmConfig, key: str, default: int) -> bool:
    opt = sm.options[key]
    return not opt.redacted and isinstance(opt.value, str) and int(opt.value, 16) == default


# ---- IB006 ---------------------------------------------------------------------------------------


class OpensmValueReset(Rule["OpensmValueReset.Options"]):
    """opensm.conf holds a value OpenSM silently replaces (or reads differently than written).

    OpenSM never refuses a value: `lmc 8` becomes 0, `sm_priority 16` becomes 0,
    `m_key_protection_level 5` becomes 2, `qos true` is FALSE (only upper-case TRUE counts),
    `lmc 010` is octal 8, `sweep_interval 10s` is 10, `max_op_vls 8` limits nothing, an unknown
    routing engine is skipped. The log line it writes is easy to miss; the fabric then runs with a
    value nobody chose. Also reported (qos TRUE): an SL2VL table without exactly 16 entries (the
    missing SLs go to VL 0, extra ones are dropped), more than 64 arbitration entries, entries
    OpenSM cannot read. `expected` holds the value OpenSM uses, `actual` what is written.

    Routing engines are judged by the OpenSM build the SM nodes run (option `build`): upstream
    OpenSM 3.3.23 knows minhop, updn, dnup, file, ftree, lash, dor, torus-2qos, nue, dfsssp and
    sssp; NVIDIA's OpenSM (MLNX_OFED, DOCA, UFM; its user manual, "Routing Algorithms") also
    ar_updn, ar_ftree, ar_torus and pqft. A name neither knows is accepted when listed in
    `routing_engines`.

    Options:
        build: `upstream` (default) or `nvidia`, the OpenSM the SM nodes run.
        routing_engines: further routing engine names your build knows.

    Fails: `lmc 8` (OpenSM uses 0); `routing_engine ar_updn` with the default build (upstream
    OpenSM skips it and routes with minhop).

    Passes: `lmc 2`; `routing_engine ar_updn` with `build: nvidia`.
    """

    class Options(StrictOptions):
        """Options of IB006."""

        build: Literal["upstream", "nvidia"] = "upstream"
        """The OpenSM build of the SM nodes (platforms/opensm_keys.py BUILDS)."""
        routing_engines: list[str] = []
        """Routing engine names the build knows beyond upstream's (and NVIDIA's, with `nvidia`)."""

    code = "IB006"
    kinds = IB_FABRIC
    name = "opensm-value-reset"
    severity = "error"
    summary = "opensm.conf holds a value OpenSM silently replaces with another"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in sm_nodes(ctx):
            sm = conf(state)
            for key, opt in sm.options.items():
                if key == "routing_engine" and self._engines_known(opt):
                    continue
                if opt.reset is not None:
                    yield self.finding(
                        state.name,
                        conf_object(key),
                        f"infiniband.sm.{key}",
                        f"{key} {opt.written}: {opt.reset}",
                        expected=opt.value,
                        actual=opt.written,
                        source=opt.source,
                    )
                elif opt.build is not None:
                    yield self._other_build(state.name, opt)
            if sm.flag("qos"):
                for tables in sm.tables.values():
                    yield from self._shape(state.name, tables)

    def _engines_known(self, opt: SmOption) -> bool:
        """Whether every written routing engine is one the declared build knows."""
        if opt.written is None:
            return True
        known = ROUTING_ENGINES | BUILDS[self.options.build].routing_engines
        known |= {name.lower() for name in self.options.routing_engines}
        names = [n.strip().lower() for n in opt.written.split(",") if n.strip()]
        return all(name in known for name in names)

    def _other_build(self, device: str, opt: SmOption) -> Finding:
        """A value of another build (NVIDIA's routing engines) on the declared one."""
        names = [n.strip() for n in (opt.written or "").split(",") if n.strip()]
        used = ",".join(n for n in names if n.lower() in ROUTING_ENGINES) or "minhop"
        return self.finding(
            device,
            conf_object(opt.key),
            f"infiniband.sm.{opt.key}",
            f"{opt.key} {opt.written}: a routing engine of {opt.build} OpenSM; upstream OpenSM "
            f"skips it and uses {used} (if the SM runs {opt.build}'s OpenSM, declare "
            f"`build: {opt.build}` in {self.code}'s options)",
            expected=used,
            actual=opt.written,
            source=opt.source,
        )

    def _shape(self, device: str, tables: QosTables) -> Iterator[Finding]:
        problems: list[tuple[str, str]] = []
        count = len(tables.sl2vl) if tables.sl2vl is not None else 16
        if count != 16:
            fate = "SLs without an entry go to VL 0" if count < 16 else "the extra ones are dropped"
            problems.append(("sl2vl", f"lists {count} SLs, not 16: {fate}"))
        for name in ("vlarb_high", "vlarb_low"):
            entries = getattr(tables, name)
            if entries is not None and len(entries) > 64:
                problems.append((name, f"has {len(entries)} entries; OpenSM keeps the first 64"))
        for name, bad in sorted(tables.malformed.items()):
            what = ", ".join(repr(t) for t in bad)
            problems.append((name, f"has entries {what} OpenSM cannot read as written"))
        for name, text in problems:
            key = f"{tables.prefix}_{name}"
            source = tables.src(name)
            yield self.finding(
                device, conf_object(key), f"infiniband.sm.{key}", f"{key} {text}", source=source
            )


# ---- IB007 ---------------------------------------------------------------------------------------


class OpensmUnknownKey(Rule["OpensmUnknownKey.Options"]):
    """opensm.conf has a key OpenSM does not know: it logs 'Unrecognized token' and ignores it.

    Usually a typo (`routing_engines`, `ignore_other_sms`) whose intended setting silently stays
    at its default, or a key from another OpenSM build. The key set is upstream OpenSM 3.3.23's
    (every key `opensm -c` writes); NVIDIA's OpenSM (MLNX_OFED, UFM) knows more: list those in
    `extra_keys`, or declare `build: nvidia` (its adaptive-routing `ar_*` and virtualization
    `virt_*` keys). The finding suggests the closest known key.

    Options:
        build: `upstream` (default) or `nvidia`, the OpenSM the SM nodes run.
        extra_keys: key patterns (shell style, e.g. `ar_*`) your OpenSM build also knows.

    Fails: `routing_engines ftree` (routing stays minhop). Passes: `routing_engine ftree`.
    """

    class Options(StrictOptions):
        """Options of IB007."""

        build: Literal["upstream", "nvidia"] = "upstream"
        """The OpenSM build of the SM nodes: `nvidia` also knows its `ar_*` and `virt_*` keys."""
        extra_keys: list[str] = []
        """Key patterns (fnmatch) that your OpenSM build knows in addition to upstream's."""

    code = "IB007"
    kinds = IB_FABRIC
    name = "opensm-unknown-key"
    severity = "warning"
    summary = "opensm.conf has a key OpenSM does not know (it only logs and ignores it)"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in sm_nodes(ctx):
            for item in conf(state).unknown:
                patterns = (*BUILDS[self.options.build].key_patterns, *self.options.extra_keys)
                if any(fnmatchcase(item.key, p) for p in patterns):
                    continue
                close = difflib.get_close_matches(item.key, list(KEYS), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                yield self.finding(
                    state.name,
                    conf_object(item.key),
                    f"infiniband.sm.unknown.{item.key}",
                    f"OpenSM does not know '{item.key}' and ignores the line{hint}",
                    actual=item.text,
                    source=item.source,
                )


# ---- IB008 ---------------------------------------------------------------------------------------


class IgnoreOtherSm(Rule[NoOptions]):
    """`ignore_other_sm TRUE` on an SM node of a fabric that has other SMs.

    An SM that ignores the others takes part in no election: on the master it keeps a standby
    from ever taking over cleanly, on a standby it makes a second master that reprograms the
    fabric against the first. Reported on each SM node with it set while another active SM node
    is in the inventory.

    Options: none.

    Fails: sm01 (priority 15) with `ignore_other_sm TRUE`, standby sm02.

    Passes: `ignore_other_sm FALSE` (the default) on both.
    """

    code = "IB008"
    kinds = IB_FABRIC
    name = "ignore-other-sm-on-master"
    severity = "warning"
    summary = "ignore_other_sm TRUE on a fabric that has standby SMs"

    def check(self, ctx: Context) -> Iterator[Finding]:
        sms = active_sms(ctx)
        chief = master(ctx)
        for state in sms:
            others = [s.name for s in sms if s is not state]
            if not conf(state).flag("ignore_other_sm") or not others:
                continue
            role = "master" if state is chief else "SM"
            effect = (
                "the standby cannot take over cleanly"
                if state is chief
                else "it runs as a second master"
            )
            yield self.finding(
                state.name,
                conf_object("ignore_other_sm"),
                "infiniband.sm.ignore_other_sm",
                f"{role} {state.name} ignores the other SMs ({', '.join(others)}): {effect}",
                expected=False,
                actual=True,
                source=conf(state).src("ignore_other_sm"),
            )


RULES: list[type[Rule[Any]]] = [
    DefaultManagementKeys,
    OpensmValueReset,
    OpensmUnknownKey,
    IgnoreOtherSm,
]
