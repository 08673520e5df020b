"""The Ed25519 rule of PROTOCOL.md §2.4, pinned by third-party vectors (Wycheproof, speccheck).

The data in tests/protocol/data/ed25519/ is copied unchanged from upstream (SOURCES.md beside it,
Apache-2.0). A `cryptography`/OpenSSL upgrade that changed what verifies would fail here.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from zoo_p2p.protocol.crypto import check_public_key, public_key_from_bytes, verify_signature

DATA = Path(__file__).resolve().parent / "data" / "ed25519"
SPEC = Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md"
WYCHEPROOF = (
    "wycheproof-c2sp-ed25519_test.json",
    "wycheproof-google-v1-ed25519_test.json",
    "wycheproof-google-eddsa_test.json",
)


def _key_ok(pk: bytes) -> bool:
    try:
        check_public_key(pk)
    except ValueError:
        return False
    return True


def _sig_ok(pk: bytes, sig: bytes, msg: bytes) -> bool:
    try:
        pub = public_key_from_bytes(pk)
    except ValueError:  # OpenSSL cannot load it at all
        return False
    return verify_signature(pub, sig, msg)


def _verifier(pk: bytes, sig: bytes, msg: bytes) -> bool:
    """What a verifier does: the key was checked where it entered (genesis, hello), then §2.4."""
    return _key_ok(pk) and _sig_ok(pk, sig, msg)


def test_the_data_is_what_sources_md_says() -> None:
    sources = (DATA / "SOURCES.md").read_text()
    assert "Apache License" in (DATA / "LICENSE-Apache-2.0").read_text()
    for name in (*WYCHEPROOF, "speccheck-cases.json"):
        digest = hashlib.sha256((DATA / name).read_bytes()).hexdigest()
        assert re.search(rf"\| {re.escape(name)} \|.*\| {digest} \|", sources), name


@pytest.mark.parametrize("name", WYCHEPROOF)
def test_wycheproof(name: str) -> None:
    d: dict[str, Any] = json.loads((DATA / name).read_text())
    wrong = []
    n = 0
    for group in d["testGroups"]:
        pk = bytes.fromhex((group.get("publicKey") or group["key"])["pk"])
        for t in group["tests"]:
            assert t["result"] in ("valid", "invalid"), t  # no "acceptable" case in these files
            got = _verifier(pk, bytes.fromhex(t["sig"]), bytes.fromhex(t["msg"]))
            if got != (t["result"] == "valid"):
                wrong.append((t["tcId"], t["comment"], t["result"]))
            n += 1
    assert n == d["numberOfTests"]
    assert not wrong, wrong


def _spec_row(label: str) -> list[bool]:
    """The row of the speccheck table in PROTOCOL.md §2.4 whose first cell is `label`."""
    for line in SPEC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == label:
            assert all(c in ("V", "X") for c in cells[1:]) and len(cells) == 13, line
            return [c == "V" for c in cells[1:]]
    raise AssertionError(f"PROTOCOL.md has no speccheck row {label!r}")


def test_speccheck_rows_are_the_ones_the_spec_states() -> None:
    cases = json.loads((DATA / "speccheck-cases.json").read_text())
    assert len(cases) == 12
    triples = [
        (bytes.fromhex(c["pub_key"]), bytes.fromhex(c["signature"]), bytes.fromhex(c["message"]))
        for c in cases
    ]
    assert [_sig_ok(*t) for t in triples] == _spec_row("the signature check alone")
    assert [_verifier(*t) for t in triples] == _spec_row(
        "a genesis key check, then the signature (what a verifier does)"
    )
