"""Hand-made reports the reporter tests render: a small pod, an empty run, and hostile text."""

from __future__ import annotations

from typing import Any

from fabriclint.models.common import Source
from fabriclint.models.finding import DeviceSummary, Finding, Gap, Report, Summary

RUN = "snapshots/candidate"


def src(device: str, file: str, line: int | None) -> Source:
    return Source(file=f"{RUN}/{device}/{file}", line=line)


def finding(
    rule: str, name: str, severity: Any, device: str | None, obj: str, **kw: Any
) -> Finding:
    kw.setdefault("path", obj.replace(" ", "."))
    kw.setdefault("message", f"{rule} on {obj}")
    return Finding(rule=rule, name=name, severity=severity, device=device, object=obj, **kw)


def report_for(findings: list[Finding], devices: list[DeviceSummary], **kw: Any) -> Report:
    """A Report whose summary is computed the way the engine computes it."""
    counts = {sev: 0 for sev in ("error", "warning", "info")}
    for f in findings:
        if f.suppressed is None:
            counts[f.severity] += 1
    complete = all(d.status in ("ok", "not-checked") for d in devices)
    summary = Summary(
        devices=len(devices),
        complete=complete,
        findings=counts,
        suppressed=sum(f.suppressed is not None for f in findings),
    )
    return Report(
        fabriclint="0.1.0",
        fabric=kw.pop("fabric", "lab-pod"),
        snapshot=kw.pop("snapshot", RUN),
        summary=summary,
        devices=devices,
        findings=findings,
        **kw,
    )


def _devices() -> list[DeviceSummary]:
    def dev(
        name: str, platform: str, role: str, status: str = "ok", error: str | None = None
    ) -> DeviceSummary:
        return DeviceSummary(name=name, platform=platform, role=role, status=status, error=error)

    return [
        dev("spine01", "eos", "spine"),
        dev("leaf01", "eos", "leaf"),
        dev("leaf02", "eos", "leaf", "unreachable", "timed out after 30 s"),
        dev("leaf03", "eos", "leaf"),
        dev("gpu01", "mlnx-host", "gpu"),
        dev("gpu02", "mlnx-host", "gpu", "not-checked", "hosts have no rendered config"),
    ]


def _pod_findings() -> list[Finding]:
    run_cfg = "show_running-config.txt"
    return [
        finding("INV001", "intent-invalid", "error", None, "inventory",
                path="inventory", message="the cabling plan names leaf09, which the inventory does not list"),
        finding("PFC002", "rdma-priority-not-lossless", "error", "gpu01", "interface ens1np0",
                path="rdma.ens1np0.pfc", expected=[3], actual=[],
                message="RoCE DSCP 26 maps to priority 3 on ens1np0, which has no PFC",
                source=src("gpu01", "mlnx_qos_-i_ens1np0.txt", 9)),
        finding("SITE001", "gpu-mtu-9000", "warning", "gpu01", "interface ens1np0",
                path="interfaces.ens1np0.mtu", actual=1500,
                message="GPU NICs run MTU 9000: interfaces.ens1np0.mtu: 1500 is not one of [9000]",
                source=src("gpu01", "ip_-d_link_show.txt", 4)),
        finding("DRIFT002", "setting-missing", "error", "leaf01", "qos",
                path="interfaces.*.roce_queue.ecn.max_bytes", expected=1500000,
                message="ECN maximum threshold is not configured on 4 ports (intent: 1500000)",
                source=src("leaf01", run_cfg, 30)),
        finding("DRIFT002", "setting-missing", "error", "leaf01", "qos",
                path="interfaces.*.roce_queue.ecn.min_bytes", expected=150000,
                message="ECN minimum threshold is not configured on 4 ports (intent: 150000)",
                source=src("leaf01", run_cfg, 30)),
        finding("ECN001", "lossless-queue-without-ecn", "error", "leaf01", "interface Ethernet1/1",
                message="lossless queue 3 on Ethernet1/1 has no ECN marking",
                source=src("leaf01", run_cfg, 214)),
        finding("QOS006", "unused-definition", "info", "leaf01", "qos-profile OLD",
                message="qos profile OLD is defined and applied nowhere",
                source=src("leaf01", run_cfg, None)),
        finding("DRIFT003", "device-missing", "error", "leaf02", "device", path="device",
                message="leaf02 was not checked: unreachable: timed out after 30 s"),
        finding("FAB003", "role-config-divergent", "warning", "spine01", "qos",
                path="profiles.ROCE.queues.3.ecn", message="spine01 marks ECN at 300000 B, its peers at 150000 B",
                source=src("spine01", run_cfg, 37)),
        finding("QOS004", "cnp-not-prioritized", "warning", "spine01", "qos-profile ROCE",
                message="CNP DSCP 48 lands in dwrr queue 6", source=src("spine01", run_cfg, 40),
                suppressed="CNP queue is dwrr by design until the ASIC upgrade (NET-1234)"),
    ]  # fmt: skip


def pod_report() -> Report:
    """Several devices, every severity, a suppressed finding, findings without a source or
    line, a site rule the registry does not know, a fabric-wide finding, an unreachable device
    and a device with no findings."""
    return report_for(
        _pod_findings(),
        _devices(),
        coverage=[
            Gap(
                rule="QOS008",
                missing="the buffer configuration (lossless pool and priority-group headroom)",
                devices=["leaf01", "spine01"],
            )
        ],
    )


def empty_report() -> Report:
    """A clean, complete run of one device."""
    devices = [DeviceSummary(name="leaf01", platform="eos", role="leaf", status="ok")]
    return report_for([], devices)


HOSTILE = (
    'a|b *bold* _u_ `tick` [x](http://e.x) <details></summary> & 100%, key: v\r\nnext\x1b[0m "q"'
)


def special_report() -> Report:
    """Markup, command and XML metacharacters in every text field a reporter prints."""
    devices = [DeviceSummary(name="leaf_01.dc1", platform="eos", role="leaf", status="ok")]
    findings = [
        finding("QOS005", "dangling-reference", "error", "leaf_01.dc1", "policy-map a|b,c:d",
                path="definitions.a|b", message=HOSTILE,
                source=Source(file="configs/odd dir/leaf_01%2Fx,y:z.cfg", line=3)),
        finding("PFC001", "pfc-priority-unused", "warning", "leaf_01.dc1", "policy-map a|b,c:d",
                path="definitions.x", message="same object, other path: " + HOSTILE,
                suppressed="reason with | and <b> and\nnewline"),
    ]  # fmt: skip
    return report_for(findings, devices, fabric="odd|fabric <x>")


CASES = {"pod": pod_report, "empty": empty_report, "special": special_report}
