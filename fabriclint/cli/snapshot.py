"""`fabriclint snapshot import` and `snapshot rehash`: snapshots from other collectors' outputs,
and checksums refreshed after a deliberate edit (see fabriclint/snapshot_import.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import typer

from fabriclint.cli.errors import echo, fail

app = typer.Typer(
    help="Snapshots from other collectors, merged host folders, and checksums after an edit.",
    no_args_is_help=True,
)


def _known_platforms(fabric: Path | None) -> dict[str, str]:
    """Device -> platform from the fabric's inventory (exit 2 when it does not load)."""
    if fabric is None:
        return {}
    from fabriclint.engine import option_models
    from fabriclint.loaders.fabric import FabricError, load_fabric

    try:
        loaded = load_fabric(fabric, option_models())
    except FabricError as exc:
        raise fail(exc.problems) from None
    return {name: d.platform for name, d in loaded.inventory.devices.items()}


@app.command("import")
def import_(
    source: Path = typer.Argument(
        ..., help="Folder of outputs (a folder per device, or flat files).", metavar="DIR"
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        help="Snapshot folder to create (default FABRIC/snapshots/import-<time>).",
        metavar="PATH",
    ),
    fabric: Path | None = typer.Option(
        None,
        "--fabric",
        "-f",
        help="Fabric whose inventory gives device names and platforms.",
        metavar="FABRIC",
    ),
    platform_map: list[str] | None = typer.Option(
        None,
        "--platform-map",
        "-p",
        help="GLOB=PLATFORM (repeatable, or comma-separated): leaf*=eos,gpu*=mlnx-host.",
        metavar="MAP",
    ),
) -> None:
    """Build a snapshot (manifest, checksums, command keys) from outputs another tool collected.

    Files that match no input of their device's platform are listed and left out."""
    from fabriclint.snapshot import SnapshotError
    from fabriclint.snapshot_import import import_outputs, parse_platform_map, write_imported

    if out is None:
        if fabric is None:
            raise fail(["give --out PATH (or --fabric FABRIC to write under its snapshots/)"])
        stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H%M%SZ")
        out = fabric / "snapshots" / f"import-{stamp}"
    try:
        platforms = parse_platform_map(list(platform_map or []), _known_platforms(fabric))
        found = import_outputs(source, platforms)
        write_imported(found, out)
    except SnapshotError as exc:
        raise fail([str(exc)]) from None
    except OSError as exc:
        raise fail([f"{out}: cannot write: {exc.strerror or exc}"]) from None
    for line in found.unknown:
        echo(f"not imported: {line}", err=True)
    files = sum(len(outputs) for _, outputs in found.devices.values())
    echo(
        f"wrote {out}: {len(found.devices)} devices, {files} files, {len(found.unknown)} not imported"
    )


@app.command("rehash")
def rehash(
    snapshot: Path = typer.Argument(
        ..., help="Snapshot folder (with manifest.json).", metavar="SNAPSHOT"
    ),
) -> None:
    """Refresh the manifest's sha256 of every listed file after a deliberate edit."""
    from fabriclint.snapshot import SnapshotError
    from fabriclint.snapshot_import import rehash as run_rehash

    try:
        result = run_rehash(snapshot)
    except SnapshotError as exc:
        raise fail([str(exc)]) from None
    except OSError as exc:
        raise fail([f"{snapshot}: cannot write the manifest: {exc.strerror or exc}"]) from None
    for line in result.changed:
        echo(f"rehashed {line}")
    for line in result.unlisted:
        echo(f"not in the manifest (left out): {line}", err=True)
    echo(f"{snapshot}: {len(result.changed)} checksum(s) updated")


@app.command("merge")
def merge(
    out: Path = typer.Argument(..., help="Snapshot folder to create.", metavar="OUT"),
    sources: list[Path] = typer.Argument(
        ...,
        help="Snapshots, host folders (`host snapshot`) or folders of host folders.",
        metavar="SOURCE...",
    ),
    fabric: Path | None = typer.Option(
        None,
        "--fabric",
        "-f",
        help="Fabric whose hosts must all be there: one no source holds is entered unreachable.",
        metavar="FABRIC",
    ),
) -> None:
    """Merge snapshots and `host snapshot` folders into one new snapshot (a device in two
    sources, or a file changed since it was written, is refused)."""
    from fabriclint.hostsnap import merge as run_merge
    from fabriclint.platforms import kind_of
    from fabriclint.snapshot import SnapshotError

    hosts = {n: p for n, p in _known_platforms(fabric).items() if kind_of(p) == "host"}
    try:
        merged = run_merge(out, list(sources), hosts, "no host folder in the merged sources")
    except SnapshotError as exc:
        raise fail([str(exc)]) from None
    except OSError as exc:
        raise fail([f"{out}: cannot write: {exc.strerror or exc}"]) from None
    for folder in merged.ignored:
        echo(f"ignored: {folder} (no host.json: a host snapshot that did not finish?)", err=True)
    for name in merged.missing:
        echo(f"unreachable: {name} (no host folder in the merged sources)", err=True)
    echo(f"wrote {merged.path}: {len(merged.devices)} devices, {len(merged.missing)} missing")
