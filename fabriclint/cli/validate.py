"""`fabriclint validate`: check the fabric's YAML files and report every problem at once."""

from __future__ import annotations

from pathlib import Path

import typer

from fabriclint.cli.errors import echo, fail


def validate(
    fabric: Path = typer.Argument(
        ..., help="Fabric directory (inventory.yaml, intent.yaml, policy.yaml).", metavar="FABRIC"
    ),
) -> None:
    """Validate inventory, intent and policy: each problem as file:line:col: message; exit 2 if any.

    Warnings (file:line:col: warning: ...) do not change the exit code: a device whose platform
    has no parser is accepted, and `check` then reports it unsupported (incomplete, exit 3)."""
    from fabriclint.engine import option_models
    from fabriclint.loaders.fabric import FabricError, load_fabric, roles_without_profile

    try:
        loaded = load_fabric(fabric, option_models())
    except FabricError as exc:
        for warning in exc.warnings:  # every problem at once: an unknown platform too
            echo(f"{warning.file}:{warning.line}:{warning.col}: warning: {warning.message}")
        echo(f"{len(exc.problems)} problem(s) found", err=True)
        raise fail(exc.problems) from None
    inv = loaded.inventory
    for warning in loaded.warnings:
        echo(f"{warning.file}:{warning.line}:{warning.col}: warning: {warning.message}")
    if loaded.intent is not None:
        for role in roles_without_profile(loaded.intent, inv):
            echo(
                f"warning: role '{role}' has no profile in intent.yaml; its devices are not compared to intent"
            )
    profiles = len(loaded.intent.profiles) if loaded.intent else 0
    echo(f"ok: {len(inv.devices)} devices, {len(inv.links)} links, {profiles} profile(s)")
