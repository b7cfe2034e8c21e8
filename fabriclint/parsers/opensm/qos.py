"""qos-policy.conf -> QosPolicy: port groups, QoS levels, match rules, simplified per-ULP rules.

Grammar (OpenSM doc/QoS_management_in_OpenSM.txt): keywords start a line, `#` starts a comment,
sections and subsections close with `end-<name>`:

    port-groups / port-group: name, use, port-guid, port-name, pkey, partition, node-type
    qos-setup: SL2VL and VLArb tables, parsed and ignored by OpenSM (opensm.conf sets them)
    qos-levels / qos-level: name, use, sl, mtu-limit, rate-limit, pkey, packet-life, path-bits
    qos-match-rules / qos-match-rule: use, qos-class, source, destination, service-id, pkey,
        qos-level-name
    qos-ulps: `<ulp>[, <criterion> <values>] : <sl>` lines, `default : <sl>` included

OpenSM rejects the whole file on any syntax error (and then applies no policy), so a syntax
error is an input problem, not a detail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fabriclint.models.common import Source
from fabriclint.models.ib import PortGroup, QosLevel, QosMatchRule, QosPolicy, QosUlp
from fabriclint.parsers.kit.lines import Text

_SECTIONS = {
    "port-groups": "port-group",
    "qos-levels": "qos-level",
    "qos-match-rules": "qos-match-rule",
}
_FIELDS = {
    "port-group": {"name", "use", "port-guid", "port-name", "pkey", "partition", "node-type"},
    "qos-level": {"name", "use", "sl", "mtu-limit", "rate-limit", "pkey", "packet-life", "path-bits"},
    "qos-match-rule": {
        "use", "qos-class", "source", "destination", "service-id", "pkey", "qos-level-name",
    },
}  # fmt: skip
_ULP = re.compile(
    r"^(default|any|sdp|rds|iser|srp|ipoib)\s*"
    r"(?:,\s*(port-num|service-id|pkey|target-port-guid|source-port-guid|source-target-port-guid)"
    r"\s+(\S.*?))?\s*:\s*(\d+)$"
)


@dataclass
class _Block:
    kind: str
    line: int
    fields: dict[str, list[str]] = field(default_factory=dict)


class QosParser:
    """One pass over qos-policy.conf; syntax errors are collected as (line, message)."""

    def __init__(self, text: Text) -> None:
        self.text = text
        self.policy = QosPolicy(file=text.file)
        self.policy.mark("", text.src(None))
        self.errors: list[tuple[int, str]] = []
        self.section: str | None = None
        self.block: _Block | None = None

    def run(self) -> tuple[QosPolicy, list[tuple[int, str]]]:
        """The policy and the syntax errors OpenSM would reject it for."""
        for num, line in self.text.numbered():
            body = line.split("#", 1)[0].strip()
            if body:
                self.policy.statements += 1
                self._statement(num, body)
        if self.section is not None:
            self.errors.append((len(self.text.lines), f"'{self.section}' is never closed"))
        return self.policy, self.errors

    def _statement(self, num: int, body: str) -> None:
        if self.section == "qos-setup":
            if body == "end-qos-setup":
                self.section = None
        elif self.section == "qos-ulps":
            self._ulp(num, body)
        elif self.block is not None:
            self._in_block(num, body)
        elif self.section is not None:
            self._in_section(num, body)
        elif body in (*_SECTIONS, "qos-setup", "qos-ulps"):
            self.section = body
        else:
            self.errors.append((num, f"'{body}' outside any section"))

    def _in_section(self, num: int, body: str) -> None:
        assert self.section is not None
        if body == f"end-{self.section}":
            self.section = None
        elif body == _SECTIONS.get(self.section):
            self.block = _Block(body, num)
        else:
            self.errors.append((num, f"'{body}' is not allowed in {self.section}"))

    def _in_block(self, num: int, body: str) -> None:
        assert self.block is not None
        if body == f"end-{self.block.kind}":
            self._close(self.block)
            self.block = None
            return
        key, sep, value = body.partition(":")
        key = key.strip()
        if not sep or key not in _FIELDS[self.block.kind]:
            self.errors.append((num, f"'{body}' is not a {self.block.kind} keyword"))
            return
        self.block.fields.setdefault(key, []).append(value.strip())

    def _ulp(self, num: int, body: str) -> None:
        if body == "end-qos-ulps":
            self.section = None
            return
        match = _ULP.match(body)
        if match is None:
            self.errors.append((num, f"'{body}' is not a qos-ulps rule"))
            return
        criterion = " ".join(p for p in match.group(1, 2, 3) if p)
        sl = int(match.group(4))
        if sl > 15:
            self.errors.append((num, f"SL {sl} is not 0-15"))
        self.policy.ulps.append(QosUlp(match=criterion, sl=sl, source=self.text.src(num)))

    # ---- closing a block -----------------------------------------------------------------------

    def _close(self, block: _Block) -> None:
        source = self.text.src(block.line)
        values = {key: ", ".join(items) for key, items in block.fields.items()}
        if block.kind != "qos-match-rule" and not values.get("name"):
            self.errors.append((block.line, f"{block.kind} without a name"))
            return
        if block.kind == "port-group":
            self.policy.port_groups.append(_port_group(values, source))
        elif block.kind == "qos-level":
            self.policy.levels.append(self._level(block, values, source))
        else:
            self.policy.match_rules.append(_match_rule(values, source))

    def _level(self, block: _Block, values: dict[str, str], source: Source) -> QosLevel:
        numbers: dict[str, int | None] = {}
        for key in ("sl", "mtu-limit", "rate-limit", "packet-life"):
            text = values.get(key)
            numbers[key] = (
                int(text, 0) if text and re.fullmatch(r"0[xX][0-9a-fA-F]+|\d+", text) else None
            )
            if text and numbers[key] is None:
                self.errors.append((block.line, f"{key}: '{text}' is not a number"))
        if (numbers["sl"] or 0) > 15:
            self.errors.append((block.line, f"sl {numbers['sl']} is not 0-15"))
        return QosLevel(
            name=values["name"],
            sl=numbers["sl"],
            mtu_limit=numbers["mtu-limit"],
            rate_limit=numbers["rate-limit"],
            pkeys=_list(values.get("pkey")),
            packet_life=numbers["packet-life"],
            source=source,
        )


def _list(text: str | None) -> list[str]:
    return [item.strip() for item in (text or "").split(",") if item.strip()]


def _port_group(values: dict[str, str], source: Source) -> PortGroup:
    return PortGroup(
        name=values["name"],
        port_guids=_list(values.get("port-guid")),
        port_names=_list(values.get("port-name")),
        partitions=_list(values.get("partition")),
        pkeys=_list(values.get("pkey")),
        node_types=_list(values.get("node-type")),
        source=source,
    )


def _match_rule(values: dict[str, str], source: Source) -> QosMatchRule:
    return QosMatchRule(
        use=values.get("use", ""),
        qos_class=values.get("qos-class"),
        sources_groups=_list(values.get("source")),
        destinations=_list(values.get("destination")),
        service_ids=values.get("service-id"),
        pkeys=values.get("pkey"),
        level=values.get("qos-level-name"),
        source=source,
    )


def parse_qos_policy(text: Text) -> tuple[QosPolicy, list[tuple[int, str]]]:
    """Parse qos-policy.conf; never raises."""
    return QosParser(text).run()
