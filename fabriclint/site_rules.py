"""Site rules: a policy's JSON Schemas applied to the normalized state of selected devices.

A policy from a pull request is untrusted, and a JSON Schema `pattern` is a regular expression:
`^(a|a)*$` against a 40-character device value backtracks for hours in Python's `re`. The
`pattern` and `patternProperties` keywords are therefore matched with the `regex` module under
a time budget per rule and device; a rule that spends it fails (INTERNAL001 naming the rule:
the run is incomplete, exit 3) instead of hanging CI.
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Iterator
from contextvars import ContextVar
from functools import cache
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


PATTERN_SECONDS = 2.0
"""Seconds one site rule may spend matching its patterns against one device's state."""

_deadline: ContextVar[float] = ContextVar("site_rule_pattern_deadline", default=0.0)


class PatternTooSlow(Exception):
    """A site rule's `pattern` ran past PATTERN_SECONDS on one device (catastrophic backtracking)."""


def _search(pattern: str, text: str) -> bool:
    """`re.search` as JSON Schema means it, bounded by the current rule's deadline."""
    import regex

    left = _deadline.get() - time.monotonic()
    try:
        if left <= 0:
            raise TimeoutError
        return regex.search(pattern, text, timeout=left) is not None
    except TimeoutError:
        raise PatternTooSlow(
            f"pattern {pattern!r} ran past {PATTERN_SECONDS:g} s on this device's state "
            "(catastrophic backtracking, as in (a+)+ or (a|a)*): rewrite it"
        ) from None


@cache
def _validator_class() -> Any:
    """Draft 2020-12 with `pattern` and `patternProperties` matched by `_search`."""
    from jsonschema import Draft202012Validator, ValidationError, validators

    def pattern(validator: Any, patrn: str, instance: Any, _schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "string") and not _search(patrn, instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator: Any, props: Any, instance: Any, _s: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        for patrn, subschema in props.items():
            for key, value in instance.items():
                if _search(patrn, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=patrn)

    keywords = {"pattern": pattern, "patternProperties": pattern_properties}
    return validators.extend(Draft202012Validator, keywords)


def check_site_rule(rule: SiteRule, state: DeviceState, data: dict[str, Any]) -> Iterator[Finding]:
    """Validate one device's JSON against the rule's schema; one finding per violation.
    PatternTooSlow when its patterns spend more than PATTERN_SECONDS on this device."""
    from referencing.exceptions import Unresolvable  # imported only when a policy has site rules

    validator = _validator_class()(rule.schema_)
    token = _deadline.set(time.monotonic() + PATTERN_SECONDS)
    try:
        errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    except Unresolvable as exc:  # `validate` reports these; a policy that skipped it still runs
        yield _unresolvable(rule, state, exc)
        return
    finally:
        _deadline.reset(token)
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
