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

    from fabriclint.inventories.common import SourceError
    from fabriclint.inventories.netbox import Api
    from tests.inventories.netbox_server import TOKEN

    data = netbox_data()
    data.drip_s = 0.01
    with serve(data) as url, pytest.raises(SourceError) as caught:  # not the page ~60 s on
        Api(url=url, token=TOKEN, timeout=1.0).pages("dcim/devices", {})
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


@pytest.mark.parametrize(
    ("file", "text", "message"),
    [
        ("hosts.yaml", "leaf01:\n  groups: 5\n", "2:11: groups: not a list of group names"),
        ("groups.yaml", "g:\n  groups: 7\n", "2:11: groups: not a list of group names"),
        (
            "hosts.yaml",
            "leaf01:\n  groups: [g]\n  data: {ethernet_interfaces: 5}\n",
            "3:31: data.ethernet_interfaces: not a list of interfaces",
        ),
        (
            "groups.yaml",
            "g:\n  data:\n    fabriclint_peers: [Et1]\n",
            "3:23: data.fabriclint_peers: not a mapping of port to 'device:port'",
        ),
    ],
    ids=["host-groups", "group-groups", "interfaces", "peers"],
)
def test_nornir_a_list_or_mapping_of_another_shape_is_located(
    tmp_path: Path, file: str, text: str, message: str
) -> None:
    """`groups: 5` or `ethernet_interfaces: 5` was a TypeError (an internal error)."""
    from tests.inventories.test_import import run

    (tmp_path / "hosts.yaml").write_text("leaf01:\n  groups: [g]\n  platform: eos\n")
    (tmp_path / "groups.yaml").write_text("g:\n  data: {role: leaf}\n")
    (tmp_path / file).write_text(text)
    code, out = run("--from", "nornir", "-i", str(tmp_path), "--out", str(tmp_path / "inv.yaml"))
    assert code == 2 and "internal error" not in out
    assert f"{tmp_path / file}:{message}" in out
    assert not (tmp_path / "inv.yaml").exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"all": {"children": 5}}, "group all: children: not a list (int)"),
        ({"g": {"hosts": 3}}, "group g: hosts: not a list (int)"),
        (
            {"_meta": {"hostvars": {"leaf01": {"ethernet_interfaces": 7}}}},
            "host leaf01: ethernet_interfaces: not a list (int)",
        ),
        (
            {"_meta": {"hostvars": {"leaf01": {"fabriclint_peers": "Et1"}}}},
            "host leaf01: fabriclint_peers: not a mapping of port to 'device:port'",
        ),
    ],
    ids=["children", "hosts", "interfaces", "peers"],
)
def test_ansible_a_list_of_another_shape_is_named(
    tmp_path: Path, data: dict[str, object], message: str
) -> None:
    """`children: 5` in a saved `ansible-inventory --list` was a TypeError (an internal error)."""
    import json

    from tests.inventories.test_import import run

    saved = tmp_path / "inventory.json"
    saved.write_text(json.dumps(data))
    code, out = run("--from", "ansible", "--json", str(saved), "--out", str(tmp_path / "i.yaml"))
    assert code == 2 and "internal error" not in out
    assert f"{saved}: {message}" in out


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("device-tags", "device spine01 (id 1): tags: not a list (int)"),
        ("cable-ends", "cable 1: a_terminations: not a list (int)"),
    ],
)
def test_netbox_a_field_of_another_shape_is_an_incomplete_read(
    tmp_path: Path, where: str, message: str
) -> None:
    """`"tags": 5` or `"a_terminations": 5` in an answer was a TypeError (an internal error)."""
    data = netbox_data()
    if where == "device-tags":
        data.devices[0]["tags"] = 5
    else:
        data.cables[0]["a_terminations"] = 5
    (tmp_path / "inventory.yaml").write_text(OLD)
    with serve(data) as url:
        code, out = netbox_import(tmp_path, url)
    assert code == 3 and "internal error" not in out and message in out
    assert (tmp_path / "inventory.yaml").read_text() == OLD
