"""Deferred model classes (pydantic `defer_build`) and `construct`: a plain check never builds
the validators of the models it does not validate, and what it builds without validation is the
object validation would have given."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from fabriclint.models.common import construct
from fabriclint.models.ib import HcaPort, InfinibandState, SmOption
from fabriclint.models.state import DeviceState, InputProblem, QosConfig, Trust
from fabriclint.rules.base import Rule
from fabriclint.rules.registry import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
POD = ROOT / "inventories" / "roce-pod"

_PROBLEM = InputProblem(kind="unparseable", message="not JSON")


@pytest.mark.parametrize(
    ("cls", "values"),
    [
        (DeviceState, {"name": "leaf01", "platform": "eos"}),
        (DeviceState, {"name": "gpu01", "platform": "mlnx-host", "problems": [_PROBLEM]}),
        (
            DeviceState,
            {"name": "sw1", "platform": "cumulus", "qos": QosConfig(trust=Trust.DSCP)},
        ),
        (DeviceState, {"name": "sw2", "platform": "sonic", "facts": {"model": "SN4600"}}),
        (InfinibandState, {}),
        (SmOption, {"key": "sm_priority", "value": 15}),
        (HcaPort, {"hca": "mlx5_0", "port": 1}),
    ],
)
def test_construct_gives_what_validation_gives(
    cls: type[BaseModel], values: dict[str, Any]
) -> None:
    made, validated = construct(cls, **values), cls(**values)
    assert made == validated
    assert made.model_fields_set == validated.model_fields_set == set(values)
    assert list(made.__dict__) == list(validated.__dict__)  # field order: dumps read alike
    assert made.model_dump(mode="json") == validated.model_dump(mode="json")


def test_construct_makes_fresh_defaults() -> None:
    one, two = (
        construct(DeviceState, name="a", platform="eos"),
        construct(DeviceState, name="b", platform="eos"),
    )
    one.interfaces["Ethernet1"] = None  # type: ignore[assignment]
    one.qos.trust = Trust.PCP
    assert two.interfaces == {} and two.qos.trust is None and one.sources is not two.sources


_PROBE = """
import sys
from fabriclint.cli import main
from pydantic import BaseModel
def classes():
    todo = list(BaseModel.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("fabriclint."):
            yield cls
try:
    main()
except SystemExit as exited:
    sys.stderr.write(f"EXIT {exited.code}\\n")
built = sorted(f"{c.__module__}.{c.__qualname__}" for c in classes() if c.__pydantic_complete__)
sys.stderr.write("BUILT " + " ".join(built) + "\\n")
"""


def _built_by_check(*args: str) -> set[str]:
    """The fabriclint model classes whose validator a `fabriclint check ...` run built."""
    env = {k: v for k, v in os.environ.items() if k != "FABRICLINT_DEBUG"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "check", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "EXIT 1\n" in done.stderr, done.stderr  # checked, with the snapshot's findings
    line = next(x for x in done.stderr.splitlines() if x.startswith("BUILT "))
    return set(line.split()[1:])


def test_a_roce_check_builds_no_state_counters_or_infiniband_validator() -> None:
    built = _built_by_check(str(POD), "--snapshot", "broken")
    assert "fabriclint.models.finding.Finding" in built  # the probe sees what was built
    never = {"models.state.DeviceState", "models.ib.InfinibandState", "models.ib.SmConfig"}
    never |= {"models.counters.DeviceCounters", "models.nccl.NcclRun"}
    never |= {"rules.base.NoOptions", "rules.qos.MapValueOutOfRange.Options"}  # defaults
    assert "fabriclint.rules.pfc.TooManyLosslessPriorities.Options" in built  # policy's PFC003
    assert not {f"fabriclint.{name}" for name in never} & built


def test_a_deferred_model_validates_and_dumps_as_before(tmp_path: Path) -> None:
    state = construct(DeviceState, name="leaf01", platform="eos", problems=[_PROBLEM])
    dumped = state.model_dump(mode="json")  # builds the deferred serializer on first use
    again = DeviceState.model_validate(json.loads(json.dumps(dumped)))
    assert again == state and DeviceState.__pydantic_complete__


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_default_options_are_the_validated_defaults(rule: type[Rule[Any]]) -> None:
    model = rule.options_model
    made, validated = construct(model), model.model_validate({})
    assert made == validated and made.model_fields_set == validated.model_fields_set == set()
    assert made.model_dump(mode="json") == validated.model_dump(mode="json")
