"""Policy: which rules run, at what severity, with what options, plus site rules (policy.yaml)."""

import datetime as dt
from typing import Any, Literal

from pydantic import Field

from fabriclint.models.inventory import Strict
from fabriclint.models.types import RuleCode

Severity = Literal["error", "warning", "info"]


class Selector(Strict):
    """Which devices a site rule applies to (all given conditions must hold)."""

    roles: list[str] = Field(default_factory=list)
    """Device roles (empty = any)."""
    platforms: list[str] = Field(default_factory=list)
    """Platform keys (empty = any)."""
    devices: list[str] = Field(default_factory=list)
    """Device name globs (empty = any)."""


class SiteRule(Strict):
    """A rule without Python: a JSON Schema the normalized state of selected devices must satisfy."""

    code: str = Field(pattern=r"^[A-Z]+[0-9]{3}$")
    """Site code, upper-case letters then 3 digits (SITE001). Must not clash with built-in codes."""
    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    """Kebab-case name."""
    severity: Severity = "error"
    """Default severity."""
    message: str
    """What the finding says (the schema error is appended)."""
    select: Selector = Field(default_factory=Selector)
    """Devices the rule applies to."""
    schema_: dict[str, Any] = Field(alias="schema")
    """JSON Schema (draft 2020-12) applied to the device's DeviceState JSON (schemas/device-state.json)."""


class Suppression(Strict):
    """An accepted finding: it stays in the report, marked suppressed with the reason, and no
    longer fails the run. A suppression that matches nothing is reported (SUP001)."""

    rule: RuleCode
    """Rule code or prefix (PFC002, PFC)."""
    device: str = "*"
    """Device-name glob."""
    object: str = "*"
    """Object glob, as findings name it (interface Ethernet1/1, qos, link *)."""
    reason: str = Field(min_length=3)
    """Why this is accepted (required; shown in every report)."""
    expires: dt.date | None = None
    """Date after which the suppression lapses and the finding counts again."""


class Policy(Strict):
    """policy.yaml. Codes may be given in full (PFC002) or as prefixes (PFC, ALL)."""

    extends: list[str] = Field(default_factory=list)
    """Policy packs to start from: built-in (default, strict, lab-permissive), or a YAML file
    inside the fabric folder (`packs/site.yaml`); nothing outside it is read."""
    select: list[RuleCode] | None = None
    """Rules to run (replaces the inherited selection)."""
    extend_select: list[RuleCode] = Field(default_factory=list)
    """Rules to add to the selection."""
    ignore: list[RuleCode] = Field(default_factory=list)
    """Rules not to run."""
    per_device_ignores: dict[str, list[RuleCode]] = Field(default_factory=dict)
    """Device-name glob -> rules to ignore on matching devices."""
    per_role_ignores: dict[str, list[RuleCode]] = Field(default_factory=dict)
    """Role -> rules to ignore on devices of that role."""
    severity: dict[RuleCode, Severity] = Field(default_factory=dict)
    """Severity overrides by code or prefix."""
    options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Rule options by rule code (validated by each rule's Options model)."""
    fail_on: Severity | None = None
    """Lowest severity that makes the run fail (exit 1)."""
    site_rules: list[SiteRule] = Field(default_factory=list)
    """Site rules written as JSON Schema."""
    suppressions: list[Suppression] = Field(default_factory=list)
    """Accepted findings, each with a reason and an optional expiry date."""
