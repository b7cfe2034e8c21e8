"""The parser kit: what every platform package needs, written once.

Vocabulary (docs/architecture.md, "Vocabulary" and "Parser packages", says the same):

- **block**: a header line and the lines under it in a device's text (`interface Ethernet1/1`,
  `qos profile ROCE`, a Junos `{ }` section, a config_db table entry). A family's `text.py` reads
  the text into blocks; a block's handler reads its statements. The draft records the blocks
  settings are written in, with their spans (`draft.BaseDraft.open_block`, `add_block`): the
  state's block table, which rules ask where a faulty setting lives (rules/scope.py `locate`).
- **draft**: a parser's working state, a `draft.BaseDraft`: what one pass over the inputs
  recorded, each value with the line it was written on, plus the named definitions and
  references and the unmodeled lines (PARSE001). It never leaves its parser.
- **layer**: the settings one block writes for a port (a port-channel's, a profile's, the port's
  own, defaults, operational state); layers stack lowest first, the higher winning field by field
  (`merge.stack`).
- **assemble**: turning a finished draft into the DeviceState (a family's `assemble.py`).
- **scope** is not a parser word: it is the object a finding is reported against (rules/scope.py).

Modules: `internal` (`never_raises`, the contract every `parse` is decorated with, and the located
internal-error problem), `draft` (`BaseDraft`), `merge` (the layered merge), `inputs` (missing or
empty required outputs), `lines` (numbered command output and the problem log of the host and
subnet-manager parsers), `common` (numbers and value lists), `counters` (what the counter parsers
share: counts, column tables, the per-device builder), `signature` (whose configuration a
text is), `show` (`ShownInterface`: one interface's block of an EOS or NX-OS `show
interface(s)`), `whole` (is an output whole, or cut short), `vlans` (VLAN lists and what a layer-2 port carries). The kit imports no platform package.
"""
