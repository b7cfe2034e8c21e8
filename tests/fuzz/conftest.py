"""Fixtures of the fuzz harness: one small fabric folder per seed, built once per session."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.fuzz.checkrun import FuzzFabric
from tests.fuzz.strategies import Seed

FabricFor = Callable[[Seed], FuzzFabric]


@pytest.fixture(scope="session")
def fabric_for(tmp_path_factory: pytest.TempPathFactory) -> FabricFor:
    """seed -> its fabric folder (created on first use)."""
    made: dict[str, FuzzFabric] = {}

    def get(seed: Seed) -> FuzzFabric:
        if seed.name not in made:
            root = tmp_path_factory.mktemp("fuzz") / "fabric"
            made[seed.name] = FuzzFabric(seed, root)
        return made[seed.name]

    return get
