"""Cisco NX-OS parser: `show running-config` (+ `show interface`) to a DeviceState.

One pass over the lines; blocks are tracked by indentation (NX-OS indents 2 spaces per level).
Semantics and defaults assumed are documented in docs/platforms/nxos.md.
"""

from __future__ import annotations

from fabriclint.models.common import source_at
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState, InputProblem
from fabriclint.parsers.kit.inputs import missing_or_empty
from fabriclint.parsers.kit.internal import never_raises
from fabriclint.parsers.nxos.assemble import build_state
from fabriclint.parsers.nxos.draft import Draft
from fabriclint.parsers.nxos.policy import Block, Sub
from fabriclint.parsers.nxos.show import parse_show_interface
from fabriclint.parsers.nxos.toplevel import top_line

RUNNING_CONFIG = "show running-config"
SHOW_INTERFACE = "show interface"
_SHOW_ALIASES = (SHOW_INTERFACE, "show interfaces")


@never_raises("nxos", "NX-OS")
def parse(raw: RawDevice) -> DeviceState:
    """Parse an NX-OS device's outputs. Pure; never raises on bad input (problems are reported)."""
    config = raw.outputs.get(RUNNING_CONFIG)
    show_key = next((k for k in _SHOW_ALIASES if k in raw.outputs), None)
    show = raw.outputs.get(show_key) if show_key else None
    draft = Draft(file=config.file if config else show.file if show else RUNNING_CONFIG)
    problem = missing_or_empty(raw, RUNNING_CONFIG, "NX-OS")
    if problem is None and config is not None:
        walk(draft, config.text)
        problem = _not_nxos(draft, config.text)
    shown = parse_show_interface(show.text, show.file) if show is not None else {}
    state = build_state(raw.name, draft, shown, with_config=problem is None)
    if problem is not None:
        state.problems.append(problem)
    if show is not None and not shown and show.text.strip():
        message = f"'{show_key}' output lists no interface (`NAME is up|down` lines)"
        state.problems.append(
            InputProblem(kind="unparseable", message=message, source=source_at(show.file, 1))
        )
    state.inputs = [cmd for cmd in (RUNNING_CONFIG, *_SHOW_ALIASES) if cmd in raw.outputs]
    return state


def _not_nxos(draft: Draft, text: str) -> InputProblem | None:
    """An input that is not an NX-OS running-config at all (JSON, Junos, EOS, random text)."""
    number, first = next(
        ((n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()), (1, "")
    )
    reason = None
    if first[:1] in ("{", "["):
        reason = "it looks like JSON"
    elif draft.foreign is not None:
        reason = "it is an Arista EOS configuration (`! device: ... EOS-...` header)"
        number = draft.foreign[1]
    elif draft.recognized == 0:
        reason = "no line is an NX-OS configuration statement"
    if reason is None:
        return None
    message = f"'{RUNNING_CONFIG}' is not an NX-OS configuration: {reason}"
    return InputProblem(kind="unparseable", message=message, source=source_at(draft.file, number))


def walk(draft: Draft, text: str) -> None:
    """Feed every line of a running-config to the handler of the block it belongs to."""
    block: Block | None = None
    sub: Sub | None = None
    sub_indent = 0
    banner_end: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        body = line.strip()
        if not body:
            continue
        if banner_end is not None:
            banner_end = None if banner_end in body else banner_end
            continue
        if body[0] in "!#":
            _comment(draft, body, number)
            continue
        words = body.split()
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            block, sub = top_line(draft, body, words, number), None
            banner_end = _banner(words, body)
        elif block is None:
            continue
        elif sub is not None and indent > sub_indent:
            sub(body, words, number)
        else:
            sub, sub_indent = block(body, words, number), indent


def _banner(words: list[str], body: str) -> str | None:
    """The delimiter that ends a multi-line `banner motd X` (None when it ends on this line)."""
    if words[0] != "banner" or len(words) < 3:
        return None
    delimiter = words[2][0]
    rest = body.split(None, 2)[2][1:]
    return None if delimiter in rest else delimiter


def _comment(draft: Draft, body: str, line: int) -> None:
    """EOS's `! device: NAME (MODEL, EOS-VERSION)` header marks a config of another vendor."""
    if body.startswith("! device:") and "EOS-" in body:
        draft.foreign = (body, line)
