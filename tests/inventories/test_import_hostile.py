"""`fabriclint inventory import --from netbox` against a NetBox that misbehaves (the stand-in
server on 127.0.0.1): each is a located error with its exit code, never an internal error, a
hang or a silently wrong inventory, and the old inventory.yaml stays as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inventories.netbox_server import netbox_data, serve
from tests.inventories.test_import import netbox_import

OLD = "name: old\ndevices: {}\n"


def _imported(tmp_path: Path, **misbehave: object) -> tuple[int, str]:
    """Import from a NetBox whose Data fields `misbehave` sets; the old file must survive."""
    (tmp_path / "inventory.yaml").write_text(OLD)
    data = netbox_data()
    for key, value in misbehave.items():
        setattr(data, key, value)
    with serve(data) as url:
        code, out = netbox_import(tmp_path, url)
    assert "internal error" not in out
    assert (tmp_path / "inventory.yaml").read_text() == OLD
    return code, out


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "NetBox answered JSON past a limit: "),
        (b'{"results": [], "count": ' + b"1" * 5000 + b"}", "NetBox answered JSON past a limit"),
        (b'{"results": [{"name": "\xff"}]}', "NetBox answered something that is not JSON"),
    ],
    ids=["deep", "huge-integer", "not-utf8"],
)
def test_a_page_past_the_input_limits_is_an_incomplete_read(
    tmp_path: Path, body: bytes, expected: str
) -> None:
    """A page nested 100,000 deep was a RecursionError: `internal error`."""
    code, out = _imported(tmp_path, raw_body=body)
    assert code == 3 and expected in out
    assert "/api/dcim/devices/" in out


def test_pages_that_loop_are_an_incomplete_read(tmp_path: Path) -> None:
    """A `next` naming the first page again took 10,000 requests, then named `://dcim/devices`."""
    code, out = _imported(tmp_path, loop=True, max_page=4)
    assert code == 3
    assert "/api/dcim/devices/: NetBox's next page was already read (its pages loop)" in out


def test_a_server_that_sends_a_byte_at_a_time_is_cut_at_the_timeout() -> None:
    """Each byte came before the socket timeout, so the import never ended (the page here
    takes ~60 s to send; the timeout is 1 s)."""
    import time

    from fabriclint.inventories.common import SourceError
    from fabriclint.inventories.netbox import Api
    from tests.inventories.netbox_server import TOKEN

    data = netbox_data()
    data.drip_s = 0.01
    with serve(data) as url:
        started = time.monotonic()
        with pytest.raises(SourceError) as caught:
            Api(url=url, token=TOKEN, timeout=1.0).pages("dcim/devices", {})
        assert time.monotonic() - started < 10
    assert caught.value.exit_code == 3
    assert "/api/dcim/devices/: NetBox did not send the page within 1 s" in caught.value.messages[0]


def test_two_devices_of_one_name_are_refused_not_merged(tmp_path: Path) -> None:
    """NetBox names are unique per site: the same name at two sites (no --site) kept only the
    last record, whose address the inventory then collected from."""
    import copy

    data = netbox_data()
    twin = copy.deepcopy(data.devices[0])
    twin["id"], twin["site"]["slug"] = 777, "pod-b"
    twin["primary_ip"]["address"] = "198.51.100.9/24"
    (tmp_path / "inventory.yaml").write_text(OLD)
    with serve(data.__class__(devices=[*data.devices, twin], cables=data.cables)) as url:
        code, out = netbox_import(tmp_path, url)
    assert code == 2
    assert f"device {twin['name']!r}: two devices of the source have this name" in out
    assert (tmp_path / "inventory.yaml").read_text() == OLD
