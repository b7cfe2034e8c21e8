"""The values OpenSM silently replaces after reading opensm.conf (`osm_subn_verify_config`), plus
PortInfo fields narrower than the option and routing engines it does not know.

Each check sets the value OpenSM actually uses and, for a key that was written, why (IB006).
Reference: opensm/osm_subnet.c (3.3.23) `osm_subn_verify_config`, `subn_verify_qos_set`;
opensm/osm_opensm.c (routing engine setup); IBA PortInfo field widths.
"""

from __future__ import annotations

from collections.abc import Callable

from fabriclint.models.ib import OptionValue, SmOption
from fabriclint.platforms.opensm_keys import (
    CONSOLES,
    DATA_VLS_BY_OP_VLS,
    NVIDIA_ROUTING_ENGINES,
    PART_ENFORCE,
    QOS_PREFIXES,
    ROUTING_ENGINES,
)

Options = dict[str, SmOption]


def _num(opts: Options, key: str) -> int:
    value = opts[key].value
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def replace(opt: SmOption, value: OptionValue, why: str) -> None:
    """OpenSM uses `value` instead of what `opt` holds; say why when the key was written."""
    if opt.source is not None:
        opt.reset = f"{opt.reset}; then {why}" if opt.reset else why
    opt.value = value


def _above(key: str, limit: int, fallback: int, what: str) -> Callable[[Options], None]:
    def check(opts: Options) -> None:
        if _num(opts, key) > limit:
            replace(opts[key], fallback, f"{what}; OpenSM uses {fallback}")

    return check


def _link_speed(opts: Options) -> None:
    value = _num(opts, "force_link_speed")
    if value > 15 or 7 < value < 15:
        replace(opts["force_link_speed"], 15, "valid values are 0-7 and 15; OpenSM uses 15")


def _link_speed_ext(opts: Options) -> None:
    value = _num(opts, "force_link_speed_ext")
    if value > 31 or 7 < value < 30:
        replace(opts["force_link_speed_ext"], 31, "valid values are 0-7, 30, 31; OpenSM uses 31")


def _link_width(opts: Options) -> None:
    if 31 < _num(opts, "force_link_width") < 255:
        replace(opts["force_link_width"], 255, "valid values are 0-31 and 255; OpenSM uses 255")


def _wire_smps(opts: Options) -> None:
    if _num(opts, "max_wire_smps") > 0x7FFFFFFF:
        replace(opts["max_wire_smps"], 4, "above 2147483647; OpenSM uses 4")
    if _num(opts, "max_wire_smps2") > 0x7FFFFFFF:
        smps = _num(opts, "max_wire_smps")
        replace(opts["max_wire_smps2"], smps, f"above 2147483647; OpenSM uses max_wire_smps {smps}")


def _long_transaction(opts: Options) -> None:
    short = _num(opts, "transaction_timeout")
    if _num(opts, "long_transaction_timeout") < short:
        why = f"below transaction_timeout; OpenSM uses {short}"
        replace(opts["long_transaction_timeout"], short, why)


def _console(opts: Options) -> None:
    if opts["console"].value not in CONSOLES:
        replace(opts["console"], "off", "not off, local, loopback or socket; OpenSM uses off")


def _part_enforce(opts: Options) -> None:
    opt = opts["part_enforce"]
    if opts["no_partition_enforcement"].value is True:
        if opt.value != "off":
            replace(opt, "off", "no_partition_enforcement TRUE overrides it; OpenSM uses off")
    elif opt.value not in PART_ENFORCE:
        replace(opt, "both", "not both, in, out or off; OpenSM uses both")


def _qos_sets(opts: Options) -> None:
    if opts["qos"].value is not True:
        return  # OpenSM only verifies (and uses) the QoS sets when qos is TRUE
    for prefix in QOS_PREFIXES:
        max_vls, high = opts[f"{prefix}_max_vls"], opts[f"{prefix}_high_limit"]
        if _num(opts, max_vls.key) > 15:
            replace(max_vls, 0, "above 15; OpenSM uses its default (15 VLs)")
        if not -1 <= _num(opts, high.key) <= 255:
            replace(high, -1, "outside 0-255; OpenSM uses its default (0)")


def _perfmgr(opts: Options) -> None:
    if _num(opts, "perfmgr_sweep_time_s") < 1:
        replace(opts["perfmgr_sweep_time_s"], 180, "below 1; OpenSM uses 180")
    if _num(opts, "perfmgr_max_outstanding_queries") < 1:
        replace(opts["perfmgr_max_outstanding_queries"], 500, "below 1; OpenSM uses 500")


def _mkey_lease(opts: Options) -> None:
    lease = _num(opts, "m_key_lease_period")
    if not (_num(opts, "m_key_protection_level") and lease):
        return
    if _num(opts, "sweep_interval") == 0:
        why = f"sweeping cannot be off with protected M_Key leases; OpenSM uses {lease - 1}"
        replace(opts["sweep_interval"], lease - 1, why)
    sweep = _num(opts, "sweep_interval")
    if sweep >= lease:
        why = f"not above sweep_interval {sweep}; OpenSM uses {sweep + 1}"
        replace(opts["m_key_lease_period"], sweep + 1, why)


_FIELDS = {  # option -> (PortInfo/SwitchInfo field, bits)
    "sm_sl": ("MasterSMSL", 4),
    "subnet_timeout": ("SubnetTimeOut", 5),
    "vl_stall_count": ("VLStallCount", 3),
    "leaf_vl_stall_count": ("VLStallCount", 3),
    "packet_life_time": ("LifeTimeValue", 5),
    "head_of_queue_lifetime": ("HOQLife", 5),
    "leaf_head_of_queue_lifetime": ("HOQLife", 5),
    "local_phy_errors_threshold": ("LocalPhyErrors", 4),
    "overrun_errors_threshold": ("OverrunErrors", 4),
}


def _field_widths(opts: Options) -> None:
    for key, (name, bits) in _FIELDS.items():
        value = _num(opts, key)
        if value >= 1 << bits:
            kept = value & ((1 << bits) - 1)
            replace(opts[key], kept, f"{name} is {bits} bits wide; OpenSM programs {kept}")


def _max_op_vls(opts: Options) -> None:
    value = _num(opts, "max_op_vls")
    if value > 5:
        why = "not an OperationalVLs code (1-5); it limits nothing, ports run up to VL0-14 (5)"
        replace(opts["max_op_vls"], 5, why)
    elif value == 0:
        why = "0 is not an OperationalVLs code (1-5); OpenSM's behaviour is undefined"
        replace(opts["max_op_vls"], 0, why)


def _routing_engine(opts: Options) -> None:
    opt = opts["routing_engine"]
    if not isinstance(opt.value, str):
        return
    names = [n.strip() for n in opt.value.split(",") if n.strip()]
    known = [n for n in names if n.lower() in ROUTING_ENGINES]
    if len(known) == len(names):
        return
    if all(n.lower() in ROUTING_ENGINES | NVIDIA_ROUTING_ENGINES for n in names):
        opt.build = "nvidia"  # what NVIDIA's OpenSM runs; IB006 judges it by the declared build
        return
    unknown = ", ".join(n for n in names if n not in known)
    used = ",".join(known) or None
    why = f"unknown routing engine {unknown}, skipped; OpenSM uses {used or 'minhop'}"
    replace(opt, used, why)


CHECKS: list[Callable[[Options], None]] = [
    _above("lmc", 7, 0, "LMC is 0-7"),
    _above("sm_priority", 15, 0, "SM priority is 0-15"),
    _link_speed,
    _link_speed_ext,
    _link_width,
    _above("fdr10", 2, 1, "fdr10 is 0-2"),
    _wire_smps,
    _long_transaction,
    _console,
    _part_enforce,
    _qos_sets,
    _perfmgr,
    _above("m_key_protection_level", 3, 2, "M_Key protection levels are 0-3"),
    _mkey_lease,
    _field_widths,
    _max_op_vls,
    _routing_engine,
]


def verify(opts: Options) -> None:
    """Apply every check, in OpenSM's order."""
    for check in CHECKS:
        check(opts)


def data_vls(max_op_vls: int) -> int:
    """Data VLs a max_op_vls code allows (15 for codes outside 1-5)."""
    return DATA_VLS_BY_OP_VLS.get(max_op_vls, 15)
