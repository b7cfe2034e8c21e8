"""Every opensm.conf key of upstream OpenSM 3.3.23, with the C type OpenSM parses it into and the
default it uses when the key is absent.

Facts from OpenSM's option table and `osm_subn_set_default_opt` (opensm/osm_subnet.c), cross-checked
with `opensm -c` of opensm 3.3.23 (Debian bookworm). Types decide how a value is read:

    bool    exactly `TRUE` is true; anything else (true, yes, 1) is FALSE
    u8/u16/u32/i32/net16/net32/net64   C `strtoul`/`strtol` with base 0 (0x.. hex, 0.. octal),
            trailing text ignored, then truncated to the type's width
    str     taken as written; `(null)` means unset
    mask256 / cct / ca_cong / cct_list   congestion-control encodings, kept as written

NVIDIA's OpenSM (MLNX_OFED, DOCA, UFM) knows more keys and routing engines (BUILDS below: declare
the build with IB006/IB007's `build` option); list others in IB007's `extra_keys` option.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal[
    "bool", "u8", "u16", "u32", "i32", "net16", "net32", "net64", "str", "mask256", "cct", "ca_cong"
]

WIDTH_BITS: dict[str, int] = {"u8": 8, "u16": 16, "u32": 32, "i32": 32, "net16": 16, "net32": 32}


@dataclass(frozen=True)
class Spec:
    """How OpenSM reads one key and what it uses when the key is absent."""

    kind: Kind
    default: bool | int | str | None
    repeatable: bool = False
    """Keys legitimately written several times (one line per SL)."""


def _hex64(value: int) -> str:
    return f"0x{value:016x}"


_ZERO_MASK = "0x" + "0" * 64
_ETC = "/etc/opensm/"

_TABLE: list[tuple[str, Kind, bool | int | str | None]] = [
    # device attributes
    ("guid", "net64", _hex64(0)),
    ("m_key", "net64", _hex64(0)),
    ("m_key_lease_period", "net16", 0),
    ("m_key_protection_level", "u8", 0),
    ("m_key_lookup", "bool", True),
    ("sm_key", "net64", _hex64(1)),
    ("sa_key", "net64", _hex64(1)),
    ("subnet_prefix", "net64", _hex64(0xFE80000000000000)),
    ("lmc", "u8", 0),
    ("lmc_esp0", "bool", False),
    ("sm_sl", "u8", 0),
    ("packet_life_time", "u8", 0x12),
    ("vl_stall_count", "u8", 7),
    ("leaf_vl_stall_count", "u8", 7),
    ("head_of_queue_lifetime", "u8", 0x12),
    ("leaf_head_of_queue_lifetime", "u8", 0x10),
    ("max_op_vls", "u8", 5),
    ("force_link_speed", "u8", 15),
    ("force_link_speed_ext", "u8", 31),
    ("force_link_width", "u8", 255),
    ("fdr10", "u8", 1),
    ("subnet_timeout", "u8", 18),
    ("local_phy_errors_threshold", "u8", 8),
    ("overrun_errors_threshold", "u8", 8),
    ("use_mfttop", "bool", True),
    # partitioning
    ("partition_config_file", "str", _ETC + "partitions.conf"),
    ("no_partition_enforcement", "bool", False),
    ("part_enforce", "str", "both"),
    ("allow_both_pkeys", "bool", False),
    ("keep_pkey_indexes", "bool", True),
    ("sm_assigned_guid", "u8", 0),
    # sweep
    ("sweep_interval", "u32", 10),
    ("reassign_lids", "bool", False),
    ("force_heavy_sweep", "bool", False),
    ("sweep_on_trap", "bool", True),
    # routing
    ("port_profile_switch_nodes", "bool", False),
    ("port_prof_ignore_file", "str", None),
    ("hop_weights_file", "str", None),
    ("port_search_ordering_file", "str", None),
    ("dimn_ports_file", "str", None),  # deprecated alias of port_search_ordering_file
    ("routing_engine", "str", None),
    ("avoid_throttled_links", "bool", False),
    ("connect_roots", "bool", False),
    ("use_ucast_cache", "bool", False),
    ("lid_matrix_dump_file", "str", None),
    ("lfts_file", "str", None),
    ("root_guid_file", "str", None),
    ("cn_guid_file", "str", None),
    ("io_guid_file", "str", None),
    ("quasi_ftree_indexing", "bool", False),
    ("max_reverse_hops", "u16", 0),
    ("ids_guid_file", "str", None),
    ("guid_routing_order_file", "str", None),
    ("do_mesh_analysis", "bool", False),
    ("lash_start_vl", "u8", 0),
    ("nue_max_num_vls", "u8", 1),
    ("nue_include_switches", "bool", False),
    ("port_shifting", "bool", False),
    ("scatter_ports", "u32", 0),
    ("guid_routing_order_no_scatter", "bool", False),
    ("sa_db_file", "str", None),
    ("sa_db_dump", "bool", False),
    ("torus_config", "str", _ETC + "torus-2QoS.conf"),
    # handover
    ("sm_priority", "u8", 0),
    ("ignore_other_sm", "bool", False),
    ("sminfo_polling_timeout", "u32", 10000),
    ("polling_retry_number", "u32", 4),
    ("honor_guid2lid_file", "bool", False),
    # timing and threading
    ("max_wire_smps", "u32", 4),
    ("max_wire_smps2", "u32", 4),
    ("max_smps_timeout", "u32", 600000),
    ("transaction_timeout", "u32", 200),
    ("transaction_retries", "u32", 3),
    ("long_transaction_timeout", "u32", 500),
    ("max_msg_fifo_timeout", "u32", 10000),
    ("single_thread", "bool", False),
    # misc
    ("daemon", "bool", False),
    ("sm_inactive", "bool", False),
    ("babbling_port_policy", "bool", False),
    ("drop_event_subscriptions", "bool", False),
    ("ipoib_mcgroup_creation_validation", "bool", True),
    ("mcgroup_join_validation", "bool", True),
    ("use_original_extended_sa_rates_only", "bool", False),
    ("use_optimized_slvl", "bool", False),
    ("fsync_high_avail_files", "bool", True),
    # performance manager
    ("perfmgr", "bool", False),
    ("perfmgr_redir", "bool", True),
    ("perfmgr_sweep_time_s", "u16", 180),
    ("perfmgr_max_outstanding_queries", "u32", 500),
    ("perfmgr_ignore_cas", "bool", False),
    ("perfmgr_rm_nodes", "bool", True),
    ("perfmgr_log_errors", "bool", True),
    ("perfmgr_query_cpi", "bool", True),
    ("perfmgr_xmit_wait_log", "bool", False),
    ("perfmgr_xmit_wait_threshold", "u32", 65535),
    ("event_db_dump_file", "str", None),
    ("event_plugin_name", "str", None),
    ("event_plugin_options", "str", None),
    ("node_name_map_name", "str", None),
    # debug
    ("log_flags", "u8", 0x03),
    ("force_log_flush", "bool", False),
    ("log_file", "str", "/var/log/opensm.log"),
    ("log_max_size", "u32", 0),
    ("accum_log_file", "bool", True),
    ("per_module_logging_file", "str", _ETC + "per-module-logging.conf"),
    ("dump_files_dir", "str", "/var/log/"),
    ("enable_quirks", "bool", False),
    ("no_clients_rereg", "bool", False),
    ("disable_multicast", "bool", False),
    ("exit_on_fatal", "bool", True),
    ("console", "str", "off"),
    ("console_port", "u16", 10000),
    # QoS
    ("qos", "bool", False),
    ("qos_policy_file", "str", _ETC + "qos-policy.conf"),
    ("suppress_sl2vl_mad_status_errors", "bool", False),
    # congestion control
    ("congestion_control", "bool", False),
    ("cc_key", "net64", _hex64(0)),
    ("cc_max_outstanding_mads", "u32", 500),
    ("cc_sw_cong_setting_control_map", "net32", 0),
    ("cc_sw_cong_setting_victim_mask", "mask256", _ZERO_MASK),
    ("cc_sw_cong_setting_credit_mask", "mask256", _ZERO_MASK),
    ("cc_sw_cong_setting_threshold", "u8", 0),
    ("cc_sw_cong_setting_packet_size", "u8", 0),
    ("cc_sw_cong_setting_credit_starvation_threshold", "u8", 0),
    ("cc_sw_cong_setting_credit_starvation_return_delay", "cct", "0:0"),
    ("cc_sw_cong_setting_marking_rate", "net16", 0),
    ("cc_ca_cong_setting_port_control", "net16", 0),
    ("cc_ca_cong_setting_control_map", "net16", 0),
    ("cc_cct", "str", None),
    # other files
    ("prefix_routes_file", "str", _ETC + "prefix-routes.conf"),
    ("consolidate_ipv6_snm_req", "bool", False),
    ("log_prefix", "str", None),
]

QOS_PREFIXES = ("qos", "qos_ca", "qos_sw0", "qos_swe", "qos_rtr")
"""QoS table sets: `qos_` is the default for every port class, then CAs, switch port 0, switch
external ports and routers."""

QOS_TABLE_SUFFIXES: tuple[tuple[str, Kind, int | None], ...] = (
    ("max_vls", "u32", 0),
    ("high_limit", "i32", -1),
    ("vlarb_high", "str", None),
    ("vlarb_low", "str", None),
    ("sl2vl", "str", None),
)

_CA_CONG = (
    "cc_ca_cong_setting_ccti_timer",
    "cc_ca_cong_setting_ccti_increase",
    "cc_ca_cong_setting_trigger_threshold",
    "cc_ca_cong_setting_ccti_min",
)


def _build() -> dict[str, Spec]:
    specs = {key: Spec(kind, default) for key, kind, default in _TABLE}
    for prefix in QOS_PREFIXES:
        for suffix, kind, default in QOS_TABLE_SUFFIXES:
            specs[f"{prefix}_{suffix}"] = Spec(kind, default)
    for key in _CA_CONG:  # "<SL> <value>", one line per SL
        specs[key] = Spec("ca_cong", "0 0", repeatable=True)
    return specs


KEYS: dict[str, Spec] = _build()
"""Every key OpenSM knows, by name."""

QOS_TABLE_KEYS: frozenset[str] = frozenset(
    f"{prefix}_{suffix}" for prefix in QOS_PREFIXES for suffix, _, _ in QOS_TABLE_SUFFIXES
)

ROUTING_ENGINES: frozenset[str] = frozenset(
    {"minhop", "updn", "dnup", "file", "ftree", "lash", "dor", "torus-2qos", "nue", "dfsssp"}
    | {"sssp", "no_fallback"}
)
"""Names `routing_engine` accepts (compared case-insensitively); `no_fallback` stops OpenSM from
falling back to minhop when every listed engine fails."""


@dataclass(frozen=True)
class Build:
    """What an OpenSM build knows beyond upstream 3.3.23's keys and routing engines."""

    routing_engines: frozenset[str]
    """Extra names `routing_engine` accepts (lower case)."""
    key_patterns: tuple[str, ...]
    """Extra opensm.conf keys, as shell patterns."""


BUILDS: dict[str, Build] = {
    "upstream": Build(frozenset(), ()),
    # NVIDIA's OpenSM (MLNX_OFED, DOCA OFED, UFM): adaptive-routing variants of updn, ftree and
    # torus, and pqft (NVIDIA UFM / OpenSM user manuals, "Routing Algorithms"); its
    # adaptive-routing (`ar_*`) and virtualization (`virt_*`) keys.
    "nvidia": Build(frozenset({"ar_updn", "ar_ftree", "ar_torus", "pqft"}), ("ar_*", "virt_*")),
}
"""OpenSM builds a policy can declare (IB006 and IB007 option `build`)."""

NVIDIA_ROUTING_ENGINES: frozenset[str] = BUILDS["nvidia"].routing_engines
"""Routing engines only NVIDIA's OpenSM knows: upstream skips them and falls back to minhop."""

CONSOLES = frozenset({"off", "local", "loopback", "socket"})
PART_ENFORCE = frozenset({"both", "in", "out", "off"})
REDACTED = frozenset({"<redacted>", "redacted", "********", "<removed>", "xxxxxxxx"})
"""Values a collector writes in place of a secret; such a key counts as set, value unknown."""

DATA_VLS_BY_OP_VLS = {1: 1, 2: 2, 3: 4, 4: 8, 5: 15}
"""max_op_vls (an OperationalVLs code) -> number of data VLs it allows."""
