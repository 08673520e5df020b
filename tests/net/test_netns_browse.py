"""The full-screen picker's live browse on a simulated LAN (network namespaces made by the test):
a game appears, its seat count changes as players join, and it disappears when the table is
full and the host withdraws its advert; closing the browse is bounded."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.net.harness import wait_for
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
                name="host",
            )
            invite = p.invite_of(host, inv, "host")
            browse = net.daemon(b, sys.executable, "-c", BROWSE, name="browse")
            wait_for(lambda: _listed(out, 1), 20, "the game listed as 1/3 taken")
            bot1 = p.zoo_in(b, "bot", invite, "--log", str(tmp_path / "bot1.zoolog"), name="bot1")
            wait_for(lambda: _listed(out, 2), 20, "the game listed as 2/3 taken")
            bot2 = p.zoo_in(b, "bot", invite, "--log", str(tmp_path / "bot2.zoolog"), name="bot2")
            wait_for(lambda: browse.poll() is not None, 30, "the game to leave the list")
            lines = _lines(out)
            assert all(line.get("error") is None for line in lines), lines
            assert lines[-2]["games"] == [], lines  # withdrawn once the table was full
            closed = lines[-1]["closed"]
            assert isinstance(closed, float) and closed < 3, lines
            found = next(x["t"] for x in lines if x.get("games"))
            print(f"found after {found} s, closed in {closed} s")
            for proc, name in ((bot1, "bot1"), (bot2, "bot2"), (host, "host")):
                assert p.wait(proc, name, 40) == 0, p.text(name)
        finally:
            p.close()
