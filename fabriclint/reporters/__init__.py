"""Reporters: one module per format, each a pure `Report -> str`."""

from __future__ import annotations

from collections.abc import Callable

from fabriclint.models.finding import Report

Reporter = Callable[[Report], str]

FORMATS = ("text", "json")


def get_reporter(fmt: str, color: bool = False) -> Reporter:
    """The reporter for `fmt` (text honours `color`)."""
    if fmt == "json":
        from fabriclint.reporters.json import render as render_json

        return render_json
    from fabriclint.reporters.text import render as render_text

    return lambda report: render_text(report, color=color)
