"""The typed messages of TRANSPORT.md (`zoo_p2p.net.messages`): every frame the peers send
decodes to its dataclass and encodes back to the same bytes, and `decode` raises only
`WireError`, whatever it is given."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import sys

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.net.harness import START, Procs, wait_for
from zoo_p2p.net import mesh, messages, wire
from zoo_p2p.net.messages import WireError, decode, decode_mesh, encode
from zoo_p2p.protocol.crypto import public_key_bytes

PUB = public_key_bytes(Ed25519PrivateKey.generate())
HEAD = [7, bytes(range(32))]


def _transport_frames() -> list[bytes]:
    """One frame or more of every transport kind, made by the encoder the peers use, with
    the fields in the order of their call sites (peer.py, liveness.py)."""
    seats = [["Ada", "IV7F-M2JN-KPTH-JXDE", 0], ["[/]", "AAAA-BBBB-CCCC-DDDD", 1]]
    return [
        wire.pack("knock", v=wire.WIRE_VERSION),
        wire.pack(
            "hello",
            v=1,
            name="Ada",
            team=None,
            pub=PUB,
            curve=b"c" * 32,
            game=None,
            have=0,
            sig=b"s" * 64,
        ),
        wire.pack(
            "hello",
            v=1,
            name="Zoë",
            team=3,
            pub=PUB,
            curve=b"c" * 32,
            game=b"g" * 32,
            have=41,
            sig=b"s" * 64,
        ),
        wire.pack("welcome", v=1, pub=PUB, sig=b"s" * 64, seat=None),
        wire.pack("welcome", v=1, pub=PUB, sig=b"s" * 64, seat=2, hints=True),
        wire.pack("reject", reason="the game is full"),
        wire.pack("leave", reason="my invite names another host"),
        wire.pack("leave", reason=""),
        wire.pack("farewell"),
        wire.pack("lobby", seats=seats, need=2),
        wire.pack("lobby", seats=seats[:1], need=4, hints=True),
        wire.pack("entries", **{"from": 0, "e": [b"\x90", b"x" * 16384]}),
        wire.pack("entries", **{"from": 2**32 - 2, "e": [b"a"]}),
        wire.pack("sync", **{"from": 12}),
        wire.pack("presence", up=[True, False, True]),
        wire.pack("seats", state=["connected", "lost", "left"], lost=[0, 3, 0]),
        wire.pack("ping"),
        wire.pack("who"),
        wire.pack("done", have=80),
        wire.pack("bye"),
        wire.pack("mesh", m=b"\x81\xa1t\xa4card"),
        wire.pack("claim", vote=b"\x94\x01\x02\x03\xc4\x01x"),
        wire.pack("resign", r=b"\x93\x01\x02\x03", key=b""),
        wire.pack("links", l=[["tcp://10.0.0.2:40001", b"k" * 32]]),
        wire.pack(
            "links", l=[["tcp://[fe80::1]:1", b"k" * 32], ["tcp://a.example:65535", b"j" * 32]]
        ),
        wire.pack("links", l=[]),
    ]


def _mesh_frames() -> list[bytes]:
    """One frame or more of every mesh kind but `card`, from mesh.pack as mesh.py calls it."""
    return [
        mesh.pack("ent", **{"from": 3, "e": [b"e1", b"e2"], "h": HEAD}),
        mesh.pack("head", h=HEAD, up=[True, False, True, True]),
        mesh.pack("head", h=HEAD, up=[]),
        mesh.pack("get", **{"from": 5, "n": 64, "to": 3}),
        mesh.pack("proof", p=b"p" * 100),
        mesh.pack("vote", v=b"v" * 10),
        mesh.pack("resign", r=b"r" * 10),
    ]


def _card_frames() -> list[bytes]:
    from zoo_p2p.net.card_samples import card_vectors

    found: list[bytes] = []

    def walk(x: object) -> None:
        if isinstance(x, dict):
            if isinstance(x.get("message"), str):
                found.append(bytes.fromhex(x["message"]))
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(card_vectors())
    good = []
    for f in found:
        try:
            mesh.unpack(f)
        except WireError:
            continue  # the vectors' malformed cards
        good.append(f)
    return good


def _assert_round_trip(frame: bytes, kind_decoder: str) -> str:
    msg = decode(frame) if kind_decoder == "transport" else decode_mesh(frame)
    assert encode(msg) == frame, msg
    assert msgpack.unpackb(frame)["t"] == msg.T
    return msg.T


def test_every_transport_kind_round_trips_byte_for_byte() -> None:
    """encode(decode(x)) == x for frames of all 19 transport kinds, as the peers make them."""
    kinds = {_assert_round_trip(f, "transport") for f in _transport_frames()}
    assert kinds == set(wire._SCHEMA)


def test_every_mesh_kind_and_the_card_vectors_round_trip_byte_for_byte() -> None:
    """The same for the 7 mesh kinds and every well-formed card of protocol/vectors/cards.json
    (the signed card/v3 cards, with their counter, one endpoint and several)."""
    cards = _card_frames()
    assert len(cards) >= 2
    forms = {type(decode_mesh(c)).__name__ + type(decode_mesh(c).ep).__name__ for c in cards}  # type: ignore[union-attr]
    assert forms == {"MeshCardstr", "MeshCardtuple"}
    kinds = {_assert_round_trip(f, "mesh") for f in [*_mesh_frames(), *cards]}
    assert kinds == {"card", "ent", "head", "get", "proof", "vote", "resign"}


def test_decoded_fields_are_typed_and_frozen() -> None:
    """A handler gets dataclass fields, not a map: `from` is `start`, lists are tuples, a head is
    (seq, hash), an absent optional field is None; nothing can be assigned or added."""
    e = decode(wire.pack("entries", **{"from": 4, "e": [b"a", b"b"]}))
    assert e == messages.Entries(start=4, e=(b"a", b"b"))
    lobby = decode(wire.pack("lobby", seats=[["Ada", "AAAA", 2]], need=2))
    assert lobby == messages.Lobby(seats=(("Ada", "AAAA", 2),), need=2, hints=None)
    h = decode_mesh(mesh.pack("head", h=HEAD, up=[True]))
    assert h == messages.MeshHead(h=(7, bytes(range(32))), up=(True,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.start = 5  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        e.extra = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        messages.Sync(3)  # type: ignore[call-arg]  # keyword-only
    for cls in [*messages._TRANSPORT_CLASSES, *messages._MESH_CLASSES]:
        assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
        assert "__slots__" in cls.__dict__


@pytest.mark.parametrize(
    "bad",
    [
        {"t": "claim", "vote": b"v" * (messages.MAX_VOTE + 1)},  # §4: vote ≤ 4096
        {"t": "resign", "r": b"r", "key": b"k" * 31},  # §4: key 0 or 32 bytes
        {"t": "hello", "v": 1},
        {"t": "nope"},
        {"t": "sync", "from": 2**32},
        {"t": "presence", "up": [1]},
    ],
)
def test_decode_refuses_what_the_spec_refuses(bad: dict[str, object]) -> None:
    """Field checks happen at decode: lengths and ranges of §4, as a WireError."""
    with pytest.raises(WireError):
        decode(msgpack.packb(bad, use_bin_type=True))
    with pytest.raises(WireError):
        encode(messages.Claim(vote=b"v" * (messages.MAX_VOTE + 1)))


def _samples() -> list[bytes]:
    return [*_transport_frames(), *_mesh_frames(), *_card_frames()]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_decode_raises_only_wire_error_on_arbitrary_bytes(data: bytes) -> None:
    """Any bytes: a message or WireError, from both decoders and the statement unpacker."""
    for fn in (decode, decode_mesh, messages.unpack_statement):
        with contextlib.suppress(WireError):
            fn(data)


_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=True)
    | st.text(max_size=40)
    | st.binary(max_size=80),
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(sorted({*wire._SCHEMA, "card", "ent", "head", "get", "proof", "vote"})),
    st.dictionaries(
        st.sampled_from(
            [
                "v",
                "name",
                "team",
                "pub",
                "curve",
                "game",
                "have",
                "sig",
                "seat",
                "reason",
                "seats",
                "need",
                "hints",
                "from",
                "e",
                "up",
                "state",
                "lost",
                "m",
                "vote",
                "r",
                "key",
                "n",
                "ep",
                "skey",
                "h",
                "to",
                "p",
                "x",
            ]
        ),
        _VALUES,
        max_size=9,
    ),
)
def test_decode_raises_only_wire_error_on_maps_of_known_kinds(
    kind: str, fields: dict[str, object]
) -> None:
    """Maps with a known `t` and hostile fields of any type (the shape a fuzzer reaches least
    by flipping bits): a message or WireError."""
    data = msgpack.packb({"t": kind, **fields}, use_bin_type=True)
    for fn in (decode, decode_mesh):
        try:
            msg = fn(data)
        except WireError:
            continue
        assert encode(msg)  # what decodes also encodes


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=0),
    st.lists(
        st.tuples(st.integers(0, 2), st.integers(0), st.binary(max_size=8)), min_size=1, max_size=4
    ),
)
def test_decode_raises_only_wire_error_on_mutated_valid_frames(
    pick: int, edits: list[tuple[int, int, bytes]]
) -> None:
    """Valid frames with bits flipped, cut short or grown: a message or WireError."""
    samples = _SAMPLES
    data = bytearray(samples[pick % len(samples)])
    for op, at, extra in edits:
        i = at % max(1, len(data))
        if op == 0 and data:
            data[i] ^= 1 << (at % 8)
        elif op == 1:
            del data[i:]
        else:
            data[i:i] = extra
    for fn in (decode, decode_mesh):
        with contextlib.suppress(WireError):
            fn(bytes(data))


_SAMPLES = _samples()


def test_a_real_games_frames_all_round_trip(procs: Procs) -> None:
    """A 2-seat bot game in real processes, every frame its sockets send recorded (tests/net/
    wiretap.py): each decodes (ROUTER and DEALER frames as transport messages, PUB frames as
    mesh messages, the `m` of a tunnel as a mesh message) and encodes back to its bytes."""
    tap = procs.tmp / "tap"
    procs.env["ZOO_WIRETAP"] = str(tap)
    prelude = (
        "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "import tests.net.wiretap\n"
        "from zoo_p2p.cli.app import main; main()"
    )
    zoo = [sys.executable, "-c", prelude]
    inv = procs.tmp / "host.invite"
    host = procs.start(
        [
            *zoo,
            "host",
            "--bind",
            "127.0.0.1",
            "--invite-file",
            str(inv),
            "--log",
            str(procs.tmp / "host.zoolog"),
            "--quiet",
            "--players",
            "2",
            "--bot",
            "greedy",
        ],
        name="host",
    )
    wait_for(lambda: inv.exists() or host.poll() is not None, START, "the invite")
    bot = procs.start(
        [
            *zoo,
            "bot",
            inv.read_text().strip(),
            "--log",
            str(procs.tmp / "bot.zoolog"),
            "--quiet",
            "--level",
            "random",
        ],
        name="bot",
    )
    assert procs.wait(bot, "bot") == 0, procs.text("bot")
    assert procs.wait(host, "host") == 0, procs.text("host")
    kinds: set[str] = set()
    for line in tap.read_text().splitlines():
        sock_type, _, hexed = line.partition(" ")
        frame = bytes.fromhex(hexed)
        msg: messages.Message | messages.MeshMessage
        if int(sock_type) in (5, 6):  # DEALER, ROUTER: the transport
            msg = decode(frame)
            if isinstance(msg, messages.Tunnel):
                kinds.add("mesh:" + _assert_round_trip(msg.m, "mesh"))
        elif int(sock_type) in (1, 9):  # PUB, XPUB (our publisher since 069cd57): the direct links
            msg = decode_mesh(frame)
        else:
            continue
        assert encode(msg) == frame, msg
        kinds.add(msg.T)
    assert {"knock", "hello", "welcome", "lobby", "entries", "mesh", "mesh:card"} <= kinds, kinds
    assert {"ent", "head"} & kinds, kinds


def test_the_joiners_tables_drop_what_they_lack_and_say_why(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Before the host's welcome only `welcome`, `who`, `reject` (and pings) count: an `entries`
    is ignored and the log says so. Once seated, a joiner's own message coming from the host
    (`done`, `hello`, `knock`: the wrong direction, TRANSPORT.md §4) is dropped, counted and
    named (before: ignored without a word or a count)."""
    from tests.net.test_hints_welcome import _unwelcomed, _welcome

    host = Ed25519PrivateKey.generate()
    j, _, sent = _unwelcomed(host, False)
    try:
        with caplog.at_level(logging.WARNING, logger="zoo_p2p.net"):
            j._on_msg(decode(wire.pack("entries", **{"from": 0, "e": [b"x"]})))
            assert "ignored 'entries' before the host's welcome" in caplog.text
            assert j.session is None and sent == []
            j._on_msg(_welcome(host, signed=False, says=False))
            assert [m["t"] for m in sent] == ["links", "hello"]  # its publisher's hint first
            before = j.dropped
            j._on_msg(decode(wire.pack("done", have=3)))
            assert j.dropped == before + 1
            assert "dropped 'done' from the host: a joiner's message" in caplog.text
            j._on_msg(decode(wire.pack("ping")))
            assert j.dropped == before + 1 and j.stopped is None
    finally:
        j.close()
