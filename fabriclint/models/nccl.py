"""One nccl-tests run as fabriclint reads it (the `-J` JSON or the plain text output).

Bandwidths are nccl-tests' own GB/s (10^9 bytes per second), times microseconds. A field the
output does not show is None (the text output has no environment; `#wrong` is `N/A` when the
run did not check its data)."""

from pydantic import BaseModel, ConfigDict, Field

from fabriclint.models.common import Source

_STRICT = ConfigDict(extra="forbid", use_attribute_docstrings=True, defer_build=True)


class NcclSide(BaseModel):
    """The out-of-place or the in-place measurement of one size."""

    model_config = _STRICT

    time_us: float | None = None
    """Time of one operation, microseconds."""
    alg_bw: float | None = None
    """Algorithm bandwidth, GB/s."""
    bus_bw: float | None = None
    """Bus bandwidth, GB/s: what the links carried, comparable across rank counts."""
    nwrong: float | None = None
    """Wrong elements found by the data check (None: not checked)."""


class NcclResult(BaseModel):
    """One row of the results table: a message size."""

    model_config = _STRICT

    size: int
    """Message size in bytes."""
    type: str | None = None
    """Data type (float)."""
    redop: str | None = None
    """Reduction (sum), or none."""
    out_of_place: NcclSide | None = None
    in_place: NcclSide | None = None
    source: Source | None = None
    """The row's line in the text output (the results file for JSON)."""

    def best_bus_bw(self) -> float | None:
        """The higher of the out-of-place and in-place bus bandwidth (None when neither)."""
        found = [s.bus_bw for s in (self.out_of_place, self.in_place) if s and s.bus_bw is not None]
        return max(found) if found else None

    def wrong(self) -> float:
        """Wrong elements over both measurements (0 when unchecked)."""
        return sum(s.nwrong or 0 for s in (self.out_of_place, self.in_place) if s is not None)


class NcclRank(BaseModel):
    """One rank of the run: where it ran."""

    model_config = _STRICT

    rank: int
    hostname: str
    device: int | None = None
    """CUDA device number."""
    device_info: str | None = None
    """GPU name (NVIDIA H100 80GB HBM3)."""


class NcclRun(BaseModel):
    """A whole nccl-tests run."""

    model_config = _STRICT

    file: str
    """The results file, as given."""
    format: str
    """json or text."""
    version: int | None = None
    """The JSON file's format version."""
    test: str | None = None
    """Which test (all_reduce_perf), from the arguments or the text header."""
    nccl_version: int | None = None
    """NCCL library version code (22703 for 2.27.3)."""
    env: dict[str, str] | None = None
    """The process environment the JSON recorded (None for text output). Only NCCL_* and
    UCX_* variables are kept: the rest of an environment may hold secrets."""
    ranks: list[NcclRank] = Field(default_factory=list)
    results: list[NcclResult] = Field(default_factory=list)
    out_of_bounds: int | None = None
    """Values out of bounds over the run (nccl-tests' own data check)."""
    avg_bus_bw: float | None = None
    """The run's average bus bandwidth, GB/s."""
    errors: list[str] = Field(default_factory=list)
    """Errors NCCL reported at the end of the run."""
