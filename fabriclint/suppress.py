"""Suppressions and baselines: accepted findings stay in the report, marked, and stop failing.

Three sources, all requiring a reason:
- `suppressions:` in policy.yaml (rule, device glob, optional object glob, reason, expires);
- an inline comment in any input file a finding points at, on the finding's line or the line
  just above it: `! fabriclint: ignore[PFC002,ECN001] reason` (`#` or `//` work too), with an
  optional `until=YYYY-MM-DD` before the reason;
- a baseline file (`--baseline`): fingerprints of rule + device + model path, so moving lines
  does not break it.
A suppression that matches nothing is itself reported (SUP001), an expired one lapses and says
so (SUP002), an inline one without a reason is not applied (SUP003).
"""

import datetime as dt
import fnmatch
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from fabriclint import __version__
from fabriclint.models.common import Source, source_at
from fabriclint.models.finding import Finding
from fabriclint.models.policy import Severity, Suppression

_INLINE = re.compile(
    r"(?:^|[!#/;]\s*)fabriclint:\s*ignore\[([A-Z0-9, ]+)\]\s*(?:until=(\d{4}-\d{2}-\d{2})\s*)?(.*)$"
)


@dataclass
class Inline:
    """One inline `fabriclint: ignore[...]` comment."""

    codes: list[str]
    reason: str
    until: dt.date | None
    source: Source
    used: bool = False


class BaselineFile(BaseModel):
    """The baseline file written by --write-baseline."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # built by --baseline runs only

    fabriclint: str
    fingerprints: dict[str, str]
    """fingerprint -> 'RULE device path' (for humans reading the file)."""


class BaselineError(Exception):
    """A baseline file that cannot be read (exit 2)."""


def read_baseline(path: Path) -> set[str]:
    """Fingerprints of a baseline file."""
    from fabriclint.bounded import InputLimitError, json_loads
    from fabriclint.confine import UnsafeInput, read_inside

    try:
        # anywhere the user names, but a regular file under the size limit: a PR's baseline
        # may be a link to /dev/zero (memory) or a FIFO (a hang)
        data = json_loads(read_inside(path, Path(os.sep)).decode("utf-8"))
        return set(BaselineFile.model_validate(data).fingerprints)
    except UnsafeInput as exc:
        raise BaselineError(f"cannot read the baseline: {exc}") from exc
    except FileNotFoundError as exc:  # a first CI run, before anyone wrote one
        raise BaselineError(
            f"{path}: no such baseline file; write it once with the same check and "
            f"`--write-baseline {path}` (it accepts today's findings), then commit it"
        ) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {exc}") from exc
    except json.JSONDecodeError as exc:
        where = f"{path}:{exc.lineno}:{exc.colno}"
        raise BaselineError(f"{where}: not a fabriclint baseline: {exc.msg}") from exc
    except InputLimitError as exc:  # a PR's baseline nested 200,000 deep, a 100,000-digit number
        raise BaselineError(f"{path}: not a fabriclint baseline: {exc}") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise BaselineError(f"{path}: not a fabriclint baseline: {where}: {first['msg']}") from exc


RUN_FINDINGS = ("INTERNAL001", "DRIFT003")
"""About the run, not the configuration (fabriclint failed, a device was not read): never
accepted into a baseline, or a later run would hide them."""


def baseline_text(findings: Iterable[Finding]) -> str:
    """The baseline of a run: every finding not already suppressed for another reason."""
    prints = {
        f.fingerprint: f"{f.rule} {f.device or '-'} {f.path}"
        for f in findings
        if (f.suppressed is None or f.suppressed.startswith("baseline"))
        and f.rule not in RUN_FINDINGS
    }
    body = BaselineFile(fabriclint=__version__, fingerprints=dict(sorted(prints.items())))
    return body.model_dump_json(indent=2) + "\n"


def _scan(file: str, text: str) -> list[Inline]:
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "fabriclint:" not in line:
            continue
        match = _INLINE.search(line)
        if match:
            codes = [c.strip() for c in match.group(1).split(",") if c.strip()]
            until = dt.date.fromisoformat(match.group(2)) if match.group(2) else None
            found.append(Inline(codes, match.group(3).strip(), until, source_at(file, number)))
    return found


def inline_comments(
    findings: Iterable[Finding], texts: Mapping[str, str]
) -> dict[str, list[Inline]]:
    """Inline suppressions of every file a finding points at, by file, read from `texts` (file
    as findings name it -> the text the check read): never from disk again, so neither the
    working directory nor a file edited since it was read changes what is suppressed. A file
    the check did not read has no inline suppressions."""
    files = sorted({f.source.file for f in findings if f.source is not None})
    return {file: found for file in files if file in texts and (found := _scan(file, texts[file]))}


def _covers(item: Inline, finding: Finding) -> bool:
    src = finding.source
    if src is None or src.line is None or src.file != item.source.file:
        return False
    on_line = item.source.line in (src.line, src.line - 1)
    return on_line and any(finding.rule.startswith(code) for code in item.codes)


def _policy_match(rule: Suppression, finding: Finding) -> bool:
    return (
        finding.rule.startswith(rule.rule)
        and fnmatch.fnmatchcase(finding.device or "", rule.device)
        and fnmatch.fnmatchcase(finding.object, rule.object)
    )


@dataclass
class Outcome:
    """Findings with suppressions applied, plus the findings about suppressions themselves."""

    findings: list[Finding]
    notes: list[Finding]


def _note(
    code: str, name: str, severity: Severity, message: str, source: Source | None, path: str
) -> Finding:
    return Finding(
        rule=code,
        name=name,
        severity=severity,
        device=None,
        object="suppression",
        path=path,
        message=message,
        source=source,
    )


def apply(
    findings: list[Finding],
    policy_rules: list[Suppression],
    inline: dict[str, list[Inline]],
    baseline: set[str] | None,
    today: dt.date,
) -> Outcome:
    """Mark suppressed findings (never drop them) and report unused, expired and bare suppressions."""
    used_policy: set[int] = set()
    items = [item for group in inline.values() for item in group]
    for finding in findings:
        finding.suppressed = _reason(finding, policy_rules, used_policy, items, baseline, today)
    notes = _policy_notes(policy_rules, used_policy, today) + _inline_notes(items, today)
    return Outcome(findings, notes)


def _reason(
    finding: Finding,
    policy_rules: list[Suppression],
    used_policy: set[int],
    items: list[Inline],
    baseline: set[str] | None,
    today: dt.date,
) -> str | None:
    for index, rule in enumerate(policy_rules):
        if _policy_match(rule, finding):
            used_policy.add(index)
            if rule.expires is None or rule.expires >= today:
                return rule.reason
    for item in items:
        if _covers(item, finding) and item.reason:
            item.used = True
            if item.until is None or item.until >= today:
                return item.reason
    if baseline is not None and finding.fingerprint in baseline:
        return "baseline: accepted when the baseline was written"
    return None


def _policy_notes(rules: list[Suppression], used: set[int], today: dt.date) -> list[Finding]:
    notes = []
    for index, rule in enumerate(rules):
        where = f"suppressions.{index}"
        what = f"policy suppression {rule.rule} on {rule.device}"
        if index not in used:
            notes.append(
                _note(
                    "SUP001",
                    "unused-suppression",
                    "warning",
                    f"{what} matches no finding; remove it",
                    None,
                    where,
                )
            )
        elif rule.expires is not None and rule.expires < today:
            message = f"{what} expired on {rule.expires}; its findings count again"
            notes.append(_note("SUP002", "suppression-expired", "warning", message, None, where))
    return notes


def _inline_notes(items: list[Inline], today: dt.date) -> list[Finding]:
    notes = []
    for item in items:
        codes = ",".join(item.codes)
        path = f"inline.{item.source.file}.{codes}"
        if not item.reason:
            message = f"inline ignore[{codes}] has no reason, so it is not applied; say why after the brackets"
            notes.append(
                _note("SUP003", "suppression-without-reason", "error", message, item.source, path)
            )
        elif not item.used:
            message = (
                f"inline ignore[{codes}] matches no finding on this line or the next; remove it"
            )
            notes.append(
                _note("SUP001", "unused-suppression", "warning", message, item.source, path)
            )
        elif item.until is not None and item.until < today:
            message = f"inline ignore[{codes}] expired on {item.until}; its findings count again"
            notes.append(
                _note("SUP002", "suppression-expired", "warning", message, item.source, path)
            )
    return notes
