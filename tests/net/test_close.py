"""Closing a peer never hangs: a monitored socket stops being monitored before the PAIR that
reads its events closes (libzmq#3575, the order `invite.probe` uses), and close is bounded.
In-process peers on 127.0.0.1, bounded waits."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import zmq
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.net import invite as invite_mod
from zoo_p2p.net import peer as peer_mod
from zoo_p2p.net.peer import Host, HostOptions, Joiner, JoinOptions, NullDriver
from zoo_p2p.protocol.crypto import fingerprint


class _Rec:
    """A socket stand-in that writes down what is done to it."""

    def __init__(self, name: str, calls: list[str], *, monitored: bool = True) -> None:
        self.name, self.calls, self.monitored = name, calls, monitored

    def disable_monitor(self) -> None:
        if not self.monitored:
            raise zmq.ZMQError(zmq.EINVAL)
        self.calls.append(f"{self.name}.disable_monitor")

    def close(self, linger: int | None = None) -> None:
        self.calls.append(f"{self.name}.close({linger})")


def test_close_monitored_stops_the_monitor_then_closes_the_pair_then_the_socket() -> None:
    calls: list[str] = []
    invite_mod.close_monitored(_Rec("sock", calls), _Rec("pair", calls), linger=200)
    assert calls == ["sock.disable_monitor", "pair.close(0)", "sock.close(200)"]
    calls.clear()  # a socket whose monitor already stopped (or none at all) still closes
    invite_mod.close_monitored(_Rec("sock", calls, monitored=False), None)
    assert calls == ["sock.close(0)"]


def _parts() -> dict[str, Any]:
    return {
        "key": Ed25519PrivateKey.generate(),
        "driver": NullDriver(),
        "make_session": lambda g: None,
        "open_log": lambda s: None,
    }


def test_host_and_joiner_close_their_monitored_sockets_safely_and_in_bounded_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A joiner connected to a host (monitor events flowing on both sides): each closes its
    socket through `close_monitored` with its own monitor, and the whole close ends in bound."""
    seen: list[tuple[Any, Any]] = []
    real = invite_mod.close_monitored

    def spy(sock: Any, mon: Any, *, linger: int = 0) -> None:
        seen.append((sock, mon))
        real(sock, mon, linger=linger)

    monkeypatch.setattr(peer_mod, "close_monitored", spy)
    host = Host(
        make_genesis=lambda lobby: b"",
        fingerprint=fingerprint,
        options=HostOptions(players=2),
        **_parts(),
    )
    joiner = Joiner(
        host.invite, fingerprint=fingerprint, options=JoinOptions(give_up=5), **_parts()
    )
    from zmq.utils.monitor import recv_monitor_message

    joiner.monitor.rcvtimeo = 5000  # bounded: the joiner's handshake with the host
    deadline = time.monotonic() + 10
    while recv_monitor_message(joiner.monitor)["event"] != zmq.EVENT_HANDSHAKE_SUCCEEDED:
        assert time.monotonic() < deadline, "no handshake with the host"
    done: list[str] = []

    def close_both() -> None:
        joiner.close()
        host.close()
        done.append("closed")

    t = threading.Thread(target=close_both, daemon=True)
    t.start()
    t.join(10)
    assert done == ["closed"], "close did not end within 10 s"
    assert [s for s, _ in seen] == [joiner.sock, host.sock]
    assert [m for _, m in seen] == [joiner.monitor, host.monitor]
    assert joiner.monitor.closed and host.monitor.closed
    assert joiner.ctx.closed and host.ctx.closed
