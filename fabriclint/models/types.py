"""Constrained types shared by the user-facing models (intent, inventory, policy)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

Dscp = Annotated[int, Field(ge=0, le=63, description="DSCP code point, 0-63.")]
Priority = Annotated[int, Field(ge=0, le=7, description="802.1p priority, 0-7.")]
TrafficClass = Annotated[int, Field(ge=0, le=7, description="Traffic class, 0-7.")]
Mtu = Annotated[int, Field(ge=576, le=65535, description="MTU in bytes.")]
RoceMtu = Annotated[
    Literal[256, 512, 1024, 2048, 4096],
    Field(description="RoCE/IB path MTU in bytes: 256, 512, 1024, 2048 or 4096."),
]
Percent = Annotated[float, Field(ge=0, le=100, description="Percent, 0-100.")]
Bytes = Annotated[int, Field(ge=0, description="A size in bytes.")]
Millis = Annotated[float, Field(ge=0, description="A time in milliseconds.")]
Port = Annotated[int, Field(ge=1, le=65535, description="TCP port.")]
RuleCode = Annotated[
    str,
    Field(
        pattern=r"^[A-Z]+[0-9]{0,3}$",
        description="A rule code (PFC002) or a prefix of one (PFC, PFC00).",
    ),
]
