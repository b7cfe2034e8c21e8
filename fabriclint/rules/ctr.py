"""CTR rules: what the counters of a benchmark interval say about the lossless configuration.

They judge the deltas between two snapshots' counters (`fabriclint counters FABRIC BEFORE
AFTER`, see docs/counters.md) and yield nothing in a plain `check`, which has no interval. Each
finding cites both readings' source lines. A device whose counters went backwards or vanished
(CTR009) is left out of the others: its interval cannot be trusted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from pydantic import Field

from fabriclint.models.finding import Finding
from fabriclint.platforms import kind_of
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.ctr_data import (
    COUNTERS,
    CounterRun,
    Delta,
    delta,
    lossless_priorities,
    lossless_queues,
    port_of,
)
from fabriclint.rules.scope import StrictOptions

if TYPE_CHECKING:  # built only by `fabriclint counters`: a check need not build these models
    from fabriclint.models.counters import Counter, DeviceCounters, PortCounters

_CONFIG = "the device's configuration in the snapshot `counters` reads it from (--config)"


def _run(ctx: Context) -> CounterRun | None:
    found = ctx.memo.get(COUNTERS)
    return found if isinstance(found, CounterRun) else None


def _pairs(ctx: Context) -> Iterator[tuple[CounterRun, DeviceCounters, DeviceCounters]]:
    run = _run(ctx)
    if run is None:
        return
    for old, new in run.pairs():
        yield run, old, new


def _ports(old: DeviceCounters, new: DeviceCounters) -> Iterator[tuple[PortCounters, PortCounters]]:
    for name in sorted(new.ports):
        if name in old.ports:
            yield old.ports[name], new.ports[name]


def _pauses(a: PortCounters, b: PortCounters) -> Iterator[tuple[int, str, Delta]]:
    """(priority, direction, delta) of every pause counter read on both sides."""
    for prio in sorted(b.priorities):
        before = a.priorities.get(prio)
        for field, direction in (("rx_pause", "received"), ("tx_pause", "sent")):
            d = delta(
                f"{field.split('_')[0]}_prio{prio}_pause",
                getattr(before, field, None),
                getattr(b.priorities[prio], field),
            )
            if d is not None:
                yield prio, direction, d


def _grown(label: str, old: dict[str, Counter], new: dict[str, Counter]) -> list[Delta]:
    """The drop counters (by reason) that grew between the readings; `label` names each one
    (`{}` is the reason)."""
    found = []
    for reason in sorted(new):
        d = delta(label.format(reason), old.get(reason), new[reason])
        if d and d.value:
            found.append(d)
    return found


class _CounterRule(Rule[Any]):
    """Shared finding construction: message with both readings, rate, both sources."""

    command = "counters"

    def report(
        self, run: CounterRun, device: str, obj: str, path: str, message: str, deltas: list[Delta]
    ) -> Finding:
        evidence = "; ".join(d.lines() for d in deltas)
        return self.finding(
            device,
            obj,
            path,
            f"{message} over {run.interval_s:g} s ({evidence})",
            actual=[d.evidence(run.interval_s) for d in deltas],
            source=deltas[0].after.source if deltas else None,
        )


class PauseOnLossyPriority(_CounterRule):
    """PFC pause frames on a priority the port's configuration does not make lossless.

    Why: pauses on a priority without PFC mean the configuration and the traffic disagree: the
    peer (or this port) runs PFC on a priority this side treats as lossy, so the lossless class
    is not the one the configuration describes, and lossy traffic is being paused.
    Options: `max_frames` (default 0), the pause frames tolerated per port and priority.

    Failing: `Ethernet1/1` has PFC on priority 3 only and `txFrames` of priority 4 rose by 3,200.

    Passing: pauses only on priority 3, the configured lossless priority.
    """

    class Options(StrictOptions):
        """Options of CTR001."""

        max_frames: int = Field(default=0, ge=0)
        """Pause frames tolerated on a lossy priority per port over the interval."""

    code = "CTR001"
    name = "pause-on-lossy-priority"
    severity = "error"
    summary = "PFC pause frames on a priority that is not lossless in the configuration"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run, old, new in _pairs(ctx):
            state = ctx.states.get(new.name)
            for a, b in _ports(old, new):
                lossless = lossless_priorities(state, b.name)
                if lossless is None:
                    if b.priorities:
                        ctx.skip(self.code, new.name, _CONFIG)
                    continue
                for prio, direction, d in _pauses(a, b):
                    if prio not in lossless and d.value > self.options.max_frames:
                        message = (
                            f"{b.name} {direction} {d.value:,} PFC pause frames on priority {prio}, "
                            f"which its configuration does not make lossless (lossless: {sorted(lossless)})"
                        )
                        obj = f"interface {b.name} priority {prio}"
                        path = f"counters.{b.name}.priorities.{prio}.{direction}"
                        yield self.report(run, new.name, obj, path, message, [d])


class PfcStorm(_CounterRule):
    """A PFC storm: a port that kept its peer paused, named as the source.

    Why: a port that pauses without end (a stuck NIC receive path, a failing host) freezes the
    lossless class on the link and, through head-of-line blocking, across the fabric. The
    evidence: PFC watchdog storm detections (SONiC `pfcwd`), mlx5
    `tx_pause_storm_warning_events` / `tx_pause_storm_error_events` (the NIC's own storm
    guard), or a pause duration above a share of the interval. The source is the port that
    *sent* the pauses: the NIC itself for mlx5 storm events and `tx` duration, the far end of
    the cable for a switch watchdog detection or `rx` duration.
    Options: `max_pause_share_pct` (default 20): the share of the interval a priority may be
    paused.

    Failing: `tx_pause_storm_warning_events` of gpu02:ens1np0 rose by 3.

    Passing: no storm events and pauses under 20 % of the interval.
    """

    class Options(StrictOptions):
        """Options of CTR002."""

        max_pause_share_pct: float = Field(default=20.0, ge=0, le=100)
        """Largest share of the interval (percent) a priority may be paused."""

    code = "CTR002"
    name = "pfc-storm"
    severity = "error"
    summary = "A PFC storm (watchdog or NIC storm events, or pauses most of the interval), with its source"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run, old, new in _pairs(ctx):
            for a, b in _ports(old, new):
                by_source: dict[str, list[tuple[list[Delta], str]]] = {}
                for who, deltas, what in self._storms(run, a, b):
                    by_source.setdefault(who, []).append((deltas, what))
                for who, signs in sorted(by_source.items(), reverse=True):  # self first
                    src = self._source(ctx, new.name, b.name, who)
                    what = "; ".join(w for _d, w in signs)
                    message = f"PFC storm on {new.name}:{b.name} ({what}); source: {src}"
                    deltas = [d for ds, _w in signs for d in ds]
                    obj = f"interface {b.name}"
                    path = f"counters.{b.name}.storm.{who}"
                    yield self.report(run, new.name, obj, path, message, deltas)

    def _source(self, ctx: Context, device: str, port: str, who: str) -> str:
        if who == "self":
            return f"{device}:{port} (it sent the pauses)"
        peer = ctx.peer(device, port)
        far = (
            f"{peer[0]}:{peer[1]}" if peer else "the far end of the cable (not in the cabling plan)"
        )
        return f"{far} (it sent the pauses {device}:{port} received)"

    def _storms(
        self, run: CounterRun, a: PortCounters, b: PortCounters
    ) -> Iterator[tuple[str, list[Delta], str]]:
        """(source side, deltas, what) of every storm sign on one port."""
        for key, label in (
            ("storm_warning", "tx_pause_storm_warning_events"),
            ("storm_error", "tx_pause_storm_error_events"),
        ):
            d = delta(label, getattr(a, key), getattr(b, key))
            if d is not None and d.value > 0:
                yield "self", [d], f"the NIC's pause storm guard fired {d.value:,} time(s)"
        for queue, qc in sorted(b.queues.items()):
            before = a.queues.get(queue)
            d = delta(
                f"queue {queue} storm detected",
                before.storm_detected if before else None,
                qc.storm_detected,
            )
            if d is not None and d.value > 0:
                what = f"the PFC watchdog detected {d.value:,} storm(s) on queue {queue}"
                yield "peer", [d], what
        yield from self._durations(run, a, b)

    def _durations(
        self, run: CounterRun, a: PortCounters, b: PortCounters
    ) -> Iterator[tuple[str, list[Delta], str]]:
        limit = self.options.max_pause_share_pct / 100
        for prio, counters in sorted(b.priorities.items()):
            before = a.priorities.get(prio)
            for key, who, verb in (
                ("tx_pause_duration_us", "self", "paused its peer"),
                ("rx_pause_duration_us", "peer", "was paused"),
            ):
                label = f"{key.split('_')[0]}_prio{prio}_pause_duration"
                d = delta(label, getattr(before, key, None), getattr(counters, key))
                if d is not None and run.share(d.value) > limit:
                    share = f"{run.share(d.value) * 100:.0f} %"
                    what = f"priority {prio} {verb} {share} of the interval (limit {self.options.max_pause_share_pct:g} %)"
                    yield who, [d], what


class LosslessDrops(_CounterRule):
    """Drops or discards on a lossless class.

    Why: the lossless class exists so RoCE never loses a packet; a drop there means PFC did not
    hold (headroom too small, PFC off on one side, a watchdog dropping a stormed queue) and each
    one costs a go-back-N retransmission. Counted on NICs per priority (mlx5
    `rx_prioN_discards`, `_buf_discard`, `_cong_discard`) and on switches per queue (queue drops,
    WRED drops, watchdog drops) for the queues of the port's lossless traffic classes.
    Options: `max_drops` (default 0) per port and priority or queue.

    Failing: `rx_prio3_buf_discard` of gpu04:ens2np0 rose by 1,250 with PFC on priority 3.

    Passing: no drop counter of a lossless priority or queue moved.
    """

    class Options(StrictOptions):
        """Options of CTR003."""

        max_drops: int = Field(default=0, ge=0)
        """Drops tolerated per port and lossless priority (or queue) over the interval."""

    code = "CTR003"
    name = "lossless-drops"
    severity = "error"
    summary = "Drops or discards on a lossless priority or queue"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run, old, new in _pairs(ctx):
            state = ctx.states.get(new.name)
            for a, b in _ports(old, new):
                prios, queues = lossless_priorities(state, b.name), lossless_queues(state, b.name)
                if prios is None:
                    if b.priorities or b.queues:
                        ctx.skip(self.code, new.name, _CONFIG)
                    continue
                for where, deltas in self._drops(a, b, prios, queues or set()):
                    total = sum(d.value for d in deltas)
                    if total > self.options.max_drops:
                        message = f"{b.name} dropped {total:,} packet(s) on lossless {where}"
                        path = f"counters.{b.name}.drops.{where}"
                        yield self.report(
                            run, new.name, f"interface {b.name} {where}", path, message, deltas
                        )

    @staticmethod
    def _drops(
        a: PortCounters, b: PortCounters, prios: set[int], queues: set[int]
    ) -> Iterator[tuple[str, list[Delta]]]:
        for prio in sorted(prios & set(b.priorities)):
            old = a.priorities.get(prio)
            found = _grown(
                f"rx_prio{prio}_{{}}", old.drops if old else {}, b.priorities[prio].drops
            )
            if found:
                yield f"priority {prio}", found
        for queue in sorted(queues & set(b.queues)):
            old_q = a.queues.get(queue)
            found = _grown(
                f"queue {queue} {{}} drops", old_q.drops if old_q else {}, b.queues[queue].drops
            )
            if found:
                yield f"queue {queue}", found


class PausesWithoutEcn(_CounterRule):
    """Sustained pauses on the RoCE priority while the switch's RoCE queue marked nothing.

    Why: DCQCN should slow senders (ECN marks -> CNPs) long before buffers fill and PFC pauses
    the link; pauses with no ECN mark at all mean marking is off or its thresholds are above the
    PFC threshold, so PFC does all the congestion control (and storms, head-of-line blocking and
    victim flows follow).
    Options: `min_pauses` (default 1000): pause frames (sent and received, all ports) on the
    RoCE priority that count as sustained.

    Failing: leaf04 sent 48,000 pauses on priority 3 and queue 3 marked 0 packets on every port.

    Passing: pauses come with ECN marks on the RoCE queue.
    """

    class Options(StrictOptions):
        """Options of CTR004."""

        min_pauses: int = Field(default=1000, ge=0)
        """Pause frames on the RoCE priority (device-wide) that count as sustained congestion."""

    code = "CTR004"
    name = "pauses-without-ecn"
    severity = "error"
    summary = "Sustained pauses on the RoCE priority with no ECN marks on the RoCE queue"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run, old, new in _pairs(ctx):
            roce = ctx.roce(new.name)
            if roce is None or kind_of(new.platform) == "host":
                continue
            pauses = [
                d for a, b in _ports(old, new) for p, _dir, d in _pauses(a, b) if p == roce.priority
            ]
            total = sum(d.value for d in pauses)
            if total < self.options.min_pauses:
                continue
            marks = self._marks(ctx, old, new)
            if marks is None:
                ctx.skip(
                    self.code, new.name, "ECN queue counters in both snapshots (docs/counters.md)"
                )
                continue
            if sum(d.value for d in marks) == 0:
                top = max(pauses, key=lambda d: d.value)
                message = (
                    f"{new.name} counted {total:,} PFC pause frames on RoCE priority {roce.priority} "
                    f"and its RoCE queue marked no packet with ECN on any port"
                )
                path = f"counters.priorities.{roce.priority}.ecn"
                yield self.report(
                    run, new.name, f"priority {roce.priority}", path, message, [top, marks[0]]
                )

    @staticmethod
    def _marks(ctx: Context, old: DeviceCounters, new: DeviceCounters) -> list[Delta] | None:
        state = ctx.states.get(new.name)
        out = []
        for a, b in _ports(old, new):
            for queue in lossless_queues(state, b.name) or set():
                before, after = a.queues.get(queue), b.queues.get(queue)
                label = f"{b.name} queue {queue} ecn_marked"
                d = delta(
                    label,
                    before.ecn_marked if before else None,
                    after.ecn_marked if after else None,
                )
                if d is not None:
                    out.append(d)
        return out or None


def _rdma(old: DeviceCounters, new: DeviceCounters, name: str) -> Iterator[tuple[str, Delta]]:
    for key in sorted(new.rdma):
        if key in old.rdma:
            d = delta(name, old.rdma[key].counters.get(name), new.rdma[key].counters.get(name))
            if d is not None:
                yield key, d


def _hca_name(new: DeviceCounters, key: str) -> str:
    netdev = new.rdma[key].netdev
    return f"{key} ({netdev})" if netdev else key


class EcnWithoutCnp(_CounterRule):
    """ECN-marked RoCE packets arrived but the NIC sent no CNP.

    Why: the receiving NIC (the DCQCN notification point) must answer CE-marked packets with
    congestion notification packets so the sender slows down; marks with no CNP mean the NP is
    off (`ecn/roce_np/enable/P` = 0) or CNPs cannot be sent, and congestion control stops at
    the switch.
    Options: `min_marks` (default 1): ECN-marked packets that expect a CNP.

    Failing: `np_ecn_marked_roce_packets` of gpu01 mlx5_1 rose by 9,000 and `np_cnp_sent` by 0.

    Passing: CNPs sent rise with the marks.
    """

    class Options(StrictOptions):
        """Options of CTR005."""

        min_marks: int = Field(default=1, ge=1)
        """ECN-marked RoCE packets after which at least one CNP is expected."""

    code = "CTR005"
    name = "ecn-without-cnp"
    severity = "error"
    summary = "ECN-marked RoCE packets received but no CNP sent (notification point off)"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run, old, new in _pairs(ctx):
            sent = dict(_rdma(old, new, "np_cnp_sent"))
            for key, marked in _rdma(old, new, "np_ecn_marked_roce_packets"):
                cnp = sent.get(key)
                if marked.value < self.options.min_marks or cnp is None or cnp.value > 0:
                    continue
                message = f"{_hca_name(new, key)} received {marked.value:,} ECN-marked RoCE packets and sent no CNP"
                yield self.report(
                    run,
                    new.name,
                    f"HCA port {key}",
                    f"counters.rdma.{key}.np_cnp_sent",
                    message,
                    [marked, cnp],
                )


class CnpIgnored(_CounterRule):
    """The NIC ignored congestion notifications (`rp_cnp_ignored` rose).

    Why: a CNP the reaction point ignores is a slow-down request lost: the sender keeps its
    rate while the switch queue fills, so PFC ends up doing the congestion control. mlx5 ignores
    CNPs when DCQCN's reaction point is disabled for the priority (`ecn/roce_rp/enable/P` = 0)
    or the CNP arrives on a QP that cannot use it.
    Options: `max_ignored` (default 0).

    Failing: `rp_cnp_ignored` of gpu03 mlx5_0 rose by 420.

    Passing: `rp_cnp_ignored` did not move.
    """

    class Options(StrictOptions):
        """Options of CTR006."""

        max_ignored: int = Field(default=0, ge=0)
        """CNPs the reaction point may ignore over the interval."""

    code = "CTR006"
    name = "cnp-ignored"
    severity = "error"
    summary = "The NIC ignored congestion notifications (rp_cnp_ignored > 0)"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run, old, new in _pairs(ctx):
            for key, d in _rdma(old, new, "rp_cnp_ignored"):
                if d.value > self.options.max_ignored:
                    message = f"{_hca_name(new, key)} ignored {d.value:,} CNP(s)"
                    yield self.report(
                        run,
                        new.name,
                        f"HCA port {key}",
                        f"counters.rdma.{key}.rp_cnp_ignored",
                        message,
                        [d],
                    )


class TransportLoss(_CounterRule):
    """RoCE transport errors increased on a path that should be lossless.

    Why: `out_of_sequence` (packets arrived after a gap), `packet_seq_err` (NAKs for a sequence
    error) and `local_ack_timeout_err` (a request never acknowledged, retried) count packets the
    fabric lost; on a lossless RoCE fabric each is a drop somewhere on the path, and every one
    stalls the QP for a go-back-N retransmission or a timeout.
    Options: `counters` (default the three above) and `max_increase` (default 0) per counter.

    Failing: `out_of_sequence` of gpu04 mlx5_0 rose by 310.

    Passing: none of them moved.
    """

    class Options(StrictOptions):
        """Options of CTR007."""

        counters: list[str] = Field(
            default_factory=lambda: ["out_of_sequence", "packet_seq_err", "local_ack_timeout_err"]
        )
        """RDMA hw_counters that count transport loss."""
        max_increase: int = Field(default=0, ge=0)
        """Increase tolerated per counter over the interval."""

    code = "CTR007"
    name = "transport-loss"
    severity = "error"
    summary = (
        "RoCE transport errors (out_of_sequence, packet_seq_err, local_ack_timeout_err) increased"
    )
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run, old, new in _pairs(ctx):
            found: dict[str, list[Delta]] = {}
            for name in self.options.counters:
                for key, d in _rdma(old, new, name):
                    if d.value > self.options.max_increase:
                        found.setdefault(key, []).append(d)
            for key, deltas in sorted(found.items()):
                what = ", ".join(f"{d.label} +{d.value:,}" for d in deltas)
                message = f"{_hca_name(new, key)} lost packets on a lossless path: {what}"
                yield self.report(
                    run,
                    new.name,
                    f"HCA port {key}",
                    f"counters.rdma.{key}.transport",
                    message,
                    deltas,
                )


class LinkPauseMismatch(_CounterRule):
    """PFC frames one end of a cable sent differ from what the other end received.

    Why: every PFC frame a port sends arrives at its peer; when the switch's `tx` on a priority
    and the NIC's `rx` on it (or the other way) disagree beyond counting skew, one side counts
    on another priority (a priority map mismatch), drops pause frames (PFC off on the receiver
    for that priority), or a counter is not what it seems.
    Options: `tolerance_pct` (default 10) and `min_frames` (default 100): links where both
    counts are below `min_frames` are not compared.

    Failing: leaf01:Ethernet1/1 sent 50,000 pauses on priority 3 and gpu01:ens1np0 received 20,000.

    Passing: both ends within 10 %.
    """

    class Options(StrictOptions):
        """Options of CTR008."""

        tolerance_pct: float = Field(default=10.0, ge=0, le=100)
        """Largest difference (percent of the larger count) between the two ends."""
        min_frames: int = Field(default=100, ge=0)
        """Below this many frames at both ends the link is not compared."""

    code = "CTR008"
    name = "link-pause-mismatch"
    severity = "warning"
    summary = "PFC frames sent at one end of a cable differ from those received at the other"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        run = _run(ctx)
        if run is None:
            return
        for link in ctx.inventory.links:
            a, b = link.ends()
            for sender, receiver in ((a, b), (b, a)):
                yield from self._direction(run, sender, receiver)

    def _direction(
        self, run: CounterRun, sender: tuple[str, str], receiver: tuple[str, str]
    ) -> Iterator[Finding]:
        sent, sent_total = _side(run, sender, "tx")
        got, got_total = _side(run, receiver, "rx")
        common = sorted(set(sent) & set(got))
        pairs: list[tuple[int | None, Delta, Delta]] = [(p, sent[p], got[p]) for p in common]
        if not pairs and sent_total is not None and got_total is not None:
            pairs = [(None, sent_total, got_total)]  # one end counts only all priorities together
        for prio, tx, rx in pairs:
            if not self._differ(tx.value, rx.value):
                continue
            where = "all priorities" if prio is None else f"priority {prio}"
            message = (
                f"{sender[0]}:{sender[1]} sent {tx.value:,} PFC frames on {where} but "
                f"{receiver[0]}:{receiver[1]} received {rx.value:,} "
                f"(tolerance {self.options.tolerance_pct:g} %)"
            )
            obj = f"link {sender[0]}:{sender[1]} -> {receiver[0]}:{receiver[1]} {where}"
            path = f"counters.links.{sender[1]}.{receiver[0]}.{receiver[1]}.{prio}"
            yield self.report(run, sender[0], obj, path, message, [tx, rx])

    def _differ(self, tx: int, rx: int) -> bool:
        larger = max(tx, rx)
        if larger < self.options.min_frames:
            return False
        return bool(abs(tx - rx) * 100 > larger * self.options.tolerance_pct)


def _side(
    run: CounterRun, end: tuple[str, str], direction: str
) -> tuple[dict[int, Delta], Delta | None]:
    """Pause deltas of one link end by priority, and its all-priority total (the device's own
    total where it prints one, else the sum of its priorities)."""
    device, port = end
    pair = next(((o, n) for o, n in run.pairs() if n.name == device), None)
    a, b = (port_of(pair[0], port), port_of(pair[1], port)) if pair else (None, None)
    if a is None or b is None:
        return {}, None
    wanted = "sent" if direction == "tx" else "received"
    per_prio = {p: d for p, dirn, d in _pauses(a, b) if dirn == wanted}
    field = f"{direction}_pause_total"
    total = delta(field, getattr(a, field), getattr(b, field))
    if total is None and per_prio:
        total = _sum(per_prio.values(), direction)
    return per_prio, total


def _sum(deltas: Iterable[Delta], direction: str) -> Delta:
    items = list(deltas)
    first = items[0]
    before = first.before.model_copy(update={"value": sum(d.before.value for d in items)})
    after = first.after.model_copy(update={"value": sum(d.after.value for d in items)})
    return Delta(f"{direction}_pause (sum of priorities)", before, after)


class CounterRegression(Rule[NoOptions]):
    """A counter went backwards, wrapped or disappeared between the two snapshots.

    Why: counters fall when they are cleared (`sonic-clear`, `clear counters`), when a driver
    reloads or a device reboots, and a 32-bit counter wraps after 4,294,967,295; a counter
    disappears when PFC was turned off on its priority (mlx5) or the port went away. Either way
    the interval's deltas are not the benchmark's, so the device's interval is not trusted: its
    other CTR rules are not evaluated and the run is incomplete (exit 3).

    Failing: `rx_prio3_pause` 52,000 in BEFORE, 1,200 in AFTER.

    Passing: every counter of BEFORE is present and not lower in AFTER.
    """

    code = "CTR009"
    name = "counter-regression"
    severity = "error"
    command = "counters"
    summary = "A counter went backwards, wrapped or disappeared: the interval cannot be trusted"

    def check(self, ctx: Context) -> Iterator[Finding]:
        run = _run(ctx)
        for reg in run.regressions if run else ():
            after = f"{reg.after.value:,} at {reg.after.source}" if reg.after else "absent"
            why = {
                "backwards": "went backwards (cleared, driver reload or reboot?)",
                "wrapped": "went backwards near the top of its 32 bits (wrapped, or cleared)",
                "disappeared": "disappeared (PFC turned off on its priority, or the port went away?)",
            }[reg.kind]
            message = (
                f"{reg.label} {why}: {reg.before.value:,} at {reg.before.source} -> {after}; "
                f"the interval of {reg.device} cannot be trusted"
            )
            source: Counter = reg.after or reg.before
            yield self.finding(
                reg.device,
                reg.label,
                f"counters.{reg.label}",
                message,
                expected=f">= {reg.before.value}",
                actual=reg.after.value if reg.after else None,
                source=source.source,
            )


RULES: list[type[Rule[Any]]] = [
    PauseOnLossyPriority,
    PfcStorm,
    LosslessDrops,
    PausesWithoutEcn,
    EcnWithoutCnp,
    CnpIgnored,
    TransportLoss,
    LinkPauseMismatch,
    CounterRegression,
]
