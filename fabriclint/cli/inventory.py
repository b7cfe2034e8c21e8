"""`fabriclint inventory import`: write inventory.yaml from NetBox, Nautobot, Ansible, Nornir or
AVD (see docs/inventories.md). The sources' modules are imported only when the command runs."""

from __future__ import annotations

from pathlib import Path

import typer

from fabriclint.cli.errors import echo, fail

app = typer.Typer(help="Inventories from where teams keep them.", no_args_is_help=True)

SOURCE_NAMES = "netbox, nautobot, ansible, nornir, avd"


@app.command("import")
def import_(
    source: str = typer.Option(
        ..., "--from", help=f"Where to read devices and cables: {SOURCE_NAMES}.", metavar="SOURCE"
    ),
    out: Path = typer.Option(
        Path("inventory.yaml"), "--out", "-o", help="inventory.yaml to write.", metavar="FILE"
    ),
    inputs: list[Path] | None = typer.Option(
        None,
        "--input",
        "-i",
        help="Ansible inventory (repeatable), Nornir SimpleInventory folder or AVD "
        "structured-config folder.",
        metavar="PATH",
    ),
    json_file: Path | None = typer.Option(
        None, "--json", help="Ansible: a saved `ansible-inventory --list` output.", metavar="FILE"
    ),
    url: str | None = typer.Option(
        None, "--url", help="NetBox/Nautobot base URL (https://netbox.example.com).", metavar="URL"
    ),
    token_env: str | None = typer.Option(
        None,
        "--token-env",
        help="Environment variable holding the API token (default NETBOX_TOKEN or NAUTOBOT_TOKEN).",
        metavar="NAME",
    ),
    mapping: Path | None = typer.Option(
        None,
        "--mapping",
        "-m",
        help="Mapping file: platforms, roles, groups, names, credentials.",
        metavar="FILE",
    ),
    site: list[str] | None = typer.Option(
        None, "--site", help="Only devices of this site (repeatable).", metavar="NAME"
    ),
    tag: list[str] | None = typer.Option(
        None, "--tag", help="Only devices with this tag (repeatable).", metavar="NAME"
    ),
    role: list[str] | None = typer.Option(
        None, "--role", help="Only devices of this role (repeatable).", metavar="NAME"
    ),
    name: str | None = typer.Option(
        None, "--name", help="The inventory's name (default: the folder's).", metavar="TEXT"
    ),
    schema: str | None = typer.Option(
        None,
        "--schema",
        help="Write a `$schema` line pointing at this inventory.json.",
        metavar="PATH",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would change; write nothing."),
) -> None:
    """Write inventory.yaml (devices with platform, role, host; links from cables) from a source.

    A re-import lists what changed against the existing file (+ added, - removed, ~ changed) and
    replaces it atomically; when the import fails the old file stays as it was. Exit 2 for bad
    input (a file, a flag, a refused token), 3 when the source could not be read (a server error
    or an unreachable server)."""
    from fabriclint.inventories import Filters, ImportRequest, SourceError, import_inventory

    request = ImportRequest(
        source=source,
        out=out,
        inputs=list(inputs or []),
        json_file=json_file,
        url=url,
        token_env=token_env,
        mapping=mapping,
        filters=Filters(sites=list(site or []), tags=list(tag or []), roles=list(role or [])),
        name=name,
        schema=schema,
        dry_run=dry_run,
    )
    try:
        result = import_inventory(request)
    except SourceError as exc:
        for message in exc.messages:
            echo(f"error: {message}", err=True)
        if exc.exit_code != 2:
            echo("error: nothing was written (the source could not be read completely)", err=True)
            raise typer.Exit(exc.exit_code) from None
        raise fail([]) from None
    for line in result.skipped:
        echo(f"skipped: {line}")
    if result.existed:
        for line in result.changes:
            echo(line)
    inv = result.inventory
    verb = "wrote" if result.written else "would write"
    what = f"{len(inv.devices)} devices, {len(inv.links)} links"
    changed = f" ({len(result.changes)} change(s))" if result.existed else ""
    echo(f"{verb} {out}: {what}{changed}")


def refresh_live(fabric: Path, offline: bool) -> None:
    """Before `check`, `collect` or `nightly`: refresh the cache of the fabric's live inventory
    source (inventory-source.yaml), if it has one, saying on stderr what was used. Exit 2 for
    a wrong source file, a refused token or `--offline` without a cache; exit 3 when the source
    cannot be read and no cache is fresh enough (see fabriclint/inventories/live.py)."""
    from fabriclint.loaders.fabric import has_source

    if not has_source(fabric):
        return
    from fabriclint.inventories import SourceError
    from fabriclint.inventories.live import refresh

    try:
        done = refresh(fabric, offline=offline)
    except SourceError as exc:
        for message in exc.messages:
            echo(f"error: {message}", err=True)
        if exc.exit_code != 2:
            echo("error: no inventory to check against (exit 3)", err=True)
            raise typer.Exit(exc.exit_code) from None
        raise fail([]) from None
    if done is not None:
        prefix = "warning: " if done.warning else ""
        echo(f"{prefix}{done.message}", err=True)


@app.command("refresh")
def refresh_(
    fabric: Path = typer.Argument(
        ..., help="Fabric directory with an inventory-source.yaml.", metavar="FABRIC"
    ),
) -> None:
    """Read the fabric's live inventory source now and rewrite its cache
    (FABRIC/.fabriclint/inventory-cache.yaml), as `check`, `collect` and `nightly` do first.

    Exit 2 for a wrong inventory-source.yaml or a refused token, 3 when the source cannot be
    read (a cache still fresh enough is then kept and named, exit 0)."""
    from fabriclint.loaders.fabric import has_source

    if not has_source(fabric):
        raise fail([f"{fabric}: no inventory-source.yaml (a fabric with a live inventory source)"])
    refresh_live(fabric, offline=False)
