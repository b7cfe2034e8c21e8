"""partitions.conf -> partitions as OpenSM builds them, and what it rejects or misreads (IB009).

Grammar (OpenSM doc/partition-config.txt, opensm/osm_prtn_config.c):

    Name[=PKey][,flag[=value]]...[,defmember=full|limited|both] : [members | mgid=GID[,flag]...] ;
    member:  PortGUID[=full|limited|both] | ALL | ALL_CAS | ALL_SWITCHES | ALL_ROUTERS | SELF
    flags:   ipoib, mtu, rate, sl, scope, Q_Key, TClass, FlowLabel (IBTA codes: mtu=5 is 4096)

`#` starts a comment; a definition may continue over lines until `;`. OpenSM matches words by
prefix (`lim` is limited, `A` is ALL), reads an unknown membership as limited, skips the rest of a
line it cannot parse (keeping the partition open) and merges definitions of one P_Key.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

from fabriclint.models.ib import McGroup, Membership, Partition, PartitionIssue, PartitionMember
from fabriclint.parsers.kit.common import is_digits
from fabriclint.parsers.kit.lines import Text
from fabriclint.parsers.opensm.values import strtoul

KEYWORDS = ("ALL", "ALL_CAS", "ALL_SWITCHES", "ALL_ROUTERS", "SELF")
MTU_CODES = {1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096}
RATE_CODES = frozenset(range(2, 24))
"""IBTA rate codes OpenSM knows (2 = 2.5 Gb/s ... 21 = 400, 22 = 600, 23 = 800 Gb/s)."""
_GROUP_FLAGS = ("mtu", "rate", "scope", "Q_Key", "TClass", "sl", "FlowLabel")


def _prefix(word: str, of: str) -> bool:
    """C strncmp(word, of, strlen(word)) == 0: `word` is a prefix of `of` (the empty word too)."""
    return of.startswith(word)


def _split(token: str) -> tuple[str, str | None]:
    name, sep, value = token.partition("=")
    return name.strip(), value.strip() if sep else None


@dataclass
class _Open:
    """The partition being defined until the next `;`."""

    part: Partition | None = None
    membership: Membership = "limited"
    defmember: bool = False
    """True when this definition sets defmember."""
    flags: dict[str, str] = field(default_factory=dict)
    ipoib: bool = False


class PartitionsParser:
    """One pass over partitions.conf."""

    def __init__(self, text: Text) -> None:
        self.text = text
        self.parts: dict[str, Partition] = {}
        self.issues: list[PartitionIssue] = []
        self.open = _Open()
        self.num = 0

    def run(self) -> tuple[list[Partition], list[PartitionIssue]]:
        """Partitions in file order and the issues met."""
        for num, line in self.text.numbered():
            self.num = num
            self._line(line.split("#", 1)[0])
        return list(self.parts.values()), self.issues

    def issue(self, message: str, severity: str = "error") -> None:
        """Record an issue on the current line."""
        line = self.text.lines[self.num - 1].strip()
        self.issues.append(
            PartitionIssue(
                message=message,
                severity="warning" if severity == "warning" else "error",
                text=line,
                source=self.text.src(self.num),
            )
        )

    def _line(self, body: str) -> None:
        rest = body
        while rest.strip():
            segment, sep, rest = rest.partition(";")
            if not self._segment(segment.strip()):
                return  # OpenSM skips the rest of the line, the partition stays open
            if sep:
                self.open = _Open()

    def _segment(self, segment: str) -> bool:
        if self.open.part is None:
            header, sep, body = segment.partition(":")
            if not sep:
                self.issue("no ':' after the partition definition; OpenSM skips the line")
                return False
            if not self._header(header):
                return False
            segment = body
        return self._body(segment)

    # ---- definition line ---------------------------------------------------------------------

    def _header(self, header: str) -> bool:
        first, *flags = header.split(",")
        name, pkey_text = _split(first)
        for flag in flags:
            word, value = _split(flag)
            if not word:
                self.issue("empty partition flag (stray comma); OpenSM ignores it", "warning")
                continue
            self._partition_flag(word, value)
        if pkey_text is None and is_digits(name[:1]):
            name, pkey_text = "", name
        if pkey_text is None and re.search(r"\s(?:0[xX][0-9a-fA-F]+|\d+)$", name):
            self.issue(
                f"'{name}' has no '=' before its P_Key; OpenSM takes it all as the name "
                "and generates a P_Key"
            )
        pkey = self._pkey(pkey_text)
        if pkey == -1:
            return False
        self.open.part = self._partition(name, pkey)
        return True

    def _pkey(self, text: str | None) -> int | None:
        if text is None:
            return None
        value, negative, used = strtoul(text)
        if not used or used != text or negative:
            self.issue(f"P_Key '{text}' is not a number; OpenSM skips the definition")
            return -1
        pkey = value & 0x7FFF
        if value > 0xFFFF:
            self.issue(f"P_Key {text} is wider than 16 bits; OpenSM uses 0x{pkey:04x}")
        if pkey == 0:
            self.issue(f"P_Key {text} has no partition bits; OpenSM generates another P_Key")
            return None
        return pkey

    def _partition(self, name: str, pkey: int | None) -> Partition:
        key = f"0x{pkey:04x}" if pkey is not None else f"name:{name}"
        part = self.parts.get(key)
        if part is None:
            part = self.parts[key] = Partition(name=name, pkey=pkey)
            part.mark("", self.text.src(self.num))
        self._apply_flags(part)
        return part

    def _apply_flags(self, part: Partition) -> None:
        opened = self.open
        part.ipoib = part.ipoib or opened.ipoib
        for key, value in opened.flags.items():
            target = key.lower() if key in ("mtu", "rate", "sl") else None
            if target is not None and is_digits(value):
                setattr(part, target, int(value))
                part.mark(target, self.text.src(self.num))
            else:
                part.flags[key] = value
        if opened.defmember:
            part.defmember = opened.membership

    def _partition_flag(self, word: str, value: str | None) -> None:
        if self._group_flag(word, value, self.open.flags):
            return
        if _prefix(word, "ipoib"):
            self.open.ipoib = True
        elif _prefix(word, "defmember"):
            membership = _membership(value) if value else None
            if membership is None:
                self.issue(f"defmember={value} is not full, limited or both; ignored", "warning")
            else:
                self.open.membership, self.open.defmember = membership, True
        elif word == "indx0":
            self.open.flags["indx0"] = ""
        else:
            self.issue(f"unknown partition flag '{word}'; OpenSM ignores it", "warning")

    # ---- group flags (partition and mgid lines) -----------------------------------------------

    def _group_flag(self, word: str, value: str | None, into: dict[str, str]) -> bool:
        name = next((f for f in _GROUP_FLAGS if _prefix(word, f)), None)
        if name is None:
            return False
        number, _, used = strtoul(value or "")
        if not used or (value or "") != used:
            self.issue(f"{word}={value or ''} needs a number; OpenSM ignores it", "warning")
            return True
        if self._check_group_value(name, number):
            into[name] = str(number)
        return True

    def _check_group_value(self, name: str, number: int) -> bool:
        """Report a value OpenSM misuses; False when it ignores the flag altogether."""
        if name == "mtu" and number not in MTU_CODES:
            codes = ", ".join(f"{c}={b}" for c, b in MTU_CODES.items())
            self.issue(
                f"mtu={number} is not an IBTA MTU code ({codes}); OpenSM stores code "
                f"{number & 0xFF}, so IPoIB members cannot join the group"
            )
        elif name == "rate" and number not in RATE_CODES:
            self.issue(f"rate={number} is not an IBTA rate code (2-23); members cannot join")
        elif name == "sl" and number > 15:
            self.issue(f"sl={number} is not 0-15; OpenSM ignores it", "warning")
            return False
        elif name == "scope" and not 0 < number <= 15:
            self.issue(f"scope={number} is not 1-15; OpenSM ignores it", "warning")
            return False
        return True

    # ---- member list ---------------------------------------------------------------------------

    def _body(self, body: str) -> bool:
        tokens = body.split(",")
        for index, token in enumerate(tokens):
            name, flag = _split(token)
            if name == "mgid":
                self._mgroup(flag or "", tokens[index + 1 :])
                return True
            if not self._member(name, flag):
                return False
        return True

    def _member(self, name: str, flag: str | None) -> bool:
        part = self.open.part
        if part is None or not name or _prefix(name, "NONE"):
            return True
        port = next((k for k in KEYWORDS if _prefix(name, k)), None)
        if port is None:
            guid, negative, used = strtoul(name)
            if not guid or used != name or negative:
                self.issue(
                    f"'{name}' is not a port GUID or keyword; OpenSM skips the line{_open_hint(name)}"
                )
                return False
            port = f"0x{guid:016x}"
        membership = self._port_membership(flag)
        source = self.text.src(self.num)
        part.members.append(PartitionMember(port=port, membership=membership, source=source))
        return True

    def _port_membership(self, flag: str | None) -> Membership:
        if flag is None:
            return self.open.membership
        found = _membership(flag)
        if found is None:
            self.issue(f"membership '{flag}' is not full, limited or both; OpenSM makes it limited")
            return "limited"
        return found

    def _mgroup(self, mgid: str, flags: list[str]) -> None:
        part = self.open.part
        written: dict[str, str] = {}
        for token in flags:
            word, value = _split(token)
            if word and not self._group_flag(word, value, written):
                self.issue(f"unknown mgid flag '{word}'; OpenSM ignores it", "warning")
        if not _multicast(mgid):
            self.issue(f"mgid {mgid} is not a multicast GID; OpenSM creates no group")
        elif part is not None and self._ip_group_ok(part, mgid, written):
            source = self.text.src(self.num)
            part.mgroups.append(McGroup(mgid=mgid, flags=written, source=source))

    def _ip_group_ok(self, part: Partition, mgid: str, flags: dict[str, str]) -> bool:
        raw = ipaddress.IPv6Address(mgid).packed
        if raw[2:4] not in (b"\x40\x1b", b"\x60\x1b"):
            return True  # not an IPoIB (IPv4/IPv6) group: no extra checks
        pkey = int.from_bytes(raw[4:6], "big") & 0x7FFF
        if pkey and part.pkey is not None and pkey != part.pkey:
            self.issue(
                f"IP group {mgid} carries P_Key 0x{pkey:04x}, not the partition's; not created"
            )
            return False
        for name, default in (("rate", "3"), ("mtu", "4")):
            base = self.open.flags.get(name, default)
            if flags.get(name, base) != base:
                self.issue(
                    f"IP group {mgid} {name} differs from the IPoIB broadcast group's; not created"
                )
                return False
        return True


_MEMBERSHIPS: tuple[Membership, ...] = ("full", "both", "limited")


def _open_hint(name: str) -> str:
    """Why a partition name shows up as a port: the previous definition is still open."""
    if re.match(r"^[A-Za-z_][\w.-]*$", name) and name not in KEYWORDS:
        return " (a new partition? the one before is still open: its ';' is missing or on a line OpenSM skipped)"
    return ""


def _membership(word: str) -> Membership | None:
    """OpenSM's reading of a membership word: any prefix of full, both or limited."""
    return next((name for name in _MEMBERSHIPS if _prefix(word, name)), None)


def _multicast(mgid: str) -> bool:
    try:
        return ipaddress.IPv6Address(mgid).packed[0] == 0xFF
    except ValueError:
        return False


def unterminated(text: Text) -> int | None:
    """The last line of a last definition that is not closed by its `;` (partitions.conf(5):
    each definition ends with one) and already holds a `=` (a P_Key, a flag or a member): the
    file was cut inside it. None when the last one is closed (a cut exactly after a `;` cannot
    be told), for trailing prose with no `=` (`Note:`: OpenSM skips it, IB009 judges it) and for
    a file of comments."""
    tail: list[str] = []
    last: int | None = None
    for num in range(len(text.lines), 0, -1):
        body = text.lines[num - 1].split("#", 1)[0].strip()
        if not body:
            continue
        last = last or num
        if body.endswith(";"):
            break
        tail.append(body.rsplit(";", 1)[-1])
        if ";" in body:
            break
    return last if any("=" in body for body in tail) else None


def parse_partitions(text: Text) -> tuple[list[Partition], list[PartitionIssue]]:
    """Parse partitions.conf; never raises."""
    return PartitionsParser(text).run()
