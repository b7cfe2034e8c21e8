"""SONiC parser: `config_db.json` (nested, flat `TABLE|key`, or a swssconfig list of ops) to a
DeviceState.

The JSON is decoded with every key's line and every duplicate key kept (sonic/text.py), turned
into tables (sonic/tables.py), then into the model (sonic/assemble.py and the modules it calls).
Semantics and defaults assumed are documented in docs/platforms/sonic.md.
"""

from __future__ import annotations

from fabriclint.models.common import construct, source_at
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState, InputProblem
from fabriclint.parsers.kit.internal import never_raises
from fabriclint.parsers.sonic.assemble import BLOCK_TABLES, build_state
from fabriclint.parsers.sonic.draft import Draft
from fabriclint.parsers.sonic.lldp import read_lldp
from fabriclint.parsers.sonic.optics import read_transceivers
from fabriclint.parsers.sonic.tables import Loaded, load_tables
from fabriclint.parsers.sonic.text import Duplicate, JObj, JsonError, load
from fabriclint.platforms.sonic import CONFIG_DB

# Tables whose odd entries (not objects, DEL operations) are worth reporting.
QOS_TABLES = frozenset(
    {*BLOCK_TABLES, "QUEUE", "PFC_WD", "BUFFER_POOL", "BUFFER_PG", "BUFFER_QUEUE", "PORT"}
)


@never_raises("sonic", "SONiC")
def parse(raw: RawDevice) -> DeviceState:
    """Parse a SONiC device's config_db.json. Pure; never raises (problems are reported)."""
    config = raw.outputs.get(CONFIG_DB)
    if config is None:
        state = construct(DeviceState, name=raw.name, platform="sonic")
        message = f"no '{CONFIG_DB}': the SONiC configuration could not be read"
        state.problems.append(InputProblem(kind="unparseable", message=message))
        return state
    file = config.file
    problems: list[InputProblem] = []
    loaded = _load(config.text, file, problems)
    if loaded is None:
        state = construct(DeviceState, name=raw.name, platform="sonic")
    else:
        draft = Draft(file=file)
        for text, reason, line in loaded.skipped:
            draft.skip(text, reason, line)
        state = build_state(raw.name, draft, loaded.tables)
    state.problems = problems + state.problems
    state.inputs = [CONFIG_DB]
    read_lldp(raw, state)
    read_transceivers(raw, state)
    return state


def _load(text: str, file: str, problems: list[InputProblem]) -> Loaded | None:
    """The tables of the input; None (and a problem) when it is not a SONiC configuration."""
    if not text.strip():
        problems.append(_unparseable(f"'{CONFIG_DB}' is empty", file, None))
        return None
    try:
        root, duplicates = load(text)
    except JsonError as exc:
        problems.append(_unparseable(f"not valid JSON: {exc.message}", file, exc.line))
        return None
    if not isinstance(root, (JObj, list)):
        problems.append(_unparseable("not a config_db: the JSON is not an object", file, 1))
        return None
    loaded = load_tables(root, QOS_TABLES)
    if not loaded.recognized:
        message = (
            "not a SONiC configuration: no top-level key is a config_db table (PORT, "
            "PORT_QOS_MAP, ...) or a swssconfig operation"
        )
        problems.append(_unparseable(message, file, 1))
        return None
    problems.extend(_duplicate(d, file) for d in duplicates)
    problems.extend(_collision(c, file) for c in loaded.collisions)
    problems.sort(key=lambda p: (p.source.line or 0) if p.source else 0)
    return loaded


def _collision(found: tuple[str, int, int], file: str) -> InputProblem:
    name, first, second = found
    message = (
        f"{name} is written twice (line {first}, and again in flat or nested form); "
        "the fields are merged, the later value of a field wins"
    )
    return InputProblem(kind="duplicate-key", message=message, source=source_at(file, second))


def _unparseable(message: str, file: str, line: int | None) -> InputProblem:
    return InputProblem(kind="unparseable", message=message, source=source_at(file, line))


def _duplicate(found: Duplicate, file: str) -> InputProblem:
    where = f"in {found.path}" if found.path else "at the top level"
    lines = ", ".join(map(str, found.lines))
    message = (
        f'key "{found.key}" is written {len(found.lines)} times {where} (lines {lines}); '
        "JSON loaders (sonic-cfggen, config load) keep only the last"
    )
    return InputProblem(
        kind="duplicate-key", message=message, source=source_at(file, found.lines[-1])
    )
