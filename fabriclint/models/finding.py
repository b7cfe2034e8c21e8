"""A finding and the report that carries findings (the JSON contract of docs/architecture.md)."""

import hashlib
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from fabriclint.models.common import Source
from fabriclint.models.policy import Severity

SEVERITY_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}


class Finding(BaseModel):
    """One violation."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    rule: str
    """Rule code (PFC002)."""
    name: str
    """Rule kebab-case name."""
    severity: Severity
    """error, warning or info."""
    device: str | None
    """Device name, None for fabric-wide findings about inputs."""
    object: str
    """What is wrong, in the device's terms (interface Ethernet1/1)."""
    path: str
    """Model path of the setting (interfaces.Ethernet1/1.pfc.priorities)."""
    expected: Any = None
    """What was expected."""
    actual: Any = None
    """What was found."""
    message: str
    """One-sentence explanation."""
    source: Source | None = None
    """File and line that caused it."""
    fingerprint: str = ""
    """sha256 of rule + device + path; stable when lines move."""
    suppressed: str | None = None
    """Reason, when suppressed."""
    fix: str | None = None
    """What to configure, in the vendor's syntax where fabriclint knows it (never applied)."""
    cause: str = ""
    """Fingerprint of the finding that explains this one (the root cause of its group); its own
    fingerprint when it is a cause itself."""

    # Where the finding sits, for matching it across a change (diff.py `finding_delta`): the
    # setting (its path under the scope: `pfc.watchdog`, `roce_queue.ecn.min_bytes`) and the
    # ports it covers. Kept in the run only, not in the JSON contract; set by the rules that
    # report a setting once per port or once for the ports sharing it (rules/scope.py `emit`,
    # rules/drift.py).
    _setting: str = PrivateAttr(default="")
    _ports: frozenset[str] = PrivateAttr(default_factory=frozenset)

    def scoped(self, setting: str, ports: Iterable[str]) -> "Finding":
        """This finding, knowing the setting it is about and the ports it covers."""
        self._setting = setting
        self._ports = frozenset(ports)
        return self

    @property
    def setting(self) -> str:
        """The setting under its scope ('' when the rule did not say)."""
        return self._setting

    @property
    def ports(self) -> frozenset[str]:
        """The ports the finding covers (one for a per-port finding; empty when unknown)."""
        return self._ports

    def model_post_init(self, _context: Any) -> None:
        if not self.fingerprint:
            raw = f"{self.rule}|{self.device or ''}|{self.path}"
            self.fingerprint = hashlib.sha256(raw.encode()).hexdigest()
        if not self.cause:
            self.cause = self.fingerprint

    @property
    def is_cause(self) -> bool:
        """True when no other finding explains this one."""
        return self.cause == self.fingerprint


class DeviceSummary(BaseModel):
    """A device's line in the report."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    name: str
    platform: str | None
    role: str | None
    status: str
    """ok; a collection status (unreachable, auth-failed, timeout, command-failed); missing,
    missing-file, checksum-mismatch, platform-mismatch, unsupported (no parser), unparseable;
    internal-error (fabriclint failed on it: INTERNAL001); or not-checked (a host in a --configs
    check). `fabriclint counters` adds missing-counters (a side has no counter output) and
    untrusted-interval (a counter went backwards or disappeared: CTR009)."""
    error: str | None = None
    """Why the device is not ok, in one line."""


class Summary(BaseModel):
    """Counts."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    devices: int
    complete: bool
    findings: dict[str, int]
    suppressed: int


class Gap(BaseModel):
    """A rule that could not be evaluated on some devices, and the input it lacked there."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    rule: str
    """Rule code."""
    missing: str
    """The input it needed and did not find (a command to collect, a config block, intent)."""
    devices: list[str]
    """Devices it was not (fully) evaluated on, in name order."""


class Report(BaseModel):
    """The JSON report of docs/architecture.md; other formats are views of it."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    fabriclint: str
    fabric: str
    snapshot: str | None
    summary: Summary
    devices: list[DeviceSummary]
    findings: list[Finding] = Field(default_factory=list)
    coverage: list[Gap] = Field(default_factory=list)
    """Rules skipped on some devices for lack of data, with what was missing (never a silent pass)."""
    internal_errors: list[str] = Field(default_factory=list)
    """Parts of the run that failed inside fabriclint (a rule, the drift comparison, suppression,
    a reporter): the result is incomplete; each also has an INTERNAL001 finding."""
