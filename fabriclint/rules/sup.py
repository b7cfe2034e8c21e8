"""SUP rules: findings about suppressions themselves.

suppress.py finds them while applying the suppressions (the engine's suppression stage, after
every other rule); these classes are their catalog entries and give each its configured severity.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabriclint.models.finding import Finding
from fabriclint.rules.base import Context, NoOptions, Rule


class SuppressionRule(Rule[NoOptions]):
    """A SUP rule: reports a note suppress.py found (`report`), evaluates nothing itself."""

    stage = "suppress"

    def check(self, ctx: Context) -> Iterator[Finding]:
        """Nothing to evaluate: the suppression stage calls `report` on suppress.py's notes."""
        return iter(())

    def report(self, note: Finding) -> Finding:
        """suppress.py's note as this rule's finding (at the severity policy gives the rule)."""
        return note.model_copy(update={"severity": self.effective_severity})


class UnusedSuppression(SuppressionRule):
    """A suppression (policy or inline comment) that matches no finding.

    Why: a stale suppression hides the next real problem on that line or device. Remove it.

    Fails: `suppressions: [{rule: PFC002, device: leaf09, reason: ...}]` when leaf09 has no
    PFC002 finding. Passes: every suppression matches at least one finding.
    """

    code = "SUP001"
    name = "unused-suppression"
    severity = "warning"
    summary = "A suppression matches no finding"


class SuppressionExpired(SuppressionRule):
    """A suppression whose expiry date has passed; its findings count again.

    Why: accepted risks are accepted for a time (until the maintenance window); after it they
    must be fixed or accepted again, deliberately.

    Fails: `expires: 2026-01-31` on 2026-02-01. Passes: no expiry, or a future date.
    """

    code = "SUP002"
    name = "suppression-expired"
    severity = "warning"
    summary = "A suppression has expired"


class SuppressionWithoutReason(SuppressionRule):
    """An inline `fabriclint: ignore[CODE]` comment with no reason; it is not applied.

    Why: a suppression without a reason cannot be reviewed. Write why after the brackets:
    `! fabriclint: ignore[PFC004] watchdog handled by the NIC team until=2026-12-31`.

    Fails: `! fabriclint: ignore[PFC004]`. Passes: `! fabriclint: ignore[PFC004] lab port`.
    """

    code = "SUP003"
    name = "suppression-without-reason"
    severity = "error"
    summary = "An inline suppression has no reason"


RULES: list[type[Rule[Any]]] = [UnusedSuppression, SuppressionExpired, SuppressionWithoutReason]
