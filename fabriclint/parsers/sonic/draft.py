"""Working state of the SONiC parser: sources, definitions, references and what is not modeled."""

from __future__ import annotations

from dataclasses import dataclass, field

from fabriclint.parsers.kit.draft import BaseDraft

# Why a field or table is not modeled, when there is more to say than "not modeled".
REASONS: dict[str, str] = {
    "pfc_to_pg_map": "PFC priority -> priority group map; tc_to_priority is derived from "
    "pfc_to_queue_map, and priority groups from tc_to_pg_map",
    "tc_to_dscp_map": "egress DSCP rewrite; does not change the class traffic is queued in",
    "tc_to_dot1p_map": "egress 802.1p rewrite; does not change the class traffic is queued in",
    "mpls_tc_to_tc_map": "MPLS EXP classification is not modeled",
    "dscp_to_fc_map": "forwarding-class (class-based forwarding) maps are not modeled",
    "exp_to_fc_map": "forwarding-class (class-based forwarding) maps are not modeled",
    "scheduler": "port-level scheduler (shaper) is not modeled",
    "shaping": "shaping/metering (meter_type, cir, cbs, pir, pbs) is not modeled",
    "colors": "yellow/red WRED settings are not modeled (RoCE traffic is green unless a "
    "policer colours it)",
    "thresholds": "shared-buffer thresholds (dynamic_th/static_th, xon_offset, ...) are not "
    "modeled",
    "priority": "strict-priority level of the scheduler is not modeled",
    "POLL_INTERVAL": "PFC watchdog poll interval has no field in the model",
    "BIG_RED_SWITCH": "PFC watchdog BIG_RED_SWITCH mode (drops all lossless traffic when "
    "enabled) is not modeled",
}


@dataclass(slots=True)
class _Group:
    """Unmodeled fields of one table that share a reason."""

    line: int
    count: int = 1
    names: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Draft(BaseDraft):
    """Everything collected from one input before the DeviceState is built."""

    grouped: dict[tuple[str, str], _Group] = field(default_factory=dict)
    uses: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)
    """(kind, name, referring table) -> [index in references, number of uses]."""
    """(table, reason) -> the unmodeled fields, reported once per table and reason."""

    def skip_field(self, table: str, name: str, line: int, reason: str | None = None) -> None:
        """An unmodeled field; fields of one table with one reason are reported once."""
        why = reason or REASONS.get(name, "not modeled")
        group = self.grouped.get((table, why))
        if group is None:
            self.grouped[(table, why)] = _Group(line, 1, [name])
            return
        group.count += 1
        if name not in group.names:
            group.names.append(name)

    def flush(self) -> None:
        """Turn the grouped field reports into Unparsed entries."""
        for (table, why), group in self.grouped.items():
            times = f" ({group.count} occurrences)" if group.count > 1 else ""
            self.skip(f"{table}: {', '.join(group.names)}", f"{why}{times}", group.line)
        self.grouped.clear()
        for (_, _, table), (index, count) in self.uses.items():
            if count > 1:
                ref = self.references[index]
                more = f"{ref.by} and {count - 1} more {table} entr{'ies' if count > 2 else 'y'}"
                self.references[index] = ref.model_copy(update={"by": more})
        self.uses.clear()

    def known(self, kind: str, name: str, table: str) -> bool:
        """True (and the use counted) when `table` already refers to `kind` `name`."""
        seen = self.uses.get((kind, name, table))
        if seen is None:
            return False
        seen[1] += 1
        return True

    def refer_entry(self, kind: str, name: str, table: str, key: str, line: int) -> None:
        """A use of a named object (kind = SONiC table name) by entry `table|key`. Uses from
        one table are recorded once, on the first entry (`by` then says how many more there
        are): a 64-port config_db names its WRED profile in hundreds of QUEUE entries."""
        use = (kind, name, table)
        seen = self.uses.get(use)
        if seen is not None:
            seen[1] += 1
            return
        self.uses[use] = [len(self.references), 1]
        self.refer(kind, name, f"{table}|{key}", line)
