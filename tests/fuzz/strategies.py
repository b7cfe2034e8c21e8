"""Seeds and mutation strategies for the fuzz harness.

Seeds are real inputs: one device of each platform from the example fabrics' `baseline`
snapshots, plus the public samples in ../shared/corpus when that folder exists (each fed as the
command output it is, on top of a baseline device's other outputs). Mutations are line edits,
truncation, byte flips, odd numbers and odd unicode, NUL bytes and very long lines for every
input, and structural edits (type swaps, deep nesting, key deletion and duplication) for the
JSON and YAML ones.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from fabriclint import platforms

ROOT = Path(__file__).resolve().parents[2]
INVENTORIES = ROOT / "inventories"
CORPUS = ROOT.parent / "shared" / "corpus"

PLATFORMS = platforms.NAMES

# platform -> (example fabric, device fuzzed, one unmutated neighbour for cross-device rules)
EXAMPLES: dict[str, list[tuple[str, str, str]]] = {
    "eos": [("roce-pod", "leaf01", "gpu01"), ("multivendor-pod", "leaf01", "gpu01")],
    "nxos": [("multivendor-pod", "leaf02", "gpu01")],
    "junos": [("multivendor-pod", "spine01", "leaf01")],
    "sonic": [("multivendor-pod", "leaf03", "gpu03")],
    "cumulus": [("multivendor-pod", "leaf04", "gpu03")],
    "mlnx-host": [
        ("roce-pod", "gpu01", "leaf01"),
        ("multivendor-pod", "gpu03", "leaf03"),
        ("ib-cluster", "gpu01", "sm01"),
    ],
    "opensm": [("ib-cluster", "sm01", "gpu01")],
}

# platform -> (corpus folder, file glob, the command output the file is); the InfiniBand samples
# live in ib_opensm/ and nic_mlnx/ rather than in folders named after the platforms
CORPUS_INPUTS: dict[str, list[tuple[str, str, str]]] = {
    "eos": [("eos", "*.cfg", "show running-config"), ("eos", "*.raw", "show interfaces")],
    "nxos": [("nxos", "*.cfg", "show running-config"), ("nxos", "*.raw", "show interface")],
    "junos": [("junos", "*.conf", "show configuration")],
    "sonic": [("sonic", "*.json", "config_db.json")],
    "cumulus": [
        ("cumulus", "*traffic.conf", "/etc/cumulus/datapath/traffic.conf"),
        ("cumulus", "*.txt", "net show configuration commands"),
    ],
    "mlnx-host": [("nic_mlnx", "*ibstat*", "ibstat")],
    "opensm": [
        ("ib_opensm", "*opensm.conf", "opensm.conf"),
        ("ib_opensm", "*partitions.conf", "partitions.conf"),
        ("ib_opensm", "*policy_example.txt", "qos-policy.conf"),
        ("ib_opensm", "*sl2vl_vlarb.txt", "opensm.conf"),
    ],
}

JSON_KEYS = ("config_db.json", "nv show qos roce -o json")
YAML_KEYS = ("nv config show -o yaml",)


class Seed:
    """One real device input: the fabric it comes from and its command outputs."""

    def __init__(
        self, name: str, platform: str, fabric: str, device: str, peer: str, outputs: dict[str, str]
    ) -> None:
        self.name, self.platform, self.fabric = name, platform, fabric
        self.device, self.peer, self.outputs = device, peer, outputs

    def __repr__(self) -> str:  # falsifying examples print seeds: keep it short
        return f"Seed({self.name!r})"


class Mutant:
    """A seed with one of its outputs replaced by mutated bytes."""

    def __init__(self, seed: Seed, command: str, data: bytes) -> None:
        self.seed, self.command, self.data = seed, command, data

    def outputs(self) -> dict[str, bytes]:
        """Every output of the device as file bytes, the mutated one included."""
        out = {cmd: text.encode() for cmd, text in self.seed.outputs.items()}
        out[self.command] = self.data
        return out

    def __repr__(self) -> str:
        """The seed, the command and a short diff: enough to write the regression test."""
        before = self.seed.outputs[self.command].splitlines()
        after = self.data.decode("utf-8", errors="replace").splitlines()
        diff = [
            line[:300] + ("..." if len(line) > 300 else "")
            for line in difflib.unified_diff(before, after, lineterm="", n=1)
        ]
        shown = "\n".join(diff[2:40])
        return f"Mutant({self.seed.name!r}, {self.command!r}, {len(self.data)} bytes):\n{shown}"


def _manifest_entry(fabric: str, device: str) -> tuple[Path, dict[str, Any]]:
    snap = INVENTORIES / fabric / "snapshots" / "baseline"
    manifest = json.loads((snap / "manifest.json").read_text(encoding="utf-8"))
    entry: dict[str, Any] = manifest["devices"][device]
    return snap / device, entry


def example_outputs(fabric: str, device: str) -> dict[str, str]:
    """A baseline device's outputs, command -> text."""
    folder, entry = _manifest_entry(fabric, device)
    return {
        cmd: (folder / name).read_text(encoding="utf-8") for cmd, name in entry["files"].items()
    }


def _corpus_seeds(platform: str, bases: list[Seed]) -> list[Seed]:
    out = []
    for folder, pattern, command in CORPUS_INPUTS[platform]:
        for path in sorted((CORPUS / folder).glob(pattern)):
            base = next((b for b in bases if command in b.outputs), bases[0])
            outputs = dict(base.outputs) if command in base.outputs else {}
            outputs[command] = path.read_text(encoding="utf-8", errors="replace")
            name = f"corpus/{folder}/{path.name}"
            out.append(Seed(name, platform, base.fabric, base.device, base.peer, outputs))
    return out


@cache
def seeds(platform: str) -> tuple[Seed, ...]:
    """Every seed of a platform: example devices first, then corpus files (when present)."""
    bases = [
        Seed(f"{fabric}/{device}", platform, fabric, device, peer, example_outputs(fabric, device))
        for fabric, device, peer in EXAMPLES[platform]
    ]
    corpus = _corpus_seeds(platform, bases) if CORPUS.is_dir() else []
    return (*bases, *corpus)


def structured_seeds(platform: str) -> tuple[Seed, ...]:
    """Seeds with a JSON or YAML input."""
    return tuple(s for s in seeds(platform) if any(k in s.outputs for k in JSON_KEYS + YAML_KEYS))


# ---- text mutations ---------------------------------------------------------------------------

ODD_NUMBERS = (
    "-1",
    "0",
    "-0",
    "00000000000000000003",
    "4294967296",
    "18446744073709551617",
    str(10**30),
    "9" * 5000,  # past Python's 4300-digit int() limit
    "1e309",
    "nan",
    "inf",
    "0x10",
    "1.5",
    "-2147483649",
    "\u0663",  # ARABIC-INDIC DIGIT THREE: isdigit() is True, int() accepts it
    "\u00b2",  # SUPERSCRIPT TWO: isdigit() is True, int() rejects it
    "\u2460",  # CIRCLED DIGIT ONE: isdigit() is True, int() rejects it
    "3\u0301",  # a digit with a combining accent
    "\uff13",  # FULLWIDTH DIGIT THREE
    "\U0001d7d1",  # MATHEMATICAL BOLD DIGIT THREE
)
ODD_TEXT = (
    "\u0301",  # combining acute accent
    "\u202e",  # RIGHT-TO-LEFT OVERRIDE
    "\u200f",  # RIGHT-TO-LEFT MARK
    "\u200b",  # ZERO WIDTH SPACE
    "\ufeff",  # BOM in the middle of a file
    "\u00b2",
    "\u2460",
    "\u0663\u0664",
    "\u0000",
    "\t",
    "\r",
    "\x0b",
    "\x1c",  # str.splitlines() splits here, str.split('\n') does not
    "\x85",  # NEL: same
    "\u2028",  # LINE SEPARATOR: same
    "\x1b[31m",
    "\u0130",  # I WITH DOT ABOVE: lower() makes two characters
    "\ufb01",  # fi ligature: upper() makes two characters
    "\u0645\u0631\u062d\u0628\u0627",  # Arabic word
    "{",
    "}",
    ";",
    "#",
    "!",
    ":",
    '"',
    "|",
    "-",
    "/",
    "=",
)
_NUMBER = re.compile(r"\d+")
Lines = list[str]
Draw = Callable[[st.SearchStrategy[Any]], Any]


def _index(draw: Draw, lines: Lines) -> int:
    return int(draw(st.integers(0, max(len(lines) - 1, 0))))


def _delete(draw: Draw, lines: Lines) -> Lines:
    i, k = _index(draw, lines), draw(st.integers(1, 8))
    return lines[:i] + lines[i + k :]


def _duplicate(draw: Draw, lines: Lines) -> Lines:
    i, k = _index(draw, lines), draw(st.integers(1, 8))
    return lines[: i + k] + lines[i : i + k] + lines[i + k :]


def _swap(draw: Draw, lines: Lines) -> Lines:
    if len(lines) < 2:
        return lines
    i, j = _index(draw, lines), _index(draw, lines)
    out = list(lines)
    out[i], out[j] = out[j], out[i]
    return out


def _truncate(draw: Draw, lines: Lines) -> Lines:
    i = _index(draw, lines)
    cut = draw(st.integers(0, len(lines[i]) if lines else 0))
    return [*lines[:i], lines[i][:cut]] if lines else lines


def _number(draw: Draw, lines: Lines) -> Lines:
    with_digits = [i for i, line in enumerate(lines) if _NUMBER.search(line)]
    if not with_digits:
        return lines
    i = draw(st.sampled_from(with_digits))
    matches = list(_NUMBER.finditer(lines[i]))
    m = draw(st.sampled_from(matches))
    value = draw(st.sampled_from(ODD_NUMBERS) | st.integers(-(2**70), 2**70).map(str))
    out = list(lines)
    out[i] = lines[i][: m.start()] + value + lines[i][m.end() :]
    return out


def _insert_text(draw: Draw, lines: Lines) -> Lines:
    if not lines:
        return [draw(st.sampled_from(ODD_TEXT))]
    i = _index(draw, lines)
    at = draw(st.integers(0, len(lines[i])))
    odd = draw(st.sampled_from(ODD_TEXT) | st.text(st.characters(codec="utf-8")))
    out = list(lines)
    out[i] = lines[i][:at] + odd + lines[i][at:]
    return out


def _long_line(draw: Draw, lines: Lines) -> Lines:
    i = _index(draw, lines)
    base = lines[i].rstrip("\n") if lines else ""
    filler = draw(st.sampled_from(("x", "9", " ", "a b ", "{", "- ", "0x1,")))
    size = draw(st.sampled_from((5_000, 100_000)))
    return [*lines[:i], base + filler * (size // len(filler)) + "\n", *lines[i:]]


def _splice_token(draw: Draw, lines: Lines) -> Lines:
    """A token of one line put in place of a token of another: grammar-shaped nonsense."""
    if not lines:
        return lines
    i, j = _index(draw, lines), _index(draw, lines)
    src, dst = lines[i].split(), lines[j].split()
    if not src or not dst:
        return lines
    k = draw(st.integers(0, len(dst) - 1))
    dst[k] = draw(st.sampled_from(src))
    indent = lines[j][: len(lines[j]) - len(lines[j].lstrip())]
    out = list(lines)
    out[j] = indent + " ".join(dst) + "\n"
    return out


LINE_OPS = (
    _delete,
    _duplicate,
    _swap,
    _truncate,
    _number,
    _number,
    _insert_text,
    _long_line,
    _splice_token,
    _splice_token,
)


def _byte_edit(draw: Draw, data: bytes) -> bytes:
    if not data:
        return data
    i = draw(st.integers(0, len(data) - 1))
    kind = draw(st.sampled_from(("flip", "nul", "cut", "high")))
    if kind == "flip":
        return data[:i] + bytes([data[i] ^ (1 << draw(st.integers(0, 7)))]) + data[i + 1 :]
    if kind == "nul":
        return data[:i] + b"\x00" * int(draw(st.integers(1, 4))) + data[i:]
    if kind == "cut":  # may cut a UTF-8 sequence in two
        return data[:i]
    return data[:i] + bytes([draw(st.integers(0x80, 0xFF))]) + data[i:]


@st.composite
def text_mutants(draw: Draw, text: str) -> bytes:
    """`text` with 1-4 line-level mutations, then maybe a few byte-level ones, as file bytes."""
    lines: Lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(LINE_OPS))
        lines = op(draw, lines)
    data = "".join(lines).encode("utf-8")
    for _ in range(draw(st.integers(0, 2))):
        data = _byte_edit(draw, data)
    return data


# ---- structural mutations (JSON, YAML) --------------------------------------------------------


class Raw(str):
    """Text spliced verbatim into the serialized document (deep nesting, duplicate keys)."""


SCALARS: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    10**30,
    -(2**63),
    1.5,
    float("inf"),
    "",
    "x",
    "3",
    "-5",
    "1e309",
    "\u0663",
    "\u00b2",
    "\u2460",
    "Ethernet0",
    "swp1",
    "3,4",
    "0-7",
    "[PORT|Ethernet0]",
    "a" * 10_000,
)


def _paths(node: Any, prefix: tuple[Any, ...] = (), limit: int = 4000) -> list[tuple[Any, ...]]:
    """Every path to a value inside `node` (breadth first, at most `limit`)."""
    out: list[tuple[Any, ...]] = []
    queue: list[tuple[tuple[Any, ...], Any]] = [(prefix, node)]
    while queue and len(out) < limit:
        path, value = queue.pop(0)
        children = (
            value.items()
            if isinstance(value, dict)
            else enumerate(value)
            if isinstance(value, list)
            else []
        )
        for key, child in children:
            out.append((*path, key))
            queue.append(((*path, key), child))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        node = node[key]
    return node


def _value(draw: Draw, old: Any) -> Any:
    """A value of another type than `old` (or an odd one of the same type)."""
    kind = draw(st.sampled_from(("scalar", "list", "dict", "wrap", "deep")))
    if kind == "scalar":
        return draw(st.sampled_from(SCALARS) | st.integers() | st.text(max_size=20))
    if kind == "list":
        return [old] if not isinstance(old, list) else []
    if kind == "dict":
        return {"key": old} if not isinstance(old, dict) else {}
    if kind == "wrap":
        return {str(k): old for k in range(draw(st.integers(0, 3)))}
    depth = draw(st.sampled_from((50, 500, 5_000, 50_000)))
    opener = draw(st.sampled_from(("[", '{"a": ')))
    closer = "]" if opener == "[" else "}"
    return Raw(opener * depth + "1" + closer * depth)


def _mutate_tree(draw: Draw, doc: Any) -> Any:
    paths = _paths(doc)
    if not paths:
        return draw(st.sampled_from(SCALARS))
    path = draw(st.sampled_from(paths))
    parent, key = _get(doc, path[:-1]), path[-1]
    op = draw(st.sampled_from(("swap", "swap", "delete", "duplicate", "rename", "copy")))
    if op == "swap":
        parent[key] = _value(draw, parent[key])
    elif op == "delete":
        del parent[key]
    elif op == "duplicate" and isinstance(parent, dict):
        parent[key] = DupValue(parent[key], _value(draw, parent[key]))
    elif op == "rename" and isinstance(parent, dict):
        names = [s for s in SCALARS if isinstance(s, str)]
        new = draw(st.sampled_from((*names, str(key).upper(), f"{key}\u0301")))
        parent[new] = parent.pop(key)
    elif isinstance(parent, list):
        parent.insert(int(key), parent[key])
    return doc


@dataclass
class DupValue:
    """A dict key written twice: first `first`, then `second`."""

    first: Any
    second: Any


def to_json(node: Any, indent: int = 0) -> str:
    """Serialize like json.dumps(indent=2), with Raw splices and DupValue duplicate keys."""
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(node, Raw):
        return str(node)
    if isinstance(node, DupValue):  # moved out of its mapping by a later mutation
        return to_json(node.first, indent)
    if isinstance(node, dict):
        items: list[str] = []
        for key, value in node.items():
            for one in (value.first, value.second) if isinstance(value, DupValue) else (value,):
                items.append(f"{inner}{json.dumps(str(key))}: {to_json(one, indent + 2)}")
        return "{\n" + ",\n".join(items) + f"\n{pad}}}" if items else "{}"
    if isinstance(node, list):
        parts = [f"{inner}{to_json(v, indent + 2)}" for v in node]
        return "[\n" + ",\n".join(parts) + f"\n{pad}]" if parts else "[]"
    return json.dumps(node, ensure_ascii=False)  # inf -> Infinity, as Python's json reads it


def to_yaml(node: Any) -> str:
    """Block YAML (the form `nv config show -o yaml` prints), with Raw splices as flow text and
    DupValue keys written twice."""
    splices: dict[str, str] = {}

    def plain(value: Any) -> Any:
        if isinstance(value, Raw):
            mark = f"RAWSPLICE{len(splices)}"
            splices[mark] = str(value)
            return mark
        if isinstance(value, DupValue):
            mark = f"DUPSPLICE{len(splices)}"
            splices[mark] = yaml.safe_dump(plain(value.second), default_flow_style=True).strip()
            splices[mark] = splices[mark].removesuffix("\n...")
            return plain(value.first)
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    text: str = yaml.safe_dump(plain(node), sort_keys=False, allow_unicode=True, width=10**6)
    for mark, raw in splices.items():
        text = text.replace(mark, raw)
    return text


YAML_EXTRAS = (
    "&anchor",
    "*anchor",
    "!!python/object/apply:os.system ['true']",
    "!!binary aGVsbG8=",
    "!!timestamp 2001-12-14",
    "!!set {a, b}",
    "? [a, b]\n: c",
    "<<: *anchor",
    "%YAML 1.1",
    "---",
    "...",
    "'unterminated",
    '"\\x00"',
    "0o17",
    "0b101",
    "1_000",
    "~",
    "yes",
    "off",
    ".inf",
    "- ",
    ":",
)


@st.composite
def structured_mutants(draw: Draw, text: str, form: str) -> bytes:
    """A JSON (`form` 'json') or YAML document with 1-4 structural mutations, re-serialized;
    for YAML, maybe with a YAML-only construct (anchors, tags, merge keys) spliced into a line."""
    doc = json.loads(text) if form == "json" else yaml.safe_load(text)
    for _ in range(draw(st.integers(1, 4))):
        doc = _mutate_tree(draw, doc)
    out = to_json(doc) + "\n" if form == "json" else to_yaml(doc)
    if form == "yaml" and draw(st.booleans()):
        lines = out.splitlines(keepends=True)
        i = _index(draw, lines)
        extra = draw(st.sampled_from(YAML_EXTRAS))
        lines[i : i + 1] = [lines[i].rstrip("\n") + " " + extra + "\n"] if lines else []
        out = "".join(lines)
    return out.encode("utf-8")


# ---- scaling ---------------------------------------------------------------------------------


def _block_end(lines: Lines, start: int, stop: re.Pattern[str] | None) -> int:
    """The end (exclusive) of the block that starts at `start`: up to the next line matching
    `stop`, or else every following line more indented than it (or blank), plus a closing brace
    at its own indent."""
    end = start + 1
    if stop is not None:
        while end < len(lines) and not stop.search(lines[end]):
            end += 1
        return end
    indent = len(lines[start]) - len(lines[start].lstrip())
    while end < len(lines):
        line = lines[end]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        end += 1
    if end < len(lines) and lines[end].strip() == "}":
        end += 1
    return end


def _renumber(line: str, by: int) -> str:
    """`line` with its first number moved by `by`."""
    return _NUMBER.sub(lambda m: str(int(m.group()) + by), line, count=1)


def repeat_blocks(
    text: str,
    header: re.Pattern[str],
    copies: int,
    rename: Callable[[str, int], str] | None = None,
    stop: re.Pattern[str] | None = None,
) -> str:
    """`text` with every block whose first line matches `header` written `copies` times, each
    copy's header renamed by `rename(header, copy)` (default: its first number moved by
    1000 x copy, a new port name). A block ends as `_block_end` says."""
    rename = rename or (lambda line, k: _renumber(line, 1000 * k))
    lines = text.splitlines(keepends=True)
    out: Lines = []
    i = 0
    while i < len(lines):
        if not header.search(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        end = _block_end(lines, i, stop)
        for k in range(copies):
            out.extend([rename(lines[i], k), *lines[i + 1 : end]])
        i = end
    return "".join(out)


_SONIC_PORT = re.compile(r"\bEthernet(\d+)\b")


def repeat_sonic_ports(text: str, copies: int) -> str:
    """config_db.json with every port-keyed entry of every table written `copies` times."""
    doc = json.loads(text)
    for table in doc.values():
        if not isinstance(table, dict):
            continue
        for key in [k for k in table if _SONIC_PORT.search(k)]:
            entry = json.dumps(table[key])
            for k in range(1, copies):

                def move(m: re.Match[str], k: int = k) -> str:
                    return f"Ethernet{int(m.group(1)) + 1000 * k}"

                table[_SONIC_PORT.sub(move, key)] = json.loads(_SONIC_PORT.sub(move, entry))
    return json.dumps(doc, indent=4) + "\n"
