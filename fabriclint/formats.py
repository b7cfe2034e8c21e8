"""Report formats: every name listed once, here, each rendered by `fabriclint.reporters.<name>`.

The CLI's `--format` choices, `reporters.get_reporter` and the tests all read `FORMATS`. This
module imports only the registry, so the CLI can offer the choices without importing a reporter.
"""

from __future__ import annotations

from fabriclint.registry import Registry

REPORTERS: Registry[str] = Registry(
    "format",
    (
        (name, f"fabriclint.reporters.{name}")
        for name in (
            "text",
            "json",
            "jsonl",
            "sarif",
            "junit",
            "markdown",
            "github",
            "gitlab",
            "html",
        )
    ),
)
"""Format name -> the module whose pure `render(report) -> str` writes it (imported when chosen)."""

FORMATS: tuple[str, ...] = REPORTERS.names
