"""Junos `class-of-service` statements: what each section defines, references and sets.

Handlers receive the words after `class-of-service SECTION`; a statement a handler cannot model
is reported as unparsed (block headers never are: their children say what they hold).
"""

from __future__ import annotations

from collections.abc import Callable

from fabriclint.parsers.junos.draft import (
    Classifier,
    Cnp,
    CosPort,
    Draft,
    DropProfile,
    ForwardingClass,
    Lined,
    Scheduler,
    SchedulerMap,
)
from fabriclint.parsers.junos.text import Stmt
from fabriclint.parsers.junos.values import to_float, to_int

Words = tuple[str, ...]
Handler = Callable[[Draft, Words, Stmt], None]

MODELED_CLASSIFIERS = ("dscp", "dscp-ipv6", "ieee-802.1")
_REWRITE = "egress rewrite rules other than DSCP code points by forwarding class are not modeled"
_MAIN_UNITS = ("", "*", "0")
_ETS = "hierarchical (ETS) scheduling is not modeled"


def unmodeled(d: Draft, st: Stmt, reason: str = "not modeled") -> None:
    """Report `st` as unparsed unless it only opens a block."""
    if not st.opens:
        d.skip(" ".join(st.words), reason, st.line)


def cos_statement(d: Draft, st: Stmt) -> None:
    """One statement under `class-of-service`."""
    words = st.words
    if len(words) < 3:
        if len(words) == 2:
            unmodeled(d, st, f"class-of-service {words[1]} is not modeled")
        return
    handler = _SECTIONS.get(words[1])
    if handler is None:
        unmodeled(d, st, f"class-of-service {words[1]} is not modeled")
    else:
        handler(d, words[2:], st)


# ---- classifiers and aliases ---------------------------------------------------------------------


def _classifier(d: Draft, rest: Words, st: Stmt) -> None:
    if len(rest) < 2:
        return unmodeled(d, st)
    kind, name, tail = rest[0], rest[1], rest[2:]
    found = d.classifiers.get((kind, name))
    if found is None:
        found = d.classifiers[(kind, name)] = Classifier(kind, name, st.line)
        d.define(f"{kind}-classifier", name, st.line)
    by = f"{kind}-classifier {name}"
    if kind not in MODELED_CLASSIFIERS:
        return unmodeled(d, st, f"{kind} classifiers are not modeled")
    if len(tail) == 2 and tail[0] == "import":
        found.imports = Lined(tail[1], st.line)
        if tail[1] != "default":
            d.refer(f"{kind}-classifier", tail[1], by, st.line)
    elif len(tail) >= 2 and tail[0] == "forwarding-class":
        d.refer("forwarding-class", tail[1], by, st.line)
        if len(tail) >= 6 and tail[2] == "loss-priority" and tail[4] == "code-points":
            found.entries.extend((tail[1], tail[3], point, st.line) for point in tail[5:])
        elif len(tail) > 4:
            unmodeled(d, st)
    elif tail:
        unmodeled(d, st)
    return None


def _aliases(d: Draft, rest: Words, st: Stmt) -> None:
    if len(rest) == 3 and rest[2] and set(rest[2]) <= {"0", "1"}:
        d.aliases[(rest[0], rest[1])] = int(rest[2], 2)
    else:
        unmodeled(d, st, "code-point alias not understood")


# ---- forwarding classes ------------------------------------------------------------------------


def _forwarding_classes(d: Draft, rest: Words, st: Stmt) -> None:
    if len(rest) >= 2 and rest[0] == "class":
        name, options = rest[1], rest[2:]
    elif len(rest) >= 3 and rest[0] == "queue" and to_int(rest[1]) is not None:
        name, options = rest[2], ("queue-num", rest[1], *rest[3:])
    else:
        return unmodeled(d, st)
    found = d.classes.get(name)
    if found is None:
        found = d.classes[name] = ForwardingClass(name, st.line)
        d.define("forwarding-class", name, st.line)
    if not _class_options(found, options, st.line):
        unmodeled(d, st, "forwarding-class option not modeled")
    return None


def _class_options(fc: ForwardingClass, options: Words, line: int) -> bool:
    """Apply `queue-num N`, `no-loss`, `pfc-priority P`; False when an option is not understood."""
    index = 0
    while index < len(options):
        key = options[index]
        value = to_int(options[index + 1]) if index + 1 < len(options) else None
        if key == "no-loss":
            fc.no_loss, index = line, index + 1
        elif key in ("queue-num", "pfc-priority") and value is not None:
            setattr(fc, "queue" if key == "queue-num" else "pfc_priority", Lined(value, line))
            index += 2
        else:
            return False
    return True


# ---- congestion notification profiles (PFC) ----------------------------------------------------


def _cnp(d: Draft, rest: Words, st: Stmt) -> None:
    name, tail = rest[0], rest[1:]
    found = d.cnps.get(name)
    if found is None:
        found = d.cnps[name] = Cnp(name, st.line)
        d.define("congestion-notification-profile", name, st.line)
    key = tail[0] if tail else ""
    if key == "pfc-watchdog":
        _watchdog(d, found, tail[1:], st)
    elif key == "input" and len(tail) > 1 and tail[1] in ("ieee-802.1", "dscp"):
        _cnp_input(d, found, tail[1], tail[2:], st)
    elif key == "output" and len(tail) > 1 and tail[1] == "ieee-802.1":
        _cnp_output(d, found, tail[2:], st)
    elif tail:
        unmodeled(d, st)


def _cnp_input(d: Draft, cnp: Cnp, kind: str, tail: Words, st: Stmt) -> None:
    """`code-point X [Y ...] pfc [mru N]`."""
    if "pfc" not in tail or tail[:1] != ("code-point",):
        return unmodeled(d, st)
    end = tail.index("pfc")
    target = cnp.input_dscp if kind == "dscp" else cnp.input_pcp
    target.extend(Lined(point, st.line) for point in tail[1:end])
    if len(tail) > end + 1:
        unmodeled(d, st, "PFC MRU (headroom sizing) is not modeled")
    return None


def _cnp_output(d: Draft, cnp: Cnp, tail: Words, st: Stmt) -> None:
    """`code-point X flow-control-queue Q [R ...]`: queues that pause on priority X."""
    if len(tail) >= 4 and tail[0] == "code-point" and tail[2] == "flow-control-queue":
        queues = [to_int(q) for q in tail[3:]]
        if all(q is not None for q in queues):
            cnp.output.extend((tail[1], q, st.line) for q in queues if q is not None)
            return
    unmodeled(d, st)


_WATCHDOG_OPTIONS = ("detection", "poll-interval", "recovery", "recovery-time", "watchdog-action")


def _watchdog(d: Draft, cnp: Cnp, tail: Words, st: Stmt) -> None:
    if cnp.watchdog is None:
        cnp.watchdog = st.line
    if not tail:
        return
    if len(tail) == 2 and tail[0] in _WATCHDOG_OPTIONS:
        key = "recovery" if tail[0] == "recovery-time" else tail[0]
        cnp.watchdog_options[key] = Lined(tail[1], st.line)
    else:
        unmodeled(d, st, "PFC watchdog option not modeled")


# ---- drop profiles, schedulers, scheduler maps -------------------------------------------------


def _drop_profile(d: Draft, rest: Words, st: Stmt) -> None:
    name, tail = rest[0], rest[1:]
    found = d.drop_profiles.get(name)
    if found is None:
        found = d.drop_profiles[name] = DropProfile(name, st.line)
        d.define("drop-profile", name, st.line)
    values = [to_float(v) for v in tail[2:]] if len(tail) > 2 else []
    numbers = [v for v in values if v is not None]
    curve = tail[1] if tail[:1] == ("interpolate",) and len(tail) > 2 else ""
    if curve in ("fill-level", "drop-probability") and len(numbers) == len(values):
        attr = "fill" if curve == "fill-level" else "probability"
        setattr(found, attr, Lined(numbers, st.line))
        return
    if len(tail) == 4 and tail[0] == "fill-level" and tail[2] == "drop-probability":
        fill, probability = to_float(tail[1]), to_float(tail[3])
        if fill is not None and probability is not None:
            found.points.append((fill, probability, st.line))
            return
    if tail and tail != ("interpolate",):
        unmodeled(d, st, "drop profile statement not understood")


def _scheduler(d: Draft, rest: Words, st: Stmt) -> None:
    name, tail = rest[0], rest[1:]
    found = d.schedulers.get(name)
    if found is None:
        found = d.schedulers[name] = Scheduler(name, st.line)
        d.define("scheduler", name, st.line)
    key = tail[0] if tail else ""
    if key == "transmit-rate" and len(tail) >= 3 and tail[1] == "percent":
        rate = to_float(tail[2])
        if rate is not None and tail[3:] in ((), ("exact",)):
            found.rate = Lined(rate, st.line)
            return
    elif key == "priority" and len(tail) == 2:
        found.priority = Lined(tail[1], st.line)
        return
    elif key == "drop-profile-map" and _drop_map(d, found, tail[1:], st):
        return
    elif key == "explicit-congestion-notification" and len(tail) == 1:
        found.ecn = st.line
        return
    if tail:
        unmodeled(d, st, f"scheduler {key} is not modeled")


def _drop_map(d: Draft, scheduler: Scheduler, tail: Words, st: Stmt) -> bool:
    """`loss-priority LP protocol P drop-profile DP`."""
    options = dict(zip(tail[::2], tail[1::2], strict=False))
    profile = options.get("drop-profile")
    if profile is None or len(tail) % 2:
        return False
    scheduler.drops.append((options.get("loss-priority", "any"), profile, st.line))
    d.refer("drop-profile", profile, f"scheduler {scheduler.name}", st.line)
    return True


def _scheduler_map(d: Draft, rest: Words, st: Stmt) -> None:
    name, tail = rest[0], rest[1:]
    found = d.scheduler_maps.get(name)
    if found is None:
        found = d.scheduler_maps[name] = SchedulerMap(name, st.line)
        d.define("scheduler-map", name, st.line)
    by = f"scheduler-map {name}"
    if len(tail) >= 2 and tail[0] == "forwarding-class":
        d.refer("forwarding-class", tail[1], by, st.line)
    if len(tail) == 4 and tail[0] == "forwarding-class" and tail[2] == "scheduler":
        found.entries.setdefault(tail[1], Lined(tail[3], st.line))
        d.refer("scheduler", tail[3], by, st.line)
    elif tail:
        unmodeled(d, st)


# ---- interfaces --------------------------------------------------------------------------------


def _interface(d: Draft, rest: Words, st: Stmt) -> None:
    name, tail = rest[0], rest[1:]
    found = d.cos_ports.get(name)
    if found is None:
        found = d.cos_ports[name] = CosPort(name, st.line)
        d.define("cos-interface", name, st.line)
    by = f"interface {name}"
    key = tail[0] if tail else ""
    if key in ("congestion-notification-profile", "scheduler-map") and len(tail) == 2:
        attr = "cnp" if key == "congestion-notification-profile" else "scheduler_map"
        setattr(found, attr, Lined(tail[1], st.line))
        d.refer(key, tail[1], by, st.line)
    elif key == "classifiers" and len(tail) == 3:
        _apply_classifier(d, found, "", tail[1:], st)
    elif key == "unit" and len(tail) >= 2:
        _unit(d, found, tail[1], tail[2:], st)
    elif key == "forwarding-class-set":
        kinds = ("forwarding-class-set", "traffic-control-profile")
        for kind, value in zip(kinds, tail[1::2], strict=False):
            d.refer(kind, value, by, st.line)
        unmodeled(d, st, _ETS)
    elif tail:
        unmodeled(d, st)


def _unit(d: Draft, port: CosPort, unit: str, tail: Words, st: Stmt) -> None:
    by = f"interface {port.name}"
    key = tail[0] if tail else ""
    if key == "classifiers" and len(tail) == 3:
        _apply_classifier(d, port, unit, tail[1:], st)
    elif key == "rewrite-rules" and len(tail) == 3:
        d.refer(f"{tail[1]}-rewrite-rule", tail[2], by, st.line)
        _bind_rewrite(d, port, unit, tail[1:], st)
    elif key == "forwarding-class" and len(tail) == 2:
        d.refer("forwarding-class", tail[1], by, st.line)
        unmodeled(d, st, "fixed classification (every packet to one class) is not modeled")
    elif tail:
        unmodeled(d, st)


def _apply_classifier(d: Draft, port: CosPort, unit: str, pair: Words, st: Stmt) -> None:
    kind, name = pair
    if name != "default":
        d.refer(f"{kind}-classifier", name, f"interface {port.name}", st.line)
    if kind in MODELED_CLASSIFIERS:
        port.classifiers.setdefault(kind, []).append((unit, Lined(name, st.line)))
    else:
        unmodeled(d, st, f"{kind} classifiers are not modeled")


# ---- buffers, rewrite rules, ETS objects -------------------------------------------------------


def _shared_buffer(d: Draft, rest: Words, st: Stmt) -> None:
    """Ingress `buffer-partition lossless|lossless-headroom percent 0` is modeled (0 bytes)."""
    partition = rest[2] if len(rest) == 5 else ""
    value = to_float(rest[4]) if len(rest) == 5 else None
    written = rest[:2] == ("ingress", "buffer-partition") and rest[3:4] == ("percent",)
    if written and partition in ("lossless", "lossless-headroom") and value == 0:
        d.buffers[partition] = Lined(value, st.line)
        return
    unmodeled(d, st, "shared-buffer percentages are not converted to bytes (buffer size unknown)")


def _bind_rewrite(d: Draft, port: CosPort, unit: str, pair: Words, st: Stmt) -> None:
    """`unit U rewrite-rules dscp NAME`: the main unit's DSCP rule is the port's rewrite."""
    if pair[0] != "dscp" or unit not in _MAIN_UNITS:
        return unmodeled(d, st, _REWRITE)
    if port.rewrite is None or _MAIN_UNITS.index(unit) == 0:
        port.rewrite = Lined(pair[1], st.line)
    return None


def _rewrite(d: Draft, rest: Words, st: Stmt) -> None:
    """`rewrite-rules dscp NAME forwarding-class FC loss-priority LP code-point CP` (Juniper,
    "Configuring Rewrite Rules": the code point written into packets of FC leaving an
    interface the rule is bound to)."""
    kind, name, tail = rest[0], rest[1] if len(rest) > 1 else "", rest[2:]
    if not name:
        return unmodeled(d, st, _REWRITE)
    d.define(f"{kind}-rewrite-rule", name, st.line)
    entries = d.rewrites.setdefault(name, []) if kind == "dscp" else None
    if len(tail) >= 2 and tail[0] == "forwarding-class":
        d.refer("forwarding-class", tail[1], f"{kind}-rewrite-rule {name}", st.line)
    written = len(tail) == 6 and tail[2] == "loss-priority" and tail[4] == "code-point"
    if entries is not None and tail[:1] == ("forwarding-class",) and written:
        entries.append((tail[1], tail[3], tail[5], st.line))
        return None
    return unmodeled(d, st, _REWRITE) if tail else None


def _ets(kind: str, refers: dict[str, str]) -> Handler:
    """Handler of `traffic-control-profiles` / `forwarding-class-sets`: names only."""

    def handle(d: Draft, rest: Words, st: Stmt) -> None:
        name, tail = rest[0], rest[1:]
        d.define(kind, name, st.line)
        if len(tail) >= 2 and tail[0] in refers:
            d.refer(refers[tail[0]], tail[1], f"{kind} {name}", st.line)
        if tail:
            unmodeled(d, st, _ETS)

    return handle


_SECTIONS: dict[str, Handler] = {
    "classifiers": _classifier,
    "code-point-aliases": _aliases,
    "forwarding-classes": _forwarding_classes,
    "congestion-notification-profile": _cnp,
    "drop-profiles": _drop_profile,
    "schedulers": _scheduler,
    "scheduler-maps": _scheduler_map,
    "interfaces": _interface,
    "shared-buffer": _shared_buffer,
    "rewrite-rules": _rewrite,
    "traffic-control-profiles": _ets("traffic-control-profile", {"scheduler-map": "scheduler-map"}),
    "forwarding-class-sets": _ets("forwarding-class-set", {"class": "forwarding-class"}),
}
