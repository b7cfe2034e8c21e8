"""A plain `fabriclint check` runs without importing typer, rich, ruamel or DeepDiff, and gives
the same exit code, stdout, stderr and files as with typer loaded (typer's echo and Exit).

In-process tests always have typer loaded (CliRunner), so these run the console entry point in
a subprocess: once as a user does, once with typer imported first.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
POD = "inventories/roce-pod"
_RUN = (
    "import sys\n"
    "{preload}"
    "from fabriclint.cli import main\n"
    "sys.argv[0] = 'fabriclint'\n"
    "try:\n"
    "    main()\n"
    "finally:\n"
    "    loaded = [m for m in ('typer', 'rich', 'ruamel', 'deepdiff') if m in sys.modules]\n"
    "    open({marker!r}, 'w').write(' '.join(loaded))\n"
)


def _run(args: list[str], out: Path, preload: str) -> tuple[int, str, str, str, dict[str, str]]:
    out.mkdir()
    marker = out.parent / f"{out.name}.modules"
    code = _RUN.format(preload=preload, marker=str(marker))
    words = [a.replace("OUT", str(out)) for a in args]
    run = subprocess.run(
        [sys.executable, "-c", code, *words], cwd=ROOT, capture_output=True, text=True, check=False
    )
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(out.iterdir())}
    err = run.stderr.replace(str(out), "OUT")
    return run.returncode, run.stdout, err, marker.read_text(encoding="utf-8"), files


@pytest.mark.parametrize(
    "args",
    [
        ["check", POD, "--snapshot", "broken"],
        ["check", POD, "-s", "baseline", "--statistics"],
        ["check", POD, "-s", "broken", "--color", "-q"],
        ["check", POD, "-s", "broken", "-f", "json", "-o", "OUT/r.json", "--write-baseline",
         "OUT/b.json"],
        ["check", POD, "-s", "nosuch"],
        ["check", POD, "--configs", "OUT/none"],
        ["check", POD, "-s", "broken", "-o", "OUT/a.sarif"],
        ["check", POD, "-s", "broken", "README.md"],
    ],
)  # fmt: skip
def test_without_typer_the_same_as_with_it(args: list[str], tmp_path: Path) -> None:
    plain = _run(args, tmp_path / "plain", "")
    typer = _run(args, tmp_path / "typer", "import typer\n")
    assert plain[3] == ("rich" if "--color" in args else ""), plain  # rich only for color
    assert typer[3].startswith("typer")
    assert plain[:3] == typer[:3]
    assert plain[4] == typer[4]
    assert plain[0] in (0, 1, 2)
