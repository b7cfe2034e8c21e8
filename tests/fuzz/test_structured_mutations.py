"""The JSON and YAML inputs (SONiC config_db.json, Cumulus `nv config show -o yaml` and
`nv show qos roce -o json`), mutated in their structure, through the whole check.

Type swaps (string, number, list, mapping, null), deep nesting, deleted, renamed, duplicated and
copied keys; for YAML also anchors, aliases, tags and merge keys. A truncated JSON document is
not JSON: the device must then be marked incomplete, never checked as if it were clean.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabriclint.engine import ExitCode
from tests.fuzz.checkrun import fuzz_settings
from tests.fuzz.conftest import FabricFor
from tests.fuzz.strategies import (
    JSON_KEYS,
    YAML_KEYS,
    Mutant,
    Seed,
    structured_mutants,
    structured_seeds,
)

STRUCTURED = ("sonic", "cumulus")
SHORT = 40
LONG_STRUCTURED = 3_000  # on top of the 10,000 text mutants of the same platforms


def _documents(seed: Seed) -> list[tuple[str, str]]:
    """(command, form) of the seed's JSON and YAML outputs that parse as such."""
    out = []
    for command in sorted(seed.outputs):
        form = "json" if command in JSON_KEYS else "yaml" if command in YAML_KEYS else None
        if form == "json":
            try:
                json.loads(seed.outputs[command])
            except ValueError:
                continue
        if form is not None:
            out.append((command, form))
    return out


@st.composite
def cases(draw: st.DrawFn, platform: str) -> Mutant:
    """A structured seed, one of its documents, and the structurally mutated document."""
    seed = draw(st.sampled_from([s for s in structured_seeds(platform) if _documents(s)]))
    command, form = draw(st.sampled_from(_documents(seed)))
    return Mutant(seed, command, draw(structured_mutants(seed.outputs[command], form)))


@pytest.mark.parametrize("platform", STRUCTURED)
def test_structural_mutants_never_crash_the_check(platform: str, fabric_for: FabricFor) -> None:
    @fuzz_settings(SHORT, LONG_STRUCTURED)
    @given(case=cases(platform))
    def run(case: Mutant) -> None:
        fabric_for(case.seed).check_mutant(case)

    run()


@st.composite
def truncations(draw: st.DrawFn, platform: str) -> Mutant:
    """A JSON document cut before its last closing bracket."""
    seeds = [s for s in structured_seeds(platform) if any(f == "json" for _, f in _documents(s))]
    seed = draw(st.sampled_from(seeds))
    command = draw(st.sampled_from([c for c, f in _documents(seed) if f == "json"]))
    text = seed.outputs[command].rstrip()
    cut = draw(st.integers(0, len(text) - 1))
    return Mutant(seed, command, text[:cut].encode())


@pytest.mark.parametrize("platform", STRUCTURED)
def test_truncated_json_makes_the_device_incomplete(platform: str, fabric_for: FabricFor) -> None:
    @fuzz_settings(SHORT // 2, LONG_STRUCTURED // 3)
    @given(case=truncations(platform))
    def run(case: Mutant) -> None:
        result = fabric_for(case.seed).check(case.outputs())
        summary = next(d for d in result.report.devices if d.name == case.seed.device)
        assert summary.status != "ok", "a truncated JSON input was checked as if complete"
        assert result.exit_code == ExitCode.INCOMPLETE

    run()
