"""`fabriclint rules`: list the rule catalog; `rules explain CODE` prints a rule's documentation."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import typer

from fabriclint.cli.errors import fail

app = typer.Typer(
    help="List rules, or explain one.", invoke_without_command=True, no_args_is_help=False
)


@app.callback()
def list_rules(ctx: typer.Context) -> None:
    """List every rule: code, name, default severity, summary."""
    if ctx.invoked_subcommand is not None:
        return
    from fabriclint.rules.registry import ALL_RULES

    for rule in ALL_RULES:
        typer.echo(f"{rule.code:<9} {rule.name:<34} {rule.severity:<8} {rule.summary}")


@app.command("docs")
def docs(
    out: Path = typer.Option(Path("docs/rules.md"), "--out", "-o", help="Markdown file to write."),
) -> None:
    """Regenerate the rule reference (docs/rules.md) from the rules' docstrings."""
    from fabriclint.ruledocs import render_markdown
    from fabriclint.snapshot import atomic_write

    try:
        atomic_write(out, render_markdown())
    except OSError as exc:
        raise fail([f"{out}: cannot write: {exc.strerror or exc}"]) from None
    typer.echo(f"wrote {out}")


@app.command("explain")
def explain(code: str = typer.Argument(..., help="Rule code, e.g. PFC002.")) -> None:
    """Print a rule's documentation and options."""
    import difflib

    from fabriclint.rules.registry import BY_CODE

    rule = BY_CODE.get(code.upper())
    if rule is None:
        hint = difflib.get_close_matches(code.upper(), list(BY_CODE), n=1)
        raise fail([f"unknown rule '{code}'" + (f"; did you mean '{hint[0]}'?" if hint else "")])
    typer.echo(f"{rule.code} {rule.name} (default severity: {rule.severity})\n")
    typer.echo(inspect.cleandoc(rule.__doc__ or rule.summary))
    props = rule.options_model.model_json_schema().get("properties", {})
    if props:
        typer.echo("\nOptions (policy.yaml: options: {" + rule.code + ": {...}}):")
        for name, spec in props.items():
            default = json.dumps(spec.get("default"))
            typer.echo(f"  {name}: {spec.get('description', '')} (default {default})")
