"""GitLab Code Quality: the issue shape GitLab reads, unique fingerprints, incompleteness shown."""

from __future__ import annotations

import json

from fabriclint.reporters import get_reporter
from tests.reporters.fixtures import empty_report, pod_report, special_report

KEYS = {"description", "check_name", "fingerprint", "severity", "location"}


def test_every_issue_has_the_fields_gitlab_reads() -> None:
    for report in (pod_report(), special_report()):
        issues = json.loads(get_reporter("gitlab", anchor="fab/inventory.yaml")(report))
        assert isinstance(issues, list)
        for issue in issues:
            assert set(issue) == KEYS
            assert issue["severity"] in ("info", "minor", "major", "critical", "blocker")
            assert isinstance(issue["location"]["path"], str) and issue["location"]["path"]
            assert issue["location"]["lines"]["begin"] >= 1
        prints = [i["fingerprint"] for i in issues]
        assert len(prints) == len(set(prints))  # GitLab shows only the first of a fingerprint


def test_suppressed_left_out_unchecked_devices_are_blockers() -> None:
    report = pod_report()
    issues = json.loads(get_reporter("gitlab", anchor="fab/inventory.yaml")(report))
    active = [f for f in report.findings if f.suppressed is None]
    findings = [i for i in issues if i["severity"] != "blocker"]
    assert [i["fingerprint"] for i in findings] == [f.fingerprint for f in active]
    blockers = [i for i in issues if i["severity"] == "blocker"]
    assert [b["description"] for b in blockers] == [
        "leaf02 was not checked: unreachable: timed out after 30 s"
    ]
    assert blockers[0]["location"] == {"path": "fab/inventory.yaml", "lines": {"begin": 1}}
    assert json.loads(get_reporter("gitlab")(empty_report())) == []
