"""Run the whole check (parse, every rule, drift, every reporter) on one mutated device.

Each seed gets a small fabric folder: the fuzzed device and one unmutated neighbour from the
example fabric it comes from, that fabric's intent and policy, and the cables between the two.
A case rewrites the fuzzed device's files and the manifest (with their real sha256, so the
mutant is parsed rather than refused as changed) and runs `run_check` and every reporter.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import traceback
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, settings

from fabriclint.engine import CheckOptions, CheckResult, ExitCode, run_check
from fabriclint.reporters import FORMATS, get_reporter
from fabriclint.snapshot import MANIFEST, command_to_filename, sha256_of
from tests.examples import load_inventory
from tests.fuzz.strategies import INVENTORIES, Mutant, Seed, example_outputs

LONG = os.environ.get("FABRICLINT_FUZZ", "") == "long"
LOG = os.environ.get("FABRICLINT_FUZZ_LOG", "")
EXAMPLES = int(os.environ.get("FABRICLINT_FUZZ_EXAMPLES", "0") or 0)  # overrides both profiles
LONG_EXAMPLES = 10_000
SNAPSHOT = "fuzz"
TODAY = dt.date(2026, 12, 1)  # suppression expiry must not depend on the day the suite runs
# the parsers' own catch-alls: a message like these is a parser crash the parser contained
CONTAINED_CRASH = re.compile(r"parser (failed|error)", re.IGNORECASE)


def fuzz_settings(short_examples: int, long_examples: int = LONG_EXAMPLES) -> settings:
    """`short_examples` cases, derandomized and without the example database (plain pytest), or
    `long_examples` random ones with FABRICLINT_FUZZ=long."""
    return settings(
        max_examples=EXAMPLES or (long_examples if LONG else short_examples),
        derandomize=not LONG,
        database=None,
        deadline=None,
        print_blob=True,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
            HealthCheck.filter_too_much,
        ],
    )


def _inventory(seed: Seed) -> dict[str, Any]:
    inventory = load_inventory(INVENTORIES / seed.fabric)
    keep = (seed.device, seed.peer)
    devices = {
        name: {"platform": dev.platform, "role": dev.role, "host": dev.host}
        for name, dev in inventory.devices.items()
        if name in keep
    }
    links = [
        {"a": link.a, "b": link.b}
        for link in inventory.links
        if all(end.split(":", 1)[0] in keep for end in (link.a, link.b))
    ]
    return {"name": f"fuzz-{seed.platform}", "devices": devices, "links": links}


def _intent(seed: Seed) -> dict[str, Any]:
    """The example's intent, less the roles and devices this two-device fabric lacks."""
    intent: dict[str, Any] = yaml.safe_load((INVENTORIES / seed.fabric / "intent.yaml").read_text())
    roles = {dev["role"] for dev in _inventory(seed)["devices"].values()}
    intent["roles"] = {k: v for k, v in intent.get("roles", {}).items() if k in roles}
    keep = (seed.device, seed.peer)
    if "devices" in intent:
        intent["devices"] = {k: v for k, v in intent["devices"].items() if k in keep}
    return intent


class FuzzFabric:
    """A fabric folder for one seed; `check(files)` runs the whole check on a mutant."""

    def __init__(self, seed: Seed, root: Path) -> None:
        self.seed = seed
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        # JSON is YAML: the inventory is written as JSON text
        (root / "inventory.yaml").write_text(json.dumps(_inventory(seed), indent=1))
        (root / "intent.yaml").write_text(json.dumps(_intent(seed), indent=1))
        policy = INVENTORIES / seed.fabric / "policy.yaml"
        if policy.is_file():
            shutil.copyfile(policy, root / "policy.yaml")
        self.snap = root / "snapshots" / SNAPSHOT
        self.peer_outputs = {
            cmd: text.encode() for cmd, text in example_outputs(seed.fabric, seed.peer).items()
        }
        self.platforms = {
            name: dev["platform"] for name, dev in _inventory(seed)["devices"].items()
        }
        self.peer_entry = self._write_device(seed.peer, self.peer_outputs)

    def _write_device(self, device: str, outputs: dict[str, bytes]) -> dict[str, Any]:
        folder = self.snap / device
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        files, sums = {}, {}
        for command, data in outputs.items():
            name = command_to_filename(command)
            (folder / name).write_bytes(data)
            files[command], sums[name] = name, sha256_of(data)
        return {"platform": self.platforms[device], "files": files, "sha256": sums}

    def write(self, outputs: dict[str, bytes]) -> None:
        """The snapshot with the fuzzed device's outputs replaced by `outputs`."""
        devices = {
            self.seed.device: self._write_device(self.seed.device, outputs),
            self.seed.peer: self.peer_entry,
        }
        manifest = {
            "fabriclint": "0.1.0",
            "created": "2026-12-01T00:00:00Z",
            "source": "candidate",
            "devices": devices,
        }
        (self.snap / MANIFEST).write_text(json.dumps(manifest, indent=1))

    def check(self, outputs: dict[str, bytes]) -> CheckResult:
        """Write the mutant, run the whole check and every reporter, assert the invariants."""
        self.write(outputs)
        result = run_check(CheckOptions(fabric_dir=self.root, snapshot=SNAPSHOT, today=TODAY))
        assert_sound(result, self.seed.device)
        return result

    def check_mutant(self, mutant: Mutant) -> None:
        """`check` a mutant; with FABRICLINT_FUZZ_LOG=FILE a failure is appended to FILE (one
        JSON line: where it failed and the mutant) instead of raised, so a long run counts
        every distinct crash rather than stopping at the first; passing cases get a line too
        (the case count)."""
        if not LOG:
            self.check(mutant.outputs())
            return
        record = {"platform": self.seed.platform, "seed": self.seed.name, "ok": True}
        try:
            self.check(mutant.outputs())
        except Exception as exc:
            record.update(ok=False, where=_where(exc), case=repr(mutant))
            record["error"] = f"{type(exc).__name__}: {exc}"[:500]
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")


def _where(exc: BaseException) -> str:
    """The innermost fabriclint frame of a traceback (the crash's identity)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/fabriclint/" in f.filename]
    last = frames[-1] if frames else traceback.extract_tb(exc.__traceback__)[-1]
    return f"{Path(last.filename).name}:{last.lineno}:{last.name}"


def render_all(result: CheckResult) -> dict[str, str]:
    """Every reporter's output; each must be well-formed in its own format."""
    out = {}
    for fmt in FORMATS:
        out[fmt] = get_reporter(fmt, fail_on=result.fail_on, anchor="inventory.yaml")(result.report)
        assert isinstance(out[fmt], str), fmt
    json.loads(out["json"])
    json.loads(out["sarif"])
    # JSON Lines are split at "\n" only: splitlines() also splits at U+2028, NEL and \x1c,
    # which JSON strings may hold unescaped
    for line in out["jsonl"].split("\n"):
        if line:
            json.loads(line)
    ET.fromstring(out["junit"])
    return out


def assert_sound(result: CheckResult, device: str) -> None:
    """The invariants every check must keep, whatever the input."""
    assert result.exit_code in (ExitCode.OK, ExitCode.FINDINGS, ExitCode.INCOMPLETE)
    render_all(result)
    internal = [f for f in result.report.findings if f.rule.startswith("INTERNAL")]
    assert not internal, f"internal error: {internal[0].message}"
    summary = next(d for d in result.report.devices if d.name == device)
    state = result.states.get(device)
    assert state is not None, f"{device}: not parsed ({summary.status}: {summary.error})"
    for problem in state.problems:
        assert not CONTAINED_CRASH.search(problem.message), f"parser crash: {problem.message}"
    if any(p.kind == "unparseable" for p in state.problems):
        assert summary.status != "ok" and summary.error
        assert result.exit_code == ExitCode.INCOMPLETE
    if summary.status != "ok":
        assert result.exit_code == ExitCode.INCOMPLETE
