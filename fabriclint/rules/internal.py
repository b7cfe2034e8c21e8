"""INTERNAL001: a part of fabriclint failed during the run, so the result is incomplete."""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from fabriclint.models.finding import Finding
from fabriclint.rules.base import Context, NoOptions, Rule


@dataclass(frozen=True)
class Failure:
    """One contained exception: where it happened and what it was."""

    where: str
    """The part that failed, in the user's terms: `rule PFC002`, `reporter sarif`, `suppression`."""
    error: str
    """Exception type and message, in one line."""
    trace: str
    """The traceback (printed only with --debug)."""
    device: str | None = None
    """The device it concerned, when the failure is about one device."""

    @classmethod
    def of(cls, where: str, exc: BaseException, device: str | None = None) -> Failure:
        """Record `exc` raised by `where`."""
        message = " ".join(str(exc).split())[:300]
        error = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
        return cls(where, error, "".join(traceback.format_exception(exc)), device)


class InternalError(Rule[NoOptions]):
    """fabriclint itself failed while checking (a rule, the drift comparison, suppression or a
    report format raised an exception); the run is incomplete (exit 3).

    Why: a crash inside one rule must not turn into "no findings" for what that rule checks, nor
    into exit 1 ("findings") with no report. The rest of the report is still produced, and the
    finding names the part that failed and the exception; `--debug` prints the traceback. Please
    report it with the input that caused it.

    Fails: a rule raising `TypeError` on a map value it did not expect. Passes: every part ran.
    """

    code = "INTERNAL001"
    name = "internal-error"
    severity = "error"
    summary = "fabriclint failed internally; the result is incomplete"
    stage = "report"

    def check(self, ctx: Context) -> Iterator[Finding]:
        """Nothing to evaluate: the engine reports failures through `report`."""
        return iter(())

    @classmethod
    def report(cls, failure: Failure) -> Finding:
        """The finding for one contained failure (never suppressed, never deselected)."""
        rule: Rule[Any] = cls(NoOptions())
        return rule.finding(
            failure.device,
            failure.where,
            f"internal.{failure.where}",
            f"{failure.where} failed ({failure.error}); the result is incomplete "
            "(rerun with --debug for the traceback, and please report it)",
            actual=failure.error,
        )


RULES: list[type[Rule[Any]]] = [InternalError]
