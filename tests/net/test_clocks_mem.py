"""Clocks and claims (PROTOCOL.md §10) in memory: the peer cores of tests/net/memnet.py on a
fake clock, run by the same stallers as the real-process tests (tests/net/staller.py: its
`Stalling` joiner, `Dropping` host, `CountingSession` and greedy `Driver`), with the same small
clocks (move 3 s, reveal 2 s) in the genesis. What tests/net/test_clocks.py ran as processes
over sockets, bar its smoke case (a staller at a move, a real claim over real links), runs here
in milliseconds, and every assertion on the logs is the same one.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.net import staller
from tests.net.memnet import MemHost, MemJoiner, MemNet
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.protocol.liveness import Clocks


class MemStaller(staller.Stalling, MemJoiner):
    """The staller's joiner, as an in-memory core."""


class MemDropping(staller.Dropping, MemHost):
    """The staller's dropping host, as an in-memory core."""


class LazySession(staller.CountingSession):
    """The `--no-stand-in` host's session: appends no stand-in entry itself."""

    lazy = True


class Driver(staller.Driver):
    """The staller's driver (greedy, or stalling by `mode`), keeping what it is told."""

    def __init__(self, mode: str) -> None:
        super().__init__(mode)
        self.notices: list[str] = []
        self.stalled = False
        self.stalled_at: float | None = None  # the fake clock when we first held a move up

    def on_notice(self, text: str) -> None:
        self.notices.append(text)
        super().on_notice(text)

    def on_turn(self, link: Any) -> None:
        """The staller's answer, one loop turn later (as a process's next turn: else a whole
        game would run inside one delivery, and a resigner stop only after its end)."""
        if self.mode == "move" and not self.stalled:
            self.stalled, self.stalled_at = True, link.now
        link.call_later(0.0, lambda: self._turn(link))

    def _turn(self, link: Any) -> None:
        if link.stopped is None and link.my_turn:
            super().on_turn(link)


def _game(
    modes: list[str],
    host_mode: str = "bot",
    *,
    drops: frozenset[str] = frozenset(),
    lazy_host: bool = False,
    mesh: bool = False,
    kill_host: bool = False,
    until: str = "all",
) -> MemNet:
    """A host (an honest greedy bot unless `host_mode`) and one staller joiner per mode, as
    tests/net/test_clocks.py starts them; run until every seat still up has stopped
    (`kill_host`: the host freezes, as after kill -9, once it stalls; `until="host"`: until
    the host has stopped)."""
    players = len(modes) + 1
    drivers = {0: Driver(host_mode)} | {i: Driver(m) for i, m in enumerate(modes, 1)}
    classes: dict[int, type[MemJoiner]] = {}
    for i, mode in enumerate(modes, 1):
        classes[i] = type(f"Staller{i}", (MemStaller,), {"mode": mode})
    host_cls = type("Host", (MemDropping,), {"drops": drops})
    net = MemNet(
        players,
        seed=f"clocks {modes} {host_mode}",
        clocks=Clocks(3, 2),
        mesh=mesh,
        host_cls=host_cls,
        joiner_cls=classes,
        drivers=drivers,
        sessions={i: staller.CountingSession for i in range(players)}
        | ({0: LazySession} if lazy_host else {}),
    )
    net.connect_all()
    if kill_host:
        net.run_until(lambda: drivers[0].stalled, dt=0.1)
        net.silence(0)
    done = net.others_stopped if until == "all" else lambda: net.host.stopped is not None
    net.run_until(done, dt=0.1)
    return net


def _said(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().out


def test_a_staller_at_a_move_loses_by_claim_in_memory(capsys: pytest.CaptureFixture[str]) -> None:
    net = _game(["move"])
    assert "stalling at a move" in _said(capsys)
    # on the fake clock: claimed once its 3 s ran out, not before, and with no dawdling (the
    # loop turns are 0.1 s apart; a few turns for the claim round)
    stalled_at = net.drivers[1].stalled_at  # type: ignore[attr-defined]
    assert stalled_at is not None and 3.0 <= net.now - stalled_at <= 3.5, net.now - stalled_at
    for log in net.logs():
        r = audit(log)
        assert r.verdict == "ok", r.fault_reason
        assert r.ending_text is not None
        assert r.ending_text.startswith("ended: seat 2") and "did not move within 3 s" in (
            r.ending_text
        )
        assert r.winners == (0,)
    assert any("did not move within 3 s" in n for n in net.drivers[0].notices)  # type: ignore[attr-defined]


def test_a_staller_at_the_last_reveal_link_loses_by_claim(
    capsys: pytest.CaptureFixture[str],
) -> None:
    net = _game(["bot", "reveal"])
    assert "stalling at a reveal" in _said(capsys)
    for log in net.logs():
        r = audit(log)
        assert r.verdict == "ok", r.fault_reason
        assert r.ending_text is not None and "seat 3" in r.ending_text
        assert "did not reveal within 2 s" in r.ending_text
        assert "claimed by seat 1" in r.ending_text and "seat 2" in r.ending_text
        assert 2 not in r.winners


def test_a_staller_that_answers_after_the_claim_has_the_conflict_in_its_log(
    capsys: pytest.CaptureFixture[str],
) -> None:
    net = _game(["comeback"])
    assert "answering late" in _said(capsys)
    host, late = (audit(log) for log in net.logs())
    assert host.verdict == "ok" and late.verdict == "ok", (host.fault_reason, late.fault_reason)
    assert host.ending_text is not None and "late answer" not in host.ending_text
    assert late.ending_text is not None and "its late answer" in late.ending_text
    assert host.ending is not None and late.ending is not None
    assert host.ending.at == late.ending.at and late.ending.late[0] == late.ending.at
    assert host.scores == late.scores and host.winners == late.winners == (0,)


def _appended(net: MemNet, seat: int) -> int:
    session = net.cores[seat].session
    assert isinstance(session, staller.CountingSession)
    return session.appended


def test_a_non_host_resigns_and_the_other_joiner_plays_the_stand_in_without_the_host(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """3 seats; seat 3 (a joiner) resigns at its fourth move floor. The host appends no
    stand-in entry at all (`--no-stand-in`), yet the game finishes: seat 2 computes and
    appends the stand-in's `resign` entry and every later entry of the stand-in (PROTOCOL.md
    §10.4); the host checks each against its own computation and relays it."""
    net = _game(["bot", "resign"], lazy_host=True)
    assert "resigned" in _said(capsys)
    assert _appended(net, 0) == 0
    by_j1 = _appended(net, 1)
    host_log, j1_log, j2_log = net.logs()
    assert host_log == j1_log
    resigned_at = next(i for i, raw in enumerate(host_log) if decode_entry(raw).kind == "resign")
    in_log = [decode_entry(x) for x in host_log[resigned_at:]]
    assert in_log[0].seat == 2  # at its own move floor: its stand-in appended `resign` too
    stand_in = [e for e in in_log if e.seat == 2]
    assert by_j1 == len(stand_in) > 0  # every one of them appended by seat 2
    assert {e.kind for e in stand_in} >= {"move", "seed", "result"}
    for log in (host_log, j1_log):
        r = audit(log)
        assert r.verdict == "ok", r.fault_reason
        assert r.ending is not None and r.ending.kind == "finished" and r.ending.resigned == (2,)
        assert r.ending_text is not None and "resigned; a stand-in played on" in r.ending_text
        assert 2 not in r.winners
    assert j2_log == host_log[: len(j2_log)] and len(j2_log) < len(host_log)
    assert audit(j2_log).verdict == "incomplete"
    told = " ".join(net.drivers[1].notices)  # type: ignore[attr-defined]
    assert "stand-in" in told and "every peer computes" in told


def test_a_resignation_ends_a_two_seat_game() -> None:
    net = _game(["resign"])
    r = audit(net.logs()[0])
    assert r.verdict == "ok", r.fault_reason
    assert r.ending_text is not None and r.ending_text.startswith("resigned: seat 2")
    assert r.winners == (0,)
    host_log, resigner_log = net.logs()
    assert resigner_log == host_log[: len(resigner_log)]
    assert net.host.stopped is not None and net.host.stopped.finished
    # (that its resignation owes no leave, so none is said to be unconfirmed, is the closing
    # of the real transport: tests/net/test_clocks.py keeps that case with real processes)


def test_a_host_that_stalls_and_dies_is_claimed_over_the_direct_links() -> None:
    """3 seats; the host (seat 1) stalls at its first move and freezes (kill -9): the two
    joiners exchange their votes on their direct links and claim the game without it."""
    net = _game(["bot", "bot"], host_mode="move", mesh=True, kill_host=True)
    for log in net.logs()[1:]:
        r = audit(log)
        assert r.verdict == "ok", r.fault_reason
        assert r.ending is not None and r.ending.seat == 0 and r.ending.by == (1, 2)
        assert r.ending_text is not None and "did not move within 3 s" in r.ending_text


def test_a_host_that_stalls_and_drops_every_vote_is_claimed_over_the_direct_links(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """3 seats; the host stalls at its first move, stays up and drops every claim vote it
    receives (it relays none): the joiners' votes reach each other on their direct links, and
    the claim against the host is in both joiners' logs."""
    net = _game(["bot", "bot"], host_mode="move", drops=frozenset({"votes"}), mesh=True)
    said = _said(capsys)
    assert "stalling at a move" in said
    assert "dropping claim votes" in said  # the votes did reach it, and died there
    for log in net.logs()[1:]:
        r = audit(log)
        assert r.verdict == "ok", r.fault_reason
        assert r.ending is not None and r.ending.kind == "claimed"
        assert r.ending.seat == 0 and r.ending.by == (1, 2)
        assert r.ending_text is not None and "did not move within 3 s" in r.ending_text


def test_a_resignation_that_the_host_drops_reaches_the_floor_holder_over_the_mesh(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """3 seats; seat 3 resigns while seat 2 holds a move floor (seat 2 must append the entry)
    and the host drops the statement: it reaches seat 2 on the direct link, the `resign` entry
    is in the log, and the stand-in plays on: the game finishes, though the host never held
    the statement."""
    net = _game(["wait-resign", "resign-off-turn"], drops=frozenset({"resign"}), mesh=True)
    said = _said(capsys)
    assert "resigned" in said and "dropped a resignation" in said
    for log in net.logs()[:2]:
        r = audit(log)
        assert r.verdict == "ok", r.fault_reason
        assert r.ending is not None and r.ending.resigned == (2,), r.ending_text
        assert r.ending.kind == "finished", r.ending_text


def test_a_seat_that_never_commits_is_not_claimed_against(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Its clock (2 s here) runs out before its first commit: the seat never took its place,
    so the host stops without a claim (no win over a game that seat never accepted)."""
    net = _game(["nocommit"], until="host")
    assert "withholding our commit" in _said(capsys)
    outcome = net.host.stopped
    never = "the game never started: seat 2 (Blue) did not take its seat"
    assert outcome is not None and f"{never} (no commitment within 2 s)" in outcome.reason
    assert outcome.never_started and not outcome.finished
    host_log = net.logs()[0]
    assert [decode_entry(e).kind for e in host_log] == [Kind.GENESIS, Kind.COMMIT]  # no claim
    told = " ".join(net.drivers[0].notices)  # type: ignore[attr-defined]
    assert "we claim" not in told and "wins" not in told
    report = audit(host_log)  # zoo verify agrees: no result
    assert report.winners == () and report.ending is not None and report.ending.never_started
