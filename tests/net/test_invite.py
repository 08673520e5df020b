"""Invites that survive humans: validation, several addresses, line breaks, QR, probing."""

from __future__ import annotations

import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zoo_p2p.net.invite import Invite, InviteError, probe

KEY = bytes(range(1, 33))
FP = "IV7F-M2JN-KPTH-JXDE"
K52 = str(Invite(host="h", port=1, server_key=KEY, fingerprint=FP)).split("/")[3]


def inv(*addrs: tuple[str, int]) -> Invite:
    (h, p), *rest = addrs
    return Invite(host=h, port=p, server_key=KEY, fingerprint=FP, also=tuple(rest))


def test_old_single_address_invites_still_read() -> None:
    old = f"zoo://192.168.1.20:40123/{K52}/{FP}"
    i = Invite.parse(old)
    assert (i.host, i.port, i.also) == ("192.168.1.20", 40123, ())
    assert str(i) == old


def test_several_addresses_ipv6_and_names_round_trip() -> None:
    i = inv(("10.0.0.5", 4040), ("fd00::5", 4040), ("Zoo-Box.local", 4041))
    text = str(i)
    assert text.startswith("zoo://10.0.0.5:4040,[fd00::5]:4040,zoo-box.local:4041/")
    assert Invite.parse(text) == i
    assert i.addresses[1] == ("fd00::5", 4040)
    assert i.with_addresses([("fd00::5", 4040)]).endpoint == "tcp://[fd00::5]:4040"


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (f"zoo://...:1/{K52}/{FP}", "bad host"),
        (f"zoo://-x:1/{K52}/{FP}", "bad host"),
        (f"zoo://a..b:1/{K52}/{FP}", "bad host"),
        (f"zoo://x_y:1/{K52}/{FP}", "bad host"),
        (f"zoo://999.1.1.1:1/{K52}/{FP}", "not an IPv4"),
        (f"zoo://0.0.0.0:1/{K52}/{FP}", "cannot be connected"),
        (f"zoo://[::]:1/{K52}/{FP}", "cannot be connected"),
        (f"zoo://fd00::1:1/{K52}/{FP}", "brackets"),
        (f"zoo://[fd00::zz]:1/{K52}/{FP}", "IPv6"),
        (f"zoo://[fe80::1%eth0]:1/{K52}/{FP}", "IPv6"),
        (f"zoo://h:0/{K52}/{FP}", "1-65535"),
        (f"zoo://h:65536/{K52}/{FP}", "1-65535"),
        (f"zoo://h:+80/{K52}/{FP}", "1-65535"),
        (f"zoo://h:٨٠/{K52}/{FP}", "1-65535"),
        (f"zoo://h:1,h:1/{K52}/{FP}", "twice"),
        (f"zoo://{','.join(f'h{i}:1' for i in range(9))}/{K52}/{FP}", "too many"),
        (f"zoo://h:1/{'a' * 52}/{FP}", "all zeros"),
        (f"zoo://h:1/{K52[:-1]}/{FP}", "52 base32"),
        (f"zoo://h:1/{K52[:-1]}8/{FP}", "52 base32"),
        (f"zoo://h:1/{K52}/IV7F-M2JN-KPTH", "fingerprint"),
        (f"zoo://h:1/{K52}/IV7F-M2JN-KPTH-JXD1", "fingerprint"),
        ("zoo://h:1/" + "a" * 9000, "too long"),
        ("http://h:1/a/b", "starts with"),
        (f"zoo://h:1/{K52}", "looks like"),
    ],
)
def test_bad_invites_get_a_specific_reason(bad: str, why: str) -> None:
    with pytest.raises(InviteError, match=why):
        Invite.parse(bad)


def test_all_zero_key_only_when_asked_for() -> None:
    text = f"zoo://h:1/{'a' * 52}/{FP}"
    assert Invite.parse(text, allow_no_curve=True).server_key == bytes(32)


def test_stray_whitespace_and_line_breaks_are_forgiven() -> None:
    i = inv(("10.0.0.5", 4040), ("fd00::5", 4040))
    text = str(i)
    messy = "  '" + text[:17] + "\n  " + text[17:60] + " \r\n\t" + text[60:] + "'\n"
    assert Invite.parse(messy) == i
    assert Invite.parse(text.replace(FP, FP.lower())) == i


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["10.0.0.1", "fd00::abcd:1", "a.example", "x" * 40 + ".example"]),
            st.integers(1, 65535),
        ),
        min_size=1,
        max_size=8,
        unique=True,
    ),
    st.integers(64, 80),
)
@settings(max_examples=60, deadline=None)
def test_printed_lines_never_cut_a_token_and_join_back(
    addrs: list[tuple[str, int]], width: int
) -> None:
    i = inv(*addrs)
    lines = i.lines(width)
    assert all(len(line) <= width for line in lines)
    assert Invite.parse("\n".join(lines)) == i
    for line in lines[:-1]:  # every break is right after a separator
        assert line.endswith(("/", ","))
    assert max(len(line) for line in i.lines()) <= 72


def test_qr_is_drawn_within_80_columns() -> None:
    i = inv(("10.0.0.5", 4040), ("fd00::5", 4040))
    rows = i.qr().splitlines()
    assert 20 < len(rows) < 40
    assert max(len(r) for r in rows) <= 80
    assert set("".join(rows)) <= set("█▀▄ ")


def test_probe_picks_the_address_where_the_handshake_succeeds() -> None:
    """A dead address and one holding another key are passed over; the real host wins."""
    import zmq
    from zmq.utils import z85

    ctx = zmq.Context()
    servers = []
    try:
        keys = []
        for _ in range(2):
            pub, sec = zmq.curve_keypair()
            srv = ctx.socket(zmq.ROUTER)
            srv.setsockopt(zmq.LINGER, 0)
            srv.curve_server = True
            srv.curve_secretkey = sec
            srv.curve_publickey = pub
            port = srv.bind_to_random_port("tcp://127.0.0.1")
            servers.append(srv)
            keys.append((z85.decode(pub), port))
        (real_key, real_port), (_, other_port) = keys
        with socket.socket() as closed:
            closed.bind(("127.0.0.1", 0))
            dead = closed.getsockname()[1]
        i = Invite(
            host="127.0.0.1",
            port=dead,
            server_key=real_key,
            fingerprint=FP,
            also=(("127.0.0.1", other_port), ("127.0.0.1", real_port)),
        )
        winner, attempts = probe(i, timeout=15)  # generous: the suite may share 2 busy cores
        assert winner == ("127.0.0.1", real_port), attempts
        why = {a.address[1]: a.error for a in attempts}
        assert why[other_port] == "answered with another key"
        assert "no answer" in why[dead]
        winner, attempts = probe(i.with_addresses([("127.0.0.1", dead)]), timeout=0.5)
        assert winner is None and "no answer" in attempts[0].error
    finally:
        for srv in servers:
            srv.close(0)
        ctx.term()
