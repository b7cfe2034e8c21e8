"""Is an output whole? The wholeness tests two or more families share, for an output cut short
(a collection that hit a size limit, a session dropped mid-output, half a file pasted in a PR).

A cut output must never be read as if it were whole: the settings past the cut would read as
missing and be reported as faults, or not at all. Each test here answers from the output alone
and is sound: it fires only on what no whole output of that command can look like, and says
where the output stops (file, line) as a PARSE003 problem, so the device is incomplete (exit 3).
A cut that leaves a whole output's shape (exactly between two blocks of a format with no end
marker) cannot be told and is not guessed at: each parser's docstring and the table in
docs/architecture.md ("Cut-off outputs") say which cuts that leaves for its outputs. An output
that stopped at a CLI pager prompt (`--More--`) is not whole either, on any platform (`paged`,
which `parsers.get_parser` runs after every parse).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from fabriclint.models.common import source_at
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import InputProblem
from fabriclint.parsers.kit.show import ShownInterface

_BOM_AND_SPACE = "\ufeff \t\r\n"


def last_line(text: str) -> tuple[int, str]:
    """(1-based number, text) of the last non-blank line; (1, "") for a blank text."""
    lines = text.splitlines()
    for number in range(len(lines), 0, -1):
        if lines[number - 1].strip():
            return number, lines[number - 1]
    return 1, ""


def stops(output: RawOutput, cmd: str, expects: str, quote: bool = True) -> InputProblem:
    """The problem "'cmd' is cut off: EXPECTS, this one stops at line N ('...')", located at the
    output's last non-blank line. `quote` False leaves the line's text out: the last line of a
    configuration may be one holding a secret (`username ops secret 0 ...`), and the text of
    a snapshot that was imported or of a rendered config was never redacted."""
    number, line = last_line(output.text)
    shown = f" ({line.strip()[:60]!r})" if quote else ""
    message = f"'{cmd}' is cut off: {expects}, this one stops at line {number}{shown}"
    return InputProblem(kind="unparseable", message=message, source=source_at(output.file, number))


def cut_before(
    output: RawOutput | None, cmd: str, header: tuple[str, ...], marker: str, expects: str
) -> InputProblem | None:
    """The device's own output (its first lines start with those of `header`) that holds no
    top-level line `marker`, which the device always prints after everything the parser reads
    (EOS `end`, NX-OS `line vty`), was cut off before it; None otherwise. A text without the
    header (a rendered config, a fragment) is not judged: nothing says it should hold the
    marker. Lines after the marker are allowed (someone edited the file after the device wrote
    it). The message names the line the configuration stops at, not its text (`stops`)."""
    if output is None or not has_header(output.text, header):
        return None
    if marker in (line.rstrip() for line in output.text.splitlines()):
        return None
    return stops(output, cmd, expects, quote=False)


def has_header(text: str, header: tuple[str, ...]) -> bool:
    """True when the first lines of `text` (after a BOM and blank lines) start with `header`'s."""
    head = text.lstrip(_BOM_AND_SPACE)[: 80 * (len(header) + 1)].splitlines()
    return len(head) >= len(header) and all(
        line.startswith(want) for line, want in zip(head, header, strict=False)
    )


def port_blocks_cut(
    output: RawOutput,
    cmd: str,
    shown: Mapping[str, ShownInterface],
    is_header: Callable[[str], bool],
    no_mtu_line: tuple[str, ...],
) -> InputProblem | None:
    """The cut shapes of a `show interface(s)` text (a header line at column 0, then the
    interface's indented lines, one of them its MTU line), from `shown`, the blocks the
    platform's reader found: a last block (in output order) without its MTU line (every
    interface prints one, but those named with a prefix of `no_mtu_line`: a VXLAN tunnel), or
    a last line at column 0 that `is_header` does not take for a whole header (a header cut
    mid-line), was cut. A cut exactly after a whole block cannot be told from this text alone."""
    if not shown:
        return None
    _, line = last_line(output.text)
    if line[:1] not in (" ", "\t", "") and not is_header(line):
        return stops(output, cmd, "a line at column 0 is an interface's header")
    name, last = max(shown.items(), key=lambda item: item[1].source.line or 0)
    if last.mtu is None and not name.startswith(no_mtu_line):
        return stops(output, cmd, f"every interface prints its MTU line, {name} does not")
    return None


_PAGER_LITERALS = ("--More--", "---(more")
_PAGER = re.compile(r"\s*(?:--More--|---\(more(?: \d{1,3}%)?\)---)\s*$")
"""The pager prompt of a CLI session that was not told to stop paging: EOS and NX-OS
` --More-- `, Junos `---(more)---` / `---(more 42%)---` (backspaces erasing it removed)."""


def paged(raw: RawDevice) -> InputProblem | None:
    """An output holding a pager prompt line: the session stopped at the pager (terminal length
    not 0, a copy from an interactive terminal), so what follows it is missing, or was typed
    over. The first such line of the first output that has one; None when no output has one."""
    for cmd, output in sorted(raw.outputs.items()):
        found = _pager_line(output.text)
        if found is not None:
            number, line = found
            message = (
                f"'{cmd}' stopped at a pager prompt at line {number} ({line.strip()!r}): "
                "the output is not whole (collect with paging off: `terminal length 0`, "
                "`| no-more`)"
            )
            return InputProblem(
                kind="unparseable", message=message, source=source_at(output.file, number)
            )
    return None


def _pager_line(text: str) -> tuple[int, str] | None:
    """(1-based number, text without backspaces) of the first line of `text` that is a pager
    prompt; every line holding one of the literals is looked at, not only the first (a
    description that mentions `--More--` comes before the prompt)."""
    for literal in _PAGER_LITERALS:
        position = text.find(literal)
        while position >= 0:
            start = text.rfind("\n", 0, position) + 1
            end = text.find("\n", position)
            end = end if end >= 0 else len(text)
            line = text[start:end].replace("\b", "")
            if _PAGER.match(line):
                return text.count("\n", 0, start) + 1, line
            position = text.find(literal, end)
    return None
