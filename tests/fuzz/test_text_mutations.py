"""Every platform's real inputs, mutated line by line and byte by byte, through the whole check.

Line deletion, duplication, swaps, truncation, odd and huge numbers, odd unicode, NUL bytes,
very long lines and byte flips; each mutant runs parse + every rule + drift + every reporter,
which must never raise, must exit 0, 1 or 3, and must mark an unreadable device incomplete.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.checkrun import fuzz_settings
from tests.fuzz.conftest import FabricFor
from tests.fuzz.strategies import PLATFORMS, Mutant, seeds, text_mutants

# per-platform cases of the short profile (plain pytest): ~4-6 s of CPU each
SHORT = 100


@st.composite
def cases(draw: st.DrawFn, platform: str) -> Mutant:
    """A seed, which of its outputs to mutate, and the mutant's bytes."""
    seed = draw(st.sampled_from(seeds(platform)))
    command = draw(st.sampled_from(sorted(seed.outputs)))
    return Mutant(seed, command, draw(text_mutants(seed.outputs[command])))


@pytest.mark.parametrize("platform", PLATFORMS)
def test_text_mutants_never_crash_the_check(platform: str, fabric_for: FabricFor) -> None:
    @fuzz_settings(SHORT)
    @given(case=cases(platform))
    def run(case: Mutant) -> None:
        fabric_for(case.seed).check_mutant(case)

    run()
