"""opensm.conf: `key value` lines -> SmConfig with every OpenSM key, as OpenSM would use it.

OpenSM reads the file line by line: everything after `#` is a comment, the first blank-separated
word is the key, the rest (blanks and one pair of quotes stripped) is the value. An unknown key is
logged ("Unrecognized token") and ignored; a key written twice keeps its last value. Values are
read as opensm/values.py describes, then checked the way `osm_subn_verify_config` does
(opensm/verify.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fabriclint.models.common import Source
from fabriclint.models.ib import (
    OptionValue,
    QosTables,
    SmConfig,
    SmOption,
    UnknownOption,
    VlArbEntry,
)
from fabriclint.parsers.kit.lines import Text
from fabriclint.parsers.opensm.values import clean_value, read_value, strtoul
from fabriclint.parsers.opensm.verify import verify
from fabriclint.platforms.opensm_keys import KEYS, QOS_PREFIXES, QOS_TABLE_SUFFIXES


@dataclass(frozen=True)
class Line:
    """One key line of opensm.conf."""

    key: str
    value: str
    text: str
    number: int


@dataclass
class ConfResult:
    """The parsed file and the keys written more than once (key -> line numbers)."""

    config: SmConfig
    duplicates: dict[str, list[int]] = field(default_factory=dict)


def key_lines(text: Text) -> list[Line]:
    """The key lines of the file, comments and blank lines dropped."""
    out: list[Line] = []
    for num, line in text.numbered():
        body = line.split("#", 1)[0]
        parts = body.strip().split(None, 1)
        if not parts:
            continue
        value = clean_value(parts[1]) if len(parts) > 1 else ""
        out.append(Line(parts[0], value, line.strip(), num))
    return out


def parse_conf(text: Text) -> ConfResult:
    """Parse opensm.conf; never raises."""
    config = SmConfig(file=text.file)
    config.mark("", text.src(None))
    written: dict[str, Line] = {}
    seen: dict[str, list[int]] = {}
    for line in key_lines(text):
        if line.key not in KEYS:
            config.unknown.append(
                UnknownOption(key=line.key, text=line.text, source=src(text, line))
            )
            continue
        seen.setdefault(line.key, []).append(line.number)
        written[line.key] = line
    for key, spec in KEYS.items():
        config.options[key] = _option(text, key, written.get(key), spec.default)
    verify(config.options)
    config.tables = _tables(config)
    duplicates = {k: n for k, n in seen.items() if len(n) > 1 and not KEYS[k].repeatable}
    return ConfResult(config, duplicates)


def src(text: Text, line: Line) -> Source:
    """Source of a key line."""
    return text.src(line.number)


def _option(text: Text, key: str, line: Line | None, default: OptionValue) -> SmOption:
    if line is None:
        return SmOption(key=key, value=default)
    read = read_value(KEYS[key], line.value)
    return SmOption(
        key=key,
        value=read.value,
        written=line.value,
        source=src(text, line),
        reset=read.reset,
        redacted=read.redacted,
    )


# ---- QoS tables ----------------------------------------------------------------------------------


def _tables(config: SmConfig) -> dict[str, QosTables]:
    """The QoS sets that hold something (a written `(null)`, 0 or -1 sets nothing)."""
    out: dict[str, QosTables] = {}
    for prefix in QOS_PREFIXES:
        opts = {s: config.options[f"{prefix}_{s}"] for s, _, _ in QOS_TABLE_SUFFIXES}
        max_vls, high = opts["max_vls"].value, opts["high_limit"].value
        tables = QosTables(prefix=prefix)
        tables.max_vls = max_vls if isinstance(max_vls, int) and max_vls > 0 else None
        tables.high_limit = high if isinstance(high, int) and high >= 0 else None
        _fill_lists(tables, opts)
        if tables.model_dump(exclude={"prefix", "sources", "malformed"}, exclude_none=True):
            for name, opt in opts.items():
                tables.mark(name, opt.source)
            out[prefix] = tables
    return out


def _fill_lists(tables: QosTables, strings: dict[str, SmOption]) -> None:
    for name in ("sl2vl", "vlarb_high", "vlarb_low"):
        text = strings[name].value
        if not isinstance(text, str):
            continue
        bad: list[str] = []
        if name == "sl2vl":
            tables.sl2vl = [_entry(token, bad) for token in _tokens(text)]
        else:
            setattr(tables, name, [_arb(token, bad) for token in _tokens(text)])
        if bad:
            tables.malformed[name] = bad


def _tokens(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _entry(token: str, bad: list[str]) -> int:
    value, negative, used = strtoul(token)
    if used != token or negative:
        bad.append(token)
    return value if not negative else -1


def _arb(token: str, bad: list[str]) -> VlArbEntry:
    vl, sep, weight = token.partition(":")
    if not sep:
        bad.append(token)
        return VlArbEntry(vl=_entry(vl.strip(), bad), weight=0)
    return VlArbEntry(vl=_entry(vl.strip(), bad), weight=_entry(weight.strip(), bad))
