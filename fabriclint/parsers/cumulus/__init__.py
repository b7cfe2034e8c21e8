"""NVIDIA Cumulus Linux parser: NVUE configuration, `nv show qos roce`, the legacy datapath
`traffic.conf` and NCLU commands, to one DeviceState.

Inputs are layered lowest first: platform defaults, what `qos roce` implies, traffic.conf,
NVUE `default-global` profiles, then the operational `nv show qos roce` state. Semantics, defaults
and the model mapping are documented in docs/platforms/cumulus.md.
"""

from __future__ import annotations

from collections.abc import Callable

from fabriclint.models.common import source_at
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState, InputProblem
from fabriclint.parsers.cumulus.assemble import build_state
from fabriclint.parsers.cumulus.defaults import legacy_base, nvue_base, roce
from fabriclint.parsers.cumulus.draft import Draft
from fabriclint.parsers.cumulus.legacy import read_legacy
from fabriclint.parsers.cumulus.lldp import read_lldp
from fabriclint.parsers.cumulus.nclu import read_nclu
from fabriclint.parsers.cumulus.nvue import read_nvue
from fabriclint.parsers.cumulus.optics import read_transceivers
from fabriclint.parsers.cumulus.show import read_roce_show
from fabriclint.parsers.kit.internal import never_raises
from fabriclint.platforms.cumulus import NCLU_CONFIG, NVUE_CONFIG, NVUE_ROCE, TRAFFIC_CONF

Reader = Callable[[Draft, str, str], None]

LEGACY_KEYS = (TRAFFIC_CONF, "/etc/cumulus/datapath/qos/qos_features.conf")
NCLU_KEYS = (NCLU_CONFIG,)
NVUE_KEYS = (
    NVUE_CONFIG,
    "nv config show",
    "nv config show -o json",
    "/etc/nvue.d/startup.yaml",
)
SHOW_KEYS = (NVUE_ROCE,)

# Reading order = layering order (a later input overrides an earlier one).
READERS: tuple[tuple[tuple[str, ...], Reader], ...] = (
    (LEGACY_KEYS, read_legacy),
    (NCLU_KEYS, read_nclu),
    (NVUE_KEYS, read_nvue),
    (SHOW_KEYS, read_roce_show),
)
ALL_KEYS = tuple(key for keys, _ in READERS for key in keys)


@never_raises("cumulus", "Cumulus")
def parse(raw: RawDevice) -> DeviceState:
    """Parse a Cumulus switch's outputs. Pure; never raises on bad input (problems are reported)."""
    draft = Draft()
    present = [key for key in ALL_KEYS if key in raw.outputs]
    for keys, reader in READERS:
        for key in keys:
            output = raw.outputs.get(key)
            if output is None:
                continue
            draft.file = draft.file or output.file
            if output.text.strip():
                reader(draft, output.file, output.text)
            else:
                draft.problem("unparseable", f"'{key}' output is empty", source_at(output.file))
    _defaults(draft)
    state = build_state(raw.name, draft)
    if not present:
        expected = ", ".join(f"'{key}'" for key in ALL_KEYS)
        message = f"no Cumulus input: expected one of {expected}"
        state.problems.append(InputProblem(kind="unparseable", message=message))
    state.inputs = present
    read_lldp(raw, state)
    read_transceivers(raw, state)
    return state


def _defaults(draft: Draft) -> None:
    """Platform defaults of the configuration style read, then what `qos roce` implies."""
    if "nvue" in draft.styles:
        draft.defaults.append(nvue_base(source_at(draft.styles["nvue"])))
    elif "legacy" in draft.styles:
        draft.defaults.append(legacy_base(source_at(draft.styles["legacy"])))
    if draft.roce is not None:
        mode, src = draft.roce
        if mode.startswith(("lossless", "lossy")) and mode != "lossy-multi-tc":
            draft.defaults.append(roce(mode, src))
        else:
            draft.skip(
                f"qos roce mode {mode}", "the defaults of this RoCE mode are not modeled", src
            )
