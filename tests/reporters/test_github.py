"""GitHub workflow commands: one line per finding, escaped the way @actions/core escapes."""

from __future__ import annotations

import re

from fabriclint.reporters import github
from tests.reporters.fixtures import empty_report, pod_report, special_report

COMMAND = re.compile(r"^::(error|warning|notice)( [a-z]+=[^,:]*(,[a-z]+=[^,:]*)*)?::[^\r\n]*$")


def _unescape_property(value: str) -> str:
    """What the runner does (ActionCommand.UnescapeProperty)."""
    for code, char in (("%3A", ":"), ("%2C", ","), ("%0D", "\r"), ("%0A", "\n"), ("%25", "%")):
        value = value.replace(code, char)
    return value


def test_one_annotation_per_active_finding_plus_incomplete_coverage_and_summary() -> None:
    report = pod_report()
    lines = github.render(report).splitlines()
    active = [f for f in report.findings if f.suppressed is None]
    assert len(lines) == len(active) + 1 + len(report.coverage) + 1
    assert all(COMMAND.match(line) for line in lines[:-1])
    assert lines[-3] == (
        "::error title=fabriclint%3A incomplete check::"
        "leaf02 was not checked: unreachable: timed out after 30 s"
    )
    assert lines[-2] == (
        "::notice title=QOS008 coverage::QOS008 not (fully) evaluated on 2 devices "
        "(leaf01, spine01): missing the buffer configuration (lossless pool and priority-group "
        "headroom)"
    )
    assert lines[-1].startswith("fabriclint lab-pod: 4/6 devices checked (INCOMPLETE); 6 error(s)")
    assert not any("QOS004" in line for line in lines)  # suppressed: no annotation


def test_properties_and_severities() -> None:
    lines = github.render(pod_report()).splitlines()
    assert lines[1] == (
        "::error file=snapshots/candidate/gpu01/mlnx_qos_-i_ens1np0.txt,line=9,"
        "title=PFC002 rdma-priority-not-lossless::gpu01 interface ens1np0: "
        "RoCE DSCP 26 maps to priority 3 on ens1np0, which has no PFC"
    )
    assert lines[0].startswith("::error title=INV001 intent-invalid::inventory: ")
    notice = next(line for line in lines if "QOS006" in line)
    assert notice.startswith(
        "::notice file=snapshots/candidate/leaf01/show_running-config.txt,title="
    )


def test_escaping_of_data_and_properties() -> None:
    first = github.render(special_report()).splitlines()[0]
    assert COMMAND.match(first)
    props, message = first[len("::error ") :].split("::", 1)
    assert message.endswith('100%25, key: v%0D%0Anext\\x1b[0m "q"')  # ESC spelled out
    values = dict(p.split("=", 1) for p in props.split(","))
    assert _unescape_property(values["file"]) == "configs/odd dir/leaf_01%2Fx,y:z.cfg"
    assert values["line"] == "3"
    assert github.escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"
    assert github.escape_data("a:b,c%d\r\n") == "a:b,c%25d%0D%0A"


def test_empty_report_prints_only_the_summary() -> None:
    assert github.render(empty_report()) == (
        "fabriclint lab-pod: 1/1 devices checked (complete); 0 error(s), 0 warning(s), 0 info, "
        "0 suppressed\n"
    )
