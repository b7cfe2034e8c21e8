"""InfiniBand topology: `ibnetdiscover` output (infiniband-diags, ibnetdiscover(8)) as links.

The output is one block per node: a header `Switch 41 "S-<guid>" # "<NodeDescription>" ...`
(or `Ca`/`Rt`), then one line per connected port, `[port](portguid) "<type>-<peer guid>"[peer
port](peer portguid) # ... "<peer NodeDescription>" ... <width><speed>` (the port GUIDs only on
CA and router ends). Run from any node of the subnet, it shows every link twice, once from each
end; both become sightings of one cable (rules/cab.py merges them).

Names: a CA's NodeDescription is `<hostname> <hca>` by default on Linux (`gpu01 mlx5_0`), so
its port N is `mlx5_0/N` on device `gpu01`, as the host parser names HCA ports. A switch's is
often `MF0;<hostname>:<model>/U1` (NVIDIA Quantum) or plain `<hostname>`; its ports are their
numbers (`ibleaf01:7`). A peer is named from its own block when the output has one, else from
the description on the port line.

A GUID has one block. A second block for it (two discoveries pasted together, an edited file)
is an input problem naming both lines (PARSE002, as a key set twice in opensm.conf); the first
block is kept and the second's port lines are not read, so they can neither rename the node
nor add cables to it.

Cut-off outputs: a discovery shows each link from both ends and ends every node block with a
port line, so a link to the last block that this block does not show back (the block was cut
short) or a last line that is no whole port line (a line cut mid-way) is a cut: `cut_off` gives
the unparseable problem at the last line, and the links read are kept (the device is
incomplete). A cut exactly between two blocks cannot be told: a peer without a block of its own
is legitimate here (named from the port line's comment, above).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fabriclint.models.state import InputProblem, LldpNeighbor
from fabriclint.parsers.kit.lines import Text

_NODE = re.compile(
    r'^(Switch|Ca|Rt)\s+\d+\s+"([SHR])-([0-9a-fA-F]+)"(?:\s*#\s*"([^"]*)")?', re.IGNORECASE
)
_PORT = re.compile(
    r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\]'
    r"(?:\([0-9a-fA-F]+\))?\s*(?:#(.*))?$"
)
_QUOTED = re.compile(r'"([^"]*)"')


@dataclass(frozen=True)
class Node:
    """One node block's identity: its type letter (S, H, R) and NodeDescription, and the line
    of its header."""

    kind: str
    description: str
    line: int = 0


@dataclass(frozen=True)
class Repeat:
    """A second node block for a GUID already seen: the GUID as written and both header lines."""

    guid: str
    first: int
    second: int


def system_and_prefix(kind: str, description: str) -> tuple[str, str]:
    """(device name, port prefix) a NodeDescription names: `gpu01 mlx5_0` -> (gpu01, mlx5_0/),
    `MF0;ibleaf01:MQM9700/U1` -> (ibleaf01, ''), `ibleaf01` -> (ibleaf01, '')."""
    text = description.strip()
    if kind.upper() == "S":
        if ";" in text:
            text = text.split(";", 1)[1].split(":", 1)[0]
        return (text.split() or [""])[0], ""
    words = text.split()
    if len(words) >= 2:
        return words[0], f"{words[1]}/"
    return (words or [""])[0], ""


def _key(guid: str) -> str:
    """A GUID as a lookup key: port lines write it with leading zeros, CA port GUIDs without."""
    return guid.lower().lstrip("0")


def read_nodes(text: Text) -> tuple[dict[str, Node], list[Repeat]]:
    """Every GUID's first node block (to name peers from their own description), and each
    later block of a GUID already seen."""
    found: dict[str, Node] = {}
    repeats: list[Repeat] = []
    for number, line in text.numbered():
        match = _NODE.match(line.strip())
        if match is None:
            continue
        key = _key(match[3])
        if key in found:
            repeats.append(Repeat(f"{match[2]}-{match[3]}", found[key].line, number))
        else:
            found[key] = Node(match[2].upper(), match[4] or "", number)
    return found, repeats


def _end(kind: str, description: str, port: str) -> tuple[str, str]:
    system, prefix = system_and_prefix(kind, description)
    return system, f"{prefix}{port}"


def read_topology(text: Text, nodes: dict[str, Node]) -> list[LldpNeighbor] | None:
    """One LldpNeighbor per connected port line (its `local_system` the node of the block) of
    each GUID's first block (`nodes`, from `read_nodes`); None when the output holds no node
    block at all (cut off, an error message)."""
    if not nodes:
        return None if text.first_text()[1] else []
    out: list[LldpNeighbor] = []
    current: Node | None = None
    for number, raw in text.numbered():
        line = raw.strip()
        header = _NODE.match(line)
        if header:
            node = nodes[_key(header[3])]
            current = node if node.line == number else None  # a repeated block is not read
            continue
        port = _PORT.match(line)
        if port is None or current is None:
            continue
        peer = nodes.get(_key(port[3]))
        said = _QUOTED.findall(port[5] or "")
        peer_desc = peer.description if peer else (said[0] if said else f"{port[2]}-{port[3]}")
        system, local = _end(current.kind, current.description, port[1])
        remote_system, remote = _end(port[2].upper(), peer_desc, port[4])
        if system and remote_system:
            out.append(
                LldpNeighbor(
                    local_system=system,
                    local_port=local,
                    remote_system=remote_system,
                    remote_port=remote,
                    source=text.src(number),
                )
            )
    return out


End = tuple[str, int]
"""(GUID key, port number) of one end of a link."""


def cut_off(text: Text, nodes: dict[str, Node]) -> InputProblem | None:
    """The unparseable problem of an output cut short (see the module docstring); None when the
    last block shows back every link other blocks show to it and the last line is a whole
    port line (or there is no node block: `unreadable` says so)."""
    if not nodes:
        return None
    ports: dict[End, End] = {}
    current: str | None = None
    last_block: str | None = None
    last = (0, "")
    for number, raw in text.numbered():
        line = raw.strip()
        if line:
            last = (number, line)
        if (header := _NODE.match(line)) is not None:
            key = _key(header[3])
            current = key if nodes[key].line == number else None
            last_block = current or last_block
        elif (port := _PORT.match(line)) is not None and current is not None:
            ports[(current, int(port[1]))] = (_key(port[3]), int(port[4]))
    why = None if _PORT.match(last[1]) else "its last line is no whole port line"
    if why is None and last_block is not None:
        why = _not_shown_back(ports, last_block)
    if why is None:
        return None
    message = f"'{text.cmd}' is cut off: {why} (it stops at line {last[0]}, {last[1][:60]!r})"
    return InputProblem(kind="unparseable", message=message, source=text.src(last[0] or None))


def _not_shown_back(ports: dict[End, End], block: str) -> str | None:
    """Why the last node block looks cut: a link another block shows to it that it does not
    show back (ibnetdiscover prints each link from both ends); None when it shows them all."""
    for (node, port), (peer, back) in ports.items():
        if peer == block and ports.get((peer, back)) != (node, port):
            return f"port {port} of {node} links to port {back} of {peer}, whose block lacks it"
    return None


def repeated(text: Text, repeat: Repeat) -> InputProblem:
    """The problem of a node block repeated for one GUID (the first is the one read)."""
    return InputProblem(
        kind="duplicate-key",
        message=f"'{text.cmd}' has node {repeat.guid} on lines {repeat.first} and "
        f"{repeat.second}; the first block is kept, the second is not read",
        source=text.src(repeat.second),
    )


def unreadable(text: Text) -> InputProblem:
    """The problem of an ibnetdiscover output with no node block."""
    return InputProblem(
        kind="unparseable",
        message=f"'{text.cmd}' is not ibnetdiscover topology output fabriclint can read "
        "(no Switch/Ca node block: truncated or an error?)",
        source=text.src(1),
    )
