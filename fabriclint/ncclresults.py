"""Read nccl-tests results: the `-J FILE` JSON and the plain text a run prints.

The JSON layout is the one nccl-tests' `src/util.cu` writes: `version`, `args`, `env` (a list
of `NAME=value`), `nccl_version`, `config`, `devices` (rank, hostname, device, device_info),
`results` (size, count, type, redop, root, `out_of_place` / `in_place` each with `time` or
`cpu_time`, `alg_bw`, `bus_bw`, `nwrong`), `out_of_bounds` {count, okay},
`average_bus_bandwidth` {bandwidth, okay}, `errors`. nccl-tests writes booleans as the strings
"true"/"false" and a NaN double as the string "nan"; both are accepted. A number that is not
finite (NaN, or an infinity: `inf` in the text, `Infinity` in JSON) is no measurement: it is
read as not shown, so an infinite bus bandwidth never clears a floor. The text output is the
table under `# size count type redop root time algbw busbw #wrong ...` plus the `# Rank ...`,
`# Out of bounds values` and `# Avg bus bandwidth` lines.

A file that is neither is a `ResultsError` naming the file (and line, for JSON syntax).
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

from fabriclint.bounded import InputLimitError, json_loads
from fabriclint.confine import UnsafeInput, read_inside
from fabriclint.models.common import source_at
from fabriclint.models.nccl import NcclRank, NcclResult, NcclRun, NcclSide

KEPT_ENV = ("NCCL_", "UCX_")
"""Environment prefixes a run's record keeps: the rest may hold secrets."""


class ResultsError(ValueError):
    """A results file that cannot be read (an input error: exit 2 or an incomplete run)."""


def read_results(path: Path, name: str | None = None, root: Path | None = None) -> NcclRun:
    """The run in `path`, JSON or text (by its first non-blank character); `name` is how the
    file is shown (default: the path); `root`: the folder it must resolve inside (a bundle)."""
    text = read_text(path, root)
    shown = name or str(path)
    if text.lstrip().startswith("{"):
        return parse_json(text, shown)
    return parse_text(text, shown)


def read_text(path: Path, root: Path | None = None) -> str:
    """The text of a results file: a regular file under FABRICLINT_MAX_FILE_SIZE, resolving
    inside `root` (default: anywhere), bytes that are not UTF-8 replaced. ResultsError
    otherwise: `/dev/zero` (its size reads as 0) was read until memory ran out, and a FIFO
    blocked forever."""
    try:
        data = read_inside(path, root or Path(os.sep))
    except UnsafeInput as exc:
        raise ResultsError(str(exc)) from None
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return data.decode("utf-8", errors="replace")


def parse_json(text: str, file: str) -> NcclRun:
    """A nccl-tests `-J` document."""
    try:
        data = json_loads(text)
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{file}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    except InputLimitError as exc:
        raise ResultsError(f"{file}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise ResultsError(f"{file}: not a nccl-tests -J results file (no `results` list)")
    args = [str(a) for a in _list(data.get("args"))]
    return NcclRun(
        file=file,
        format="json",
        version=_int(data.get("version")),
        test=Path(args[0]).name if args else None,
        nccl_version=_int(data.get("nccl_version")),
        env=_env(_list(data.get("env"))),
        ranks=[
            r
            for d in _list(_dict(data.get("config")).get("devices", data.get("devices")))
            if (r := _rank(d))
        ],
        results=[res for row in data["results"] if (res := _json_row(row, file)) is not None],
        out_of_bounds=_int(_dict(data.get("out_of_bounds")).get("count")),
        avg_bus_bw=_float(_dict(data.get("average_bus_bandwidth")).get("bandwidth")),
        errors=[str(e) for e in _list(data.get("errors")) if e],
    )


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _float(value: Any) -> float | None:
    """A finite number; nccl-tests' "nan" string, an infinity (and anything else) is None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _env(items: list[Any]) -> dict[str, str]:
    """NAME=value strings, only the variables KEPT_ENV names."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = str(item).partition("=")
        if sep and name.startswith(KEPT_ENV):
            out[name] = value
    return out


def _rank(item: Any) -> NcclRank | None:
    d = _dict(item)
    rank, host = _int(d.get("rank")), d.get("hostname")
    if rank is None or not isinstance(host, str):
        return None
    info = d.get("device_info")
    return NcclRank(
        rank=rank,
        hostname=host,
        device=_int(d.get("device")),
        device_info=info if isinstance(info, str) else None,
    )


def _json_side(value: Any) -> NcclSide | None:
    d = _dict(value)
    if not d:
        return None
    return NcclSide(
        time_us=_float(d.get("time", d.get("cpu_time"))),
        alg_bw=_float(d.get("alg_bw")),
        bus_bw=_float(d.get("bus_bw")),
        nwrong=_float(d.get("nwrong")),
    )


def _json_row(row: Any, file: str) -> NcclResult | None:
    d = _dict(row)
    size = _int(d.get("size"))
    if size is None:
        return None
    return NcclResult(
        size=size,
        type=str(d["type"]) if "type" in d else None,
        redop=str(d["redop"]) if "redop" in d else None,
        out_of_place=_json_side(d.get("out_of_place")),
        in_place=_json_side(d.get("in_place")),
        source=source_at(file),
    )


_RANK = re.compile(
    r"^#\s+Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[[^]]*\]\s*(.*)$"
)
_OOB = re.compile(r"^#\s*Out of bounds values\s*:\s*(\d+)")
_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*([0-9.eE+-]+)")
_VERSION = re.compile(r"nccl-library=(\d+)")
_TEST = re.compile(r"^#\s*Collective test starting:\s*(\S+)")
_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d$")


def parse_text(text: str, file: str) -> NcclRun:
    """The plain text output of a run (stdout of all_reduce_perf and friends)."""
    run = NcclRun(file=file, format="text")
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("#"):
            _header(run, stripped)
            continue
        row = _text_row(stripped.split(), file, number)
        if row is not None:
            run.results.append(row)
    if not run.results:
        raise ResultsError(f"{file}: no nccl-tests results table (a `size count type ...` row)")
    return run


def _header(run: NcclRun, line: str) -> None:
    if m := _RANK.match(line):
        run.ranks.append(
            NcclRank(rank=int(m[1]), hostname=m[2], device=int(m[3]), device_info=m[4] or None)
        )
    elif m := _OOB.match(line):
        run.out_of_bounds = int(m[1])
    elif m := _AVG.match(line):
        run.avg_bus_bw = _number(m[1])
    elif m := _TEST.match(line):
        run.test = m[1]
    elif (m := _VERSION.search(line)) and run.nccl_version is None:
        run.nccl_version = int(m[1])


def _number(token: str) -> float | None:
    """A finite table number; `N/A` (unchecked), `nan`, `inf` and anything unreadable are None."""
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _text_row(tokens: list[str], file: str, number: int) -> NcclResult | None:
    """`size count type [redop root] time algbw busbw #wrong time algbw busbw #wrong [date time]`."""
    if len(tokens) >= 2 and _TIMESTAMP.match(tokens[-2]):
        tokens = tokens[:-2]
    if len(tokens) not in (11, 12, 13) or not (tokens[0].isdigit() and tokens[1].isdigit()):
        return None
    sides = [_text_side(tokens[-8:-4]), _text_side(tokens[-4:])]
    return NcclResult(
        size=int(tokens[0]),
        type=tokens[2],
        redop=tokens[3] if len(tokens) >= 12 else None,
        out_of_place=sides[0],
        in_place=sides[1],
        source=source_at(file, number),
    )


def _text_side(tokens: list[str]) -> NcclSide:
    time_us, alg, bus, wrong = (_number(t) for t in tokens)
    return NcclSide(time_us=time_us, alg_bw=alg, bus_bw=bus, nwrong=wrong)


def scrubbed(text: str) -> str:
    """A results file fit to keep in a bundle: a JSON document's `env` cut to the KEPT_ENV
    variables (nccl-tests records the whole environment, secrets included); text unchanged."""
    if not text.lstrip().startswith("{"):
        return text
    try:
        data = json_loads(text)
    except (json.JSONDecodeError, InputLimitError):
        return text if '"env"' not in text else "{}\n"  # unreadable: never keep an environment
    if isinstance(data, dict) and isinstance(data.get("env"), list):
        data["env"] = [e for e in data["env"] if str(e).startswith(KEPT_ENV)]
    return json.dumps(data, indent=1) + "\n"


def version_text(code: int | None) -> str | None:
    """NCCL's version code as `major.minor.patch` (NCCL_VERSION_CODE: major*10000 +
    minor*100 + patch since 2.9, major*1000 + minor*100 + patch before), or None."""
    if code is None or code <= 0:
        return None
    if code >= 20900:
        return f"{code // 10000}.{code // 100 % 100}.{code % 100}"
    return f"{code // 1000}.{code // 100 % 10}.{code % 100}"
