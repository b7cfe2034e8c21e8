"""Site rules: a policy's JSON Schemas applied to the normalized state of selected devices."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from typing import Any

from fabriclint.models.common import Source
from fabriclint.models.finding import Finding
from fabriclint.models.policy import SiteRule
from fabriclint.models.state import DeviceState


def applies(rule: SiteRule, state: DeviceState) -> bool:
    """Whether the rule's selector picks this device."""
    sel = rule.select
    if sel.roles and state.role not in sel.roles:
        return False
    if sel.platforms and state.platform not in sel.platforms:
        return False
    return not sel.devices or any(fnmatch.fnmatchcase(state.name, g) for g in sel.devices)


def _source_for(state: DeviceState, path: list[str | int]) -> Source | None:
    """The most specific recorded source along a JSON path into the state."""
    obj: Any = state
    best: Source | None = state.src()
    for part in path:
        if isinstance(obj, dict):
            obj = obj.get(part)
        else:
            found = getattr(obj, "sources", {}).get(str(part)) if hasattr(obj, "sources") else None
            best = found or best
            obj = getattr(obj, str(part), None)
        if hasattr(obj, "src") and obj.src() is not None:
            best = obj.src()
        if obj is None:
            break
    return best


def check_site_rule(rule: SiteRule, state: DeviceState, data: dict[str, Any]) -> Iterator[Finding]:
    """Validate one device's JSON against the rule's schema; one finding per violation."""
    from jsonschema import Draft202012Validator  # imported only when a policy has site rules
    from referencing.exceptions import Unresolvable

    validator = Draft202012Validator(rule.schema_)
    try:
        errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    except Unresolvable as exc:  # `validate` reports these; a policy that skipped it still runs
        yield _unresolvable(rule, state, exc)
        return
    for error in errors:
        path = list(error.absolute_path)
        dotted = ".".join(str(p) for p in path) or "(device)"
        obj = f"interface {path[1]}" if len(path) > 1 and path[0] == "interfaces" else dotted
        yield Finding(
            rule=rule.code,
            name=rule.name,
            severity=rule.severity,
            device=state.name,
            object=obj,
            path=dotted,
            actual=error.instance if not isinstance(error.instance, dict | list) else None,
            message=f"{rule.message}: {dotted}: {error.message}",
            source=_source_for(state, path),
        )


def _unresolvable(rule: SiteRule, state: DeviceState, exc: Exception) -> Finding:
    """The finding for a site rule whose schema has a `$ref` that does not resolve."""
    return Finding(
        rule=rule.code,
        name=rule.name,
        severity=rule.severity,
        device=state.name,
        object="(device)",
        path="(device)",
        message=f"{rule.message}: the site rule cannot be applied: unresolvable $ref ({exc})",
        source=state.src(),
    )
