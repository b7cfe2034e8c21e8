"""Read an NX-OS running-config into blocks: one pass over the lines, blocks tracked by
indentation (NX-OS indents 2 spaces per level), each line fed to the handler of its block."""

from __future__ import annotations

from fabriclint.parsers.nxos.draft import Draft
from fabriclint.parsers.nxos.policy import Block, Sub
from fabriclint.parsers.nxos.toplevel import top_line


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
            draft.close_block()  # a top-level statement ends the recorded block (its span)
            block, sub = top_line(draft, body, words, number), None
            banner_end = _banner(words, body)
            continue
        if block is None:
            continue
        draft.extend_block(number)
        if sub is not None and indent > sub_indent:
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
