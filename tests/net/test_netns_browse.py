"""The full-screen picker's live browse on a simulated LAN (network namespaces made by the test):
a game appears, its seat count changes as players join, it is listed as full while it is played
(its host admits spectators: `zoo watch` may pick it, TRANSPORT.md §3.3), and it disappears when
the game ends and the host withdraws its advert; closing the browse is bounded. And the real
`zoo join` with no invite, on a pseudo-terminal: the game shows up in the app and Enter joins
it."""

from __future__ import annotations

import fcntl
import json
import os
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

from tests.net.harness import ZOO, log_len, wait_for
from tests.net.netns import NsProcs, lab

HOST_IP, JOIN_IP = "10.232.0.1", "10.232.0.2"

# what the picker's source runs, in the joiner's namespace: one JSON line per report; it stops
# once the game has come and gone (or after 60 s), then says how long close() took
BROWSE = """
import json, sys, time
from zoo_p2p.net.discovery import LiveBrowse
t0 = time.monotonic()
seen = []
def report(state):
    seen.append(len(state.games))
    print(json.dumps({"t": round(time.monotonic() - t0, 3), "error": state.error,
                      "games": [[g.name, g.taken, g.seats] for g in state.games]}), flush=True)
live = LiveBrowse(report).start()
while time.monotonic() - t0 < 60 and not (any(seen) and seen[-1] == 0):
    time.sleep(0.05)
t1 = time.monotonic()
live.close()
print(json.dumps({"closed": round(time.monotonic() - t1, 3)}), flush=True)
"""


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.startswith("{")]


def _listed(path: Path, taken: int) -> bool:
    return any(
        line.get("games") == [["alice", taken, 3]] for line in _lines(path) if "games" in line
    )


def test_the_live_browse_sees_a_game_come_fill_up_and_go(tmp_path: Path) -> None:
    with lab(tmp_path) as net:
        a, b = net.machine("a"), net.machine("b")
        net.wire(a, f"{HOST_IP}/24", b, f"{JOIN_IP}/24")
        p = NsProcs(tmp_path)
        out = tmp_path / "browse.out"
        try:
            inv = tmp_path / "host.invite"
            host = p.zoo_in(
                a,
                "host",
                "--players",
                "3",
                "--bot",
                "greedy",
                "--name",
                "alice",
                "--log",
                str(tmp_path / "host.zoolog"),
                "--invite-file",
                str(inv),
                "--give-up",
                "30",
                "--delay",
                "0.3",  # a game of some seconds: it is looked at while it is played
                name="host",
            )
            invite = p.invite_of(host, inv, "host")
            browse = net.daemon(b, sys.executable, "-c", BROWSE, name="browse")
            wait_for(lambda: _listed(out, 1), 20, "the game listed as 1/3 taken")
            bot1 = p.zoo_in(b, "bot", invite, "--log", str(tmp_path / "bot1.zoolog"),
                            "--delay", "0.3", name="bot1")  # fmt: skip
            wait_for(lambda: _listed(out, 2), 20, "the game listed as 2/3 taken")
            bot2 = p.zoo_in(b, "bot", invite, "--log", str(tmp_path / "bot2.zoolog"),
                            "--delay", "0.3", name="bot2")  # fmt: skip
            wait_for(lambda: log_len(tmp_path / "host.zoolog") >= 20, 30, "the game under way")
            listed = _lines(out)[-1].get("games")
            played = log_len(tmp_path / "host.zoolog")
            assert browse.poll() is None and listed == [["alice", 3, 3]], (listed, played)
            wait_for(lambda: browse.poll() is not None, 60, "the game to leave the list")
            lines = _lines(out)
            assert all(line.get("error") is None for line in lines), lines
            assert _listed(out, 3), lines  # full while it was played: there to be watched
            assert lines[-2]["games"] == [], lines  # withdrawn once the game was over
            closed = lines[-1]["closed"]
            assert isinstance(closed, float) and closed < 3, lines
            found = next(x["t"] for x in lines if x.get("games"))
            print(f"found after {found} s, closed in {closed} s")
            for proc, name in ((bot1, "bot1"), (bot2, "bot2"), (host, "host")):
                assert p.wait(proc, name, 40) == 0, p.text(name)
        finally:
            p.close()


class Pty:
    """A program on a pseudo-terminal of its own (100x30), its output read in a thread."""

    def __init__(self, cmd: list[str], env: dict[str, str], cwd: Path) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        self.master = master
        self.proc = subprocess.Popen(
            cmd, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
        )
        os.close(slave)
        self.out = bytearray()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.out += chunk

    def text(self) -> str:
        return bytes(self.out).decode(errors="replace")

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        os.close(self.master)
        self.reader.join(5)


def test_zoo_join_lists_the_game_in_the_app_and_enter_joins_it(tmp_path: Path) -> None:
    """The real `zoo join` with no invite on a terminal: the app opens, the game shows up in the
    list, Enter joins it (the host seats us), Ctrl-C leaves with 130."""
    with lab(tmp_path) as net:
        a, b = net.machine("a"), net.machine("b")
        net.wire(a, f"{HOST_IP}/24", b, f"{JOIN_IP}/24")
        p = NsProcs(tmp_path)
        term: Pty | None = None
        try:
            inv = tmp_path / "host.invite"
            host = p.zoo_in(
                a,
                "host",
                "--players",
                "2",
                "--bot",
                "greedy",
                "--name",
                "alice",
                "--invite-file",
                str(inv),
                "--give-up",
                "30",
                name="host",
            )
            p.invite_of(host, inv, "host")
            env = dict(p.env, ZOO_HOME=str(tmp_path / "joiner-home"), TERM="xterm-256color")
            env.pop("NO_COLOR", None)
            env.pop("COLUMNS", None)
            term = Pty(["ip", "netns", "exec", b, *ZOO, "join"], env, tmp_path)
            wait_for(lambda: "alice" in term.text(), 30, "the game in the app's list")
            assert "searching the LAN" in term.text()
            term.send(b"\r")
            wait_for(lambda: "joined" in p.text("host"), 30, "the host to seat us")
            term.send(b"\x03")
            wait_for(lambda: term.proc.poll() is not None, 20, "the app to close after Ctrl-C")
            assert term.proc.returncode == 130, term.text()[-2000:]
        finally:
            if term is not None:
                term.close()
            p.close()
