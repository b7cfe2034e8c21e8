"""Rule selection the ruff way: the most specific selector wins, ignore wins ties, CLI beats file."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

from fabriclint.models.policy import Policy, Severity


def _specificity(selector: str, code: str) -> int:
    """How specifically `selector` matches `code`: -1 no match, 0 for ALL, else prefix length."""
    if selector == "ALL":
        return 0
    return len(selector) if code.startswith(selector) else -1


def _decide(code: str, select: list[str], ignore: list[str]) -> bool | None:
    """True/False when this layer has an opinion on `code`, None when it has none."""
    best_select = max((_specificity(s, code) for s in select), default=-1)
    best_ignore = max((_specificity(s, code) for s in ignore), default=-1)
    if best_select < 0 and best_ignore < 0:
        return None
    return best_select > best_ignore


@dataclass
class Selection:
    """Which rules run where, and at what severity."""

    policy: Policy
    cli_select: list[str] | None = None
    cli_ignore: list[str] = field(default_factory=list)
    cli_extend_select: list[str] = field(default_factory=list)

    def selected(self, code: str) -> bool:
        """Whether `code` runs at all."""
        if self.cli_select is not None:
            base = _decide(code, self.cli_select + self.cli_extend_select, self.cli_ignore)
            return bool(base)
        select = list(self.policy.select if self.policy.select is not None else ["ALL"])
        decision = _decide(code, select + self.policy.extend_select, self.policy.ignore)
        cli = _decide(code, self.cli_extend_select, self.cli_ignore)
        if cli is not None:
            decision = cli
        return bool(decision)

    def ignored_on(self, code: str, device: str | None, role: str | None) -> bool:
        """Whether per-device or per-role ignores switch `code` off for one device."""
        if device is None:
            return False
        for pattern, codes in self.policy.per_device_ignores.items():
            if fnmatch.fnmatchcase(device, pattern) and _decide(code, [], codes) is False:
                return True
        codes = self.policy.per_role_ignores.get(role or "", [])
        return _decide(code, [], codes) is False

    def severity(self, code: str, default: Severity) -> Severity:
        """Severity after overrides (the longest matching prefix wins)."""
        best: tuple[int, Severity] = (-1, default)
        for selector, sev in self.policy.severity.items():
            spec = _specificity(selector, code)
            if spec > best[0]:
                best = (spec, sev)
        return best[1]
