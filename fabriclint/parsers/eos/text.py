"""Read an EOS running-config into blocks: one pass over the lines, blocks tracked by
indentation (EOS indents 3 spaces per level), each line fed to the handler of its block."""

from __future__ import annotations

from functools import partial

from fabriclint.parsers.eos.draft import Draft
from fabriclint.parsers.eos.nested import Sub, report_qos_words
from fabriclint.parsers.eos.toplevel import Block, top_line


def walk(draft: Draft, text: str) -> None:
    """Feed every line of a running-config to the handler of the block it belongs to."""
    block: Block | None = None
    sub: Sub | None = None
    sub_indent = 0
    until_eof = False
    for number, line in enumerate(text.splitlines(), 1):
        body = line.lstrip()
        if not body:
            continue
        words = body.split()
        if until_eof:
            until_eof = words[0] != "EOF"
            continue
        if body[0] == "!":
            _comment(draft, words, number)
            continue
        body = body.rstrip()
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            draft.close_block()  # a top-level statement ends the recorded block (its span)
            block, sub = top_line(draft, body, words, number), None
            until_eof = words[0] == "banner"
            continue
        if block is None:
            continue
        draft.extend_block(number)
        if sub is not None and indent > sub_indent:
            sub(body, words, number)
        elif words == ["comment"]:
            until_eof = True
        else:
            sub = block(body, words, number) or partial(_unmodeled, draft)
            sub_indent = indent


def _unmodeled(draft: Draft, text: str, words: list[str], line: int) -> None:
    report_qos_words(draft, "QoS statement inside an unmodeled block", text, words, line)


def _comment(draft: Draft, words: list[str], line: int) -> None:
    """`! device: NAME (MODEL, EOS-VERSION)` header comment; other comments are ignored."""
    if len(words) < 3 or words[:2] != ["!", "device:"]:
        return
    draft.facts["device"] = words[2]
    inside = " ".join(words[3:]).strip("()")
    model, sep, version = inside.rpartition(", EOS-")
    if sep:
        draft.facts["model"] = model
        draft.os_version = version
        draft.version_source = draft.at(line)
