"""What every draft records the same way: where a value was written, what the input defines and
refers to by name, and what it says that the model has no place for.

A platform's `Draft` subclasses `BaseDraft` and adds the settings it records. A place is a line
number of the draft's `file` (None or 0: the file as a whole, where platform defaults come from)
or, for a family that reads several files into one draft, a ready `Source`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from fabriclint.models.common import Source, make_source
from fabriclint.models.state import Block, Definition, DeviceState, Reference, Unparsed

Where = int | Source | None
"""A line of the draft's file (None or 0: no line), or a Source of any file."""


@dataclass(slots=True)
class BaseDraft:
    """The located records of one device's draft (PARSE001 lines, QOS005/QOS006 names)."""

    STRIP: ClassVar[bool] = False
    """Whether `skip` strips the text it reports (for families that pass raw lines)."""

    file: str = ""
    """The input the line numbers count in."""
    definitions: list[Definition] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    unparsed: list[Unparsed] = field(default_factory=list)
    lines: dict[int | None, Source] = field(default_factory=dict)
    """Sources already made, by line (a line often carries several values)."""
    blocks: list[Block] = field(default_factory=list)
    """The blocks read so far, with their spans (`open_block`, `extend_block`)."""
    block: int | None = None
    """Index in `blocks` of the block being read; None outside any recorded block."""
    block_end: int = 0
    """The last line read of that block (written into it when it closes: a plain int per line
    read, not a model assignment)."""

    @property
    def default(self) -> Source:
        """Source of platform defaults: the input file, no line."""
        return self.at(None)

    def at(self, line: int | None) -> Source:
        """The source of `line` of the input (0 or None: the file, no line)."""
        found = self.lines.get(line)
        if found is None:
            found = self.lines[line] = make_source(self.file, line or None)
        return found

    def where(self, place: Where) -> Source:
        """`place` as a Source."""
        return place if isinstance(place, Source) else self.at(place)

    def skip(self, text: str, reason: str, place: Where) -> None:
        """Report a QoS-relevant statement that is not modeled (PARSE001)."""
        shown = text.strip() if self.STRIP else text
        self.unparsed.append(Unparsed(text=shown, reason=reason, source=self.where(place)))

    def define(self, kind: str, name: str, place: Where) -> None:
        """Record a named object the input defines."""
        self.definitions.append(Definition(kind=kind, name=name, source=self.where(place)))

    def refer(self, kind: str, name: str, by: str, place: Where) -> None:
        """Record a use of a named object by `by`."""
        self.references.append(Reference(kind=kind, name=name, by=by, source=self.where(place)))

    def add_block(
        self, kind: str, name: str, span: tuple[int, int], path: str | None = None
    ) -> None:
        """Record a block whose span (first, last line of the draft's file) is known already
        (a JSON or YAML entry: its key's line to its last field's)."""
        first, last = span
        block = Block(kind=kind, name=name, file=self.file, first=first, last=last, path=path)
        self.blocks.append(block)

    def open_block(self, kind: str, name: str, line: int, path: str | None = None) -> None:
        """Record that a block defining `kind name` (model path `path`) starts at `line` of the
        draft's file; the lines read next extend it (`extend_block`) until `close_block`."""
        self.close_block()
        self.block, self.block_end = len(self.blocks), line
        self.add_block(kind, name, (line, line), path)

    def extend_block(self, line: int) -> None:
        """`line` belongs to the block being read (ignored outside a recorded block)."""
        self.block_end = line

    def close_block(self) -> None:
        """The block being read ended (a new top-level statement starts, or the input ends)."""
        if self.block is not None:
            block = self.blocks[self.block]
            block.last = max(block.last, self.block_end)
            self.block = None

    def hand_over(self, state: DeviceState) -> None:
        """Give `state` the records: definitions, blocks, references, unparsed lines in input
        order."""
        self.close_block()
        state.definitions = self.definitions
        state.blocks = self.blocks
        state.references = self.references
        state.unparsed = sorted(self.unparsed, key=_input_order)


def _input_order(item: Unparsed) -> tuple[str, int]:
    """Sort key: by file, then line (a file's defaults first); stable for equal places."""
    source = item.source
    return (source.file, source.line or 0) if source is not None else ("", 0)
