"""LAN adverts are hostile input: every TXT field is checked and bounded (no sockets here)."""

from __future__ import annotations

import pytest

from zoo_p2p.net.discovery import _instance, parse_txt, txt_for
from zoo_p2p.net.invite import Invite, InviteError

KEY = bytes(range(1, 33))
FP = "IV7F-M2JN-KPTH-JXDE"
INV = Invite(host="10.0.0.5", port=4040, server_key=KEY, fingerprint=FP)


def props(**over: str | bytes | None) -> dict[bytes, bytes | None]:
    base: dict[str, str | bytes | None] = dict(
        txt_for(INV, name="ann", seats=3, taken=1, variant="standard")
    )
    base.update(over)
    return {
        k.encode(): (v.encode() if isinstance(v, str) else v)
        for k, v in base.items()
        if v is not None or k in over
    }


def test_a_good_advert_reads_back() -> None:
    a = parse_txt(props(), [("10.0.0.6", 4040), ("0.0.0.0", 4040), ("10.0.0.5", 4040)])
    assert (a.name, a.fingerprint, a.seats, a.taken, a.free, a.variant) == (
        "ann",
        FP,
        3,
        1,
        2,
        "standard",
    )
    # addresses from the A records are appended, bad or duplicate ones skipped
    assert a.invite.addresses == (("10.0.0.5", 4040), ("10.0.0.6", 4040))


@pytest.mark.parametrize(
    "over",
    [
        {"v": "2"},
        {"v": None},
        {"name": ""},
        {"name": "x" * 33},
        {"name": "a\x1b[31mb"},
        {"name": b"\xff\xfe"},
        {"seats": "5"},
        {"seats": "-2"},
        {"taken": "0"},
        {"taken": "4"},
        {"seats": "٣"},
        {"variant": "chess"},
        {"fp": "AAAA-BBBB-CCCC-DDDD"},
        {"inv": "zoo://-x:1/a/b"},
        {"inv": "x" * 300},
        {"inv": None},
    ],
)
def test_bad_adverts_are_dropped_with_a_reason(over: dict[str, str | bytes | None]) -> None:
    with pytest.raises((ValueError, InviteError, UnicodeDecodeError)):
        parse_txt(props(**over))


def test_markup_in_a_name_is_kept_as_data() -> None:
    """A name is data: shown literally later through shown(); here it is only bounded."""
    a = parse_txt(props(name="[link=http://x]h[/link]"))
    assert a.name == "[link=http://x]h[/link]"


def test_long_invites_are_trimmed_to_fit_a_txt_string() -> None:
    many = INV.with_addresses([(f"fd00::{i:x}:1234:5678", 40000 + i) for i in range(8)])
    txt = txt_for(many, name="n", seats=2, taken=1, variant="general")
    assert len(("inv=" + txt["inv"]).encode()) <= 255
    assert Invite.parse(txt["inv"]).addresses == many.addresses[: len(txt["inv"].split(","))]


def test_instance_labels_fit_63_bytes() -> None:
    assert len(_instance("é" * 40, FP).encode()) <= 63
    assert _instance("a.b\\c", FP) == f"a_b_c {FP}"
