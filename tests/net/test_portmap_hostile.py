"""A UPnP answer is hostile input (issue 18, item 9): any device on the LAN may answer the router
search. A bad answer means "no port mapping: …" and the host goes on without one; the external
address must be an IP address and is shown as data; the device description and SOAP answers are
read with a size cap and a deadline. The router here is tests/net/fake_igd.py on 127.0.0.1."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from rich.console import Console

from tests.net.fake_igd import FakeIGD
from zoo_p2p.cli import lan
from zoo_p2p.net import portmap
from zoo_p2p.net.portmap import MAX_DESCRIPTION, MappingError, PortMapper


@pytest.fixture
def igd() -> Iterator[FakeIGD]:
    with FakeIGD() as fake:
        yield fake


def _mapper(igd: FakeIGD, port: int = 32911) -> PortMapper:
    return PortMapper(port, lease=0, discover_ms=500, timeout=8, ssdp=igd.ssdp)


def test_a_sound_router_maps_and_unmaps(igd: FakeIGD) -> None:
    pm = _mapper(igd)
    m = pm.open()
    assert (m.external_ip, m.external_port, m.lan_ip, m.port) == (
        "203.0.113.7", 32911, "127.0.0.1", 32911,
    )  # fmt: skip
    add = [a for name, a in igd.calls if name == "AddPortMapping"]
    assert add == [
        {
            "NewExternalPort": "32911",
            "NewInternalClient": "127.0.0.1",
            "NewInternalPort": "32911",
            "NewLeaseDuration": "0",
            "NewProtocol": "TCP",
        }
    ]
    assert pm.close() is True
    assert [n for n, _ in igd.calls][-1] == "DeletePortMapping"


def test_a_refusal_says_why_and_a_port_clash_tries_nearby_ports(igd: FakeIGD) -> None:
    igd.refuse = "606"  # Action not authorized: another port will not help
    with pytest.raises(MappingError, match="refused to map TCP port 32911: 606 Action not"):
        _mapper(igd).open()
    assert [n for n, _ in igd.calls].count("AddPortMapping") == 1
    igd.refuse, igd.calls[:] = "718", []  # ConflictInMappingEntry: try a few nearby ports
    with pytest.raises(MappingError, match="refused to map TCP port 32911: 718 Conflict"):
        _mapper(igd).open()
    ports = [a["NewExternalPort"] for n, a in igd.calls if n == "AddPortMapping"]
    assert ports == ["32911", "32912", "32919", "32926", "32933"]


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("999.1.1.1", "the router's external address is not an IP address ('999.1.1.1')"),
        ("a b", "the router's external address is not an IP address ('a b')"),
        ("\x1b[2J\x1b[H", "the router does not tell its external address (the router's answer"),
        ("[red]x[/red]", "the router's external address is not an IP address ('[red]x[/red]')"),
        ("1.2.3.4 5.6.7.8", "the router's external address is not an IP address ('1.2.3.4 5"),
        ("0.0.0.0", "the router has no external address (is it online?)"),
    ],
)
def test_an_external_address_that_is_no_ip_address_means_no_mapping(
    igd: FakeIGD, monkeypatch: pytest.MonkeyPatch, bad: str, why: str
) -> None:
    """Was "bad host" ending `zoo host`, or the escape codes printed raw to the terminal. The
    mapper the CLI makes is the one that asks the fake router (`lan.PortMapper`, the name the
    CLI calls: patching `portmap.PortMapper` reached no router, and the line then said only
    that no router answered), and the line says what the router answered, literally."""
    igd.external_ip = bad
    out = io.StringIO()
    console = Console(file=out, width=200, no_color=True, highlight=False, force_terminal=False)
    pm = PortMapper(32911, lease=0, discover_ms=500, timeout=8, ssdp=igd.ssdp)
    monkeypatch.setattr(lan, "PortMapper", lambda port, **kw: pm)
    assert lan.map_port(console, 32911, ["192.0.2.2"]) == (None, None)
    said = out.getvalue()
    assert f"no port mapping: could not map port 32911 on the router: {why}" in said, said
    assert "\x1b" not in said and "forward TCP port 32911" in said, said
    assert [n for n, _ in igd.calls] == ["GetExternalIPAddress"]  # asked; nothing mapped


def test_a_huge_device_description_is_refused_after_the_cap(igd: FakeIGD) -> None:
    """Was: a 400 MB description grew the host by 446 MB (miniupnpc read it all)."""
    igd.endless_description = True
    with pytest.raises(MappingError, match=f"larger than {MAX_DESCRIPTION} bytes"):
        _mapper(igd).open()
    assert igd.served < 64 * 2**20  # it stopped reading: the kernel's buffers, not 400 MiB


def test_a_trickled_device_description_is_abandoned_at_the_deadline(
    igd: FakeIGD, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(portmap, "HTTP_TIMEOUT", 1.0)
    igd.slow_description = True
    with pytest.raises(MappingError, match=r"took more than 1 s|no usable UPnP"):
        _mapper(igd).open()


def test_a_huge_soap_answer_is_refused(igd: FakeIGD) -> None:
    igd.soap_padding = 10 * 2**20
    with pytest.raises(MappingError, match="larger than"):
        _mapper(igd).open()


def test_a_location_on_another_host_is_ignored(igd: FakeIGD) -> None:
    """The description URL must be on the address the answer came from (no fetching from
    anywhere a LAN device names)."""
    igd.location = "http://192.0.2.9:80/rootDesc.xml"
    with pytest.raises(MappingError, match="no UPnP router answered"):
        _mapper(igd).open()
    assert igd.searches > 0 and igd.served == 0


@pytest.mark.parametrize(
    "desc",
    [b"<root", b"\x1b[2J", b"<?xml version='1.0'?><!DOCTYPE r [<!ENTITY a 'aaaa'>]><r>&a;</r>"],
)
def test_a_description_that_is_no_igd_means_no_mapping(igd: FakeIGD, desc: bytes) -> None:
    igd.description = desc
    with pytest.raises(MappingError, match="no usable UPnP internet gateway"):
        _mapper(igd).open()


def test_a_control_url_on_another_host_is_refused(igd: FakeIGD) -> None:
    igd.control = "http://192.0.2.9/ctl"
    with pytest.raises(MappingError, match="control URL is on another host"):
        _mapper(igd).open()
    assert igd.calls == []
