"""`fabriclint rules`: list the rule catalog; `rules explain CODE` prints a rule's documentation."""

from __future__ import annotations

import inspect
import json
from enum import StrEnum
from pathlib import Path

import typer

from fabriclint.cli.errors import echo, emit, fail

app = typer.Typer(
    help="List rules, or explain one.", invoke_without_command=True, no_args_is_help=False
)


class ListFormat(StrEnum):
    """How `fabriclint rules` lists the catalog."""

    TEXT = "text"
    JSON = "json"


@app.callback()
def list_rules(
    ctx: typer.Context,
    fmt: ListFormat = typer.Option(ListFormat.TEXT, "--format", "-f", help="text or json."),
) -> None:
    """List every rule: code, name, default severity, summary."""
    if ctx.invoked_subcommand is not None:
        return
    from fabriclint.models.docs import json_schema
    from fabriclint.rules.registry import ALL_RULES

    if fmt == ListFormat.JSON:
        catalog = [
            {
                "code": rule.code,
                "name": rule.name,
                "severity": rule.severity,
                "summary": rule.summary,
                "doc": inspect.cleandoc(rule.__doc__ or ""),
                "options": json_schema(rule.options_model).get("properties", {}),
            }
            for rule in ALL_RULES
        ]
        echo(json.dumps(catalog, indent=2, ensure_ascii=False))
        return
    for rule in ALL_RULES:
        note = f" (deprecated: {rule.deprecated})" if rule.deprecated else ""
        echo(f"{rule.code:<11} {rule.name:<34} {rule.severity:<8} {rule.summary}{note}")


@app.command("docs")
def docs(
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Markdown file to write (default: stdout).", metavar="PATH"
    ),
) -> None:
    """The rule reference, from the rules' docstrings (the project's is docs/rules.md:
    `fabriclint rules docs --out docs/rules.md`)."""
    from fabriclint.ruledocs import render_markdown

    emit(render_markdown(), out)


@app.command("explain")
def explain(
    code: str = typer.Argument(..., help="Rule code, e.g. PFC002.", metavar="CODE"),
) -> None:
    """Print a rule's documentation and options."""
    import difflib

    from fabriclint.models.docs import json_schema
    from fabriclint.rules.registry import BY_CODE, REMOVED

    rule = BY_CODE.get(code.upper())
    if rule is None and code.upper() in REMOVED:
        raise fail([f"rule '{code.upper()}' was removed: {REMOVED[code.upper()]}"])
    if rule is None:
        hint = difflib.get_close_matches(code.upper(), list(BY_CODE), n=1)
        raise fail([f"unknown rule '{code}'" + (f"; did you mean '{hint[0]}'?" if hint else "")])
    echo(f"{rule.code} {rule.name} (default severity: {rule.severity})\n")
    if rule.deprecated:
        echo(f"Deprecated: {rule.deprecated}\n")
    echo(inspect.cleandoc(rule.__doc__ or rule.summary))
    props = json_schema(rule.options_model).get("properties", {})
    if props:
        echo("\nOptions (policy.yaml: options: {" + rule.code + ": {...}}):")
        for name, spec in props.items():
            default = json.dumps(spec.get("default"))
            echo(f"  {name}: {spec.get('description', '')} (default {default})")
