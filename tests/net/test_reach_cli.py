"""Where the host listens, how the invite is printed, and refusals of bad invites (no network
beyond 127.0.0.1)."""

from __future__ import annotations

import io
import subprocess

import pytest
from rich.console import Console

from tests.net.harness import ZOO, Procs
from zoo_p2p.cli import lan
from zoo_p2p.errors import ZooError
from zoo_p2p.net.invite import Invite

KEY = bytes(range(1, 33))
FP = "IV7F-M2JN-KPTH-JXDE"


def test_listen_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lan, "interface_addresses", lambda: ["192.168.1.5", "fd00::5"])
    auto = lan.listen_plan(None, None)
    assert (auto.bind, auto.also_bind, auto.advertise) == (
        "127.0.0.1",
        ("192.168.1.5", "fd00::5"),
        ["192.168.1.5", "fd00::5"],
    )
    only = lan.listen_plan("127.0.0.1", None)
    assert (only.bind, only.also_bind, only.advertise) == ("127.0.0.1", (), ["127.0.0.1"])
    wild = lan.listen_plan("0.0.0.0", "vpn.example,100.64.0.7")
    assert (wild.bind, wild.advertise) == ("0.0.0.0", ["vpn.example", "100.64.0.7"])
    monkeypatch.setattr(lan, "interface_addresses", list)
    lonely = lan.listen_plan(None, None)
    assert lonely.advertise == ["127.0.0.1"] and lonely.notes


def test_printed_invite_never_wraps_at_80_columns() -> None:
    inv = Invite(
        host="192.168.100.200",
        port=40123,
        server_key=KEY,
        fingerprint=FP,
        also=(("fd00:1234:5678::abcd", 40123), ("203.0.113.77", 51234)),
    )
    buf = io.StringIO()
    lan.print_invite(Console(file=buf, width=80, color_system=None), inv, qr=True)
    lines = buf.getvalue().splitlines()
    body = [line for line in lines[1:] if line.startswith(("zoo://", "[", "f", "2")) or "/" in line]
    assert all(len(line) <= 80 for line in lines)
    text = "".join(line for line in lines[1:] if not set(line) <= set("█▀▄ "))
    assert Invite.parse(text) == inv
    assert body and all(len(line) <= 72 for line in body)


class _Ann:
    def __init__(self) -> None:
        self.taken: list[int] = []
        self.closed = False

    def update(self, taken: int) -> None:
        self.taken.append(taken)

    def close(self) -> None:
        self.closed = True


def test_the_lan_advert_counts_seats_and_is_withdrawn_when_the_table_is_full() -> None:
    ann = _Ann()
    advert = lan.LanAdvert()
    advert.announcer = ann  # type: ignore[assignment]
    advert.lobby_changed(2, 3)
    advert.game_started()
    assert ann.taken == [2] and advert.announcer is None
    reach = lan.Reach(advert=advert)
    reach.close()  # waits for the withdrawal under way (bounded)
    assert ann.closed and advert.unannouncing is None
    advert.lobby_changed(3, 3)  # a late lobby after the withdrawal: nothing to count
    assert ann.taken == [2]


def test_the_advert_of_a_table_that_admits_spectators_stays_full_until_the_game_ends() -> None:
    """`--spectators N > 0`: at the genesis the advert says every seat taken and stays on the
    LAN (so that `zoo watch` finds the game, TRANSPORT.md §3.3); it goes when the host ends."""
    ann = _Ann()
    advert = lan.LanAdvert(watchable=True)
    advert.announcer = ann  # type: ignore[assignment]
    advert.lobby_changed(2, 3)
    advert.game_started()
    assert ann.taken == [2, 3] and advert.announcer is ann and not ann.closed
    lan.Reach(advert=advert).close()
    assert ann.closed and advert.announcer is None


@pytest.mark.parametrize("bad", ["zoo://...:1/k/f", "zoo://-x:4040/k/f", "zoo://h:99999/k/f"])
def test_join_refuses_bad_invites_without_a_traceback(procs: Procs, bad: str) -> None:
    r = subprocess.run(
        [*ZOO, "bot", bad, "--give-up", "2"],
        capture_output=True,
        text=True,
        timeout=30,
        env=procs.env,
        cwd=procs.tmp,
    )
    assert r.returncode in (1, 2), r
    assert "Traceback" not in r.stderr and "ZMQError" not in r.stderr, r.stderr
    assert "bad host" in r.stderr or "bad port" in r.stderr, r.stderr


def test_a_loopback_host_says_where_it_listens_and_lists_only_that(procs: Procs) -> None:
    """What `zoo play` does (bind 127.0.0.1): listens there only, says so, announces nothing."""
    host, invite = procs.host("--players", "2", "--bot", "greedy", "--quiet")
    try:
        inv = Invite.parse(invite)
        assert inv.addresses == (("127.0.0.1", inv.port),)
    finally:
        host.kill()
        host.wait(5)
    host2 = procs.zoo(
        "host", "--bind", "127.0.0.1", "--players", "2", "--give-up", "1", name="loud"
    )
    procs.wait(host2, "loud", 30)
    out = procs.text("loud")
    assert "listening on 127.0.0.1:" in out and "10." not in out.split("listening on")[1][:40]


def test_an_invite_pasted_over_several_lines_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    inv = Invite(
        host="10.0.0.5", port=4040, server_key=KEY, fingerprint=FP, also=(("fd00::5", 4040),)
    )
    lines = iter(["  junk", "", *(f"  {line} " for line in inv.lines(40))])
    console = Console(file=io.StringIO(), width=80)
    monkeypatch.setattr(console, "input", lambda prompt="": next(lines))
    assert lan.paste_invite(console) == inv  # the junk is refused with a reason, then read
    assert "not an invite" in console.file.getvalue()  # type: ignore[attr-defined]
    monkeypatch.setattr(console, "input", lambda prompt="": "")
    with pytest.raises(ZooError, match="no invite"):
        lan.paste_invite(console)


class _FakeHost:
    def __init__(self) -> None:
        self.port = 4040
        self.listening = [("127.0.0.1", 4040), ("192.168.1.5", 4040)]
        self.not_listening = [("fd00::5", "Cannot assign requested address")]
        self.invite = Invite(host="127.0.0.1", port=4040, server_key=KEY, fingerprint=FP)


def _set_up(host: _FakeHost, plan: lan.ListenPlan, **kw: bool) -> tuple[lan.Reach, str]:
    """`set_up_host` for a 2-seat table named ann, no UPnP, no LAN advert; what it printed."""
    buf = io.StringIO()
    opts = {"qr": False, **kw}
    reach = lan.set_up_host(
        Console(file=buf, width=100, color_system=None),
        host,
        plan,
        advert=None,
        name="ann",
        players=2,
        variant="standard",
        upnp=False,
        announce=False,
        **opts,
    )
    return reach, buf.getvalue()


def test_an_address_that_cannot_be_bound_is_left_out_of_the_invite() -> None:
    """The host is built with every address to advertise (a constructor option, not set after
    the build): its invite names those it listens on, in order, and leaves out one it could
    not bind (192.0.2.55 is no address of this machine: the bind fails, nothing is sent)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from zoo_p2p.driver import NullDriver
    from zoo_p2p.net.peer import Host, HostOptions
    from zoo_p2p.protocol.crypto import fingerprint

    plan = lan.ListenPlan(
        bind="127.0.0.1", also_bind=("192.0.2.55",), advertise=["192.0.2.55", "127.0.0.1"]
    )
    host = Host(
        key=Ed25519PrivateKey.generate(),
        driver=NullDriver(),
        make_session=lambda g: None,  # type: ignore[arg-type,return-value]
        open_log=lambda s: None,  # type: ignore[arg-type,return-value]
        make_genesis=lambda lobby: b"",
        fingerprint=fingerprint,
        options=HostOptions(players=2, bind=plan.bind, also_bind=plan.also_bind),
        address=plan.advertise,
    )
    try:
        assert host.invite.addresses == (("127.0.0.1", host.port),)
        assert [h for h, _ in host.not_listening] == ["192.0.2.55"]
        reach, out = _set_up(host, plan)  # type: ignore[arg-type]
        assert reach.invite == host.invite and host.invite.addresses == (("127.0.0.1", host.port),)
        assert f"listening on 127.0.0.1:{host.port}" in out
        assert "cannot listen on 192.0.2.55" in out
    finally:
        host.close()


def test_the_invite_is_printed_only_when_a_seat_waits_for_a_person() -> None:
    """`zoo play` (every other seat one of its own bots) prints no invite to give away; a host
    with a seat open prints it, and `--qr` always shows it."""
    plan = lan.ListenPlan(bind="127.0.0.1", also_bind=(), advertise=["127.0.0.1"])
    outs = [
        _set_up(_FakeHost(), plan, qr=qr, show_invite=show)[1]
        for show, qr in ((True, False), (False, False), (False, True))
    ]
    assert "give this to the other players" in outs[0] and "127.0.0.1:4040/" in outs[0]
    assert "give this to the other players" not in outs[1] and "listening on" in outs[1]
    assert "give this to the other players" in outs[2]


def test_a_joiner_is_told_when_no_address_can_be_reached(monkeypatch: pytest.MonkeyPatch) -> None:
    import ipaddress

    monkeypatch.setattr(lan, "local_networks", lambda: [ipaddress.ip_network("192.168.1.0/24")])
    lan_only = Invite(host="10.88.1.2", port=4040, server_key=KEY, fingerprint=FP)
    assert "only the host's own network" in (lan.reach_hint(lan_only) or "")
    assert lan.reach_hint(lan_only.with_addresses([("192.168.1.9", 1)])) is None
    assert lan.reach_hint(lan_only.with_addresses([("10.88.1.2", 1), ("11.88.2.1", 1)])) is None
    assert lan.reach_hint(lan_only.with_addresses([("game.example", 1)])) is None
