"""Bodies of ``zoo host``, ``zoo join``, ``zoo bot``, ``zoo resume`` and the networked ``zoo play``.

Thin glue: identities, log files, sessions and drivers (a bot, or a human at the terminal) handed
to the peers in `zoo_p2p.net.peer`. Only this module of the CLI touches the network layer.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from zoo_p2p.errors import IllegalMoveError, LocalProtocolError, NotationError, ZooError
from zoo_p2p.net.invite import Invite, InviteError
from zoo_p2p.net.wire import NetError, derive_secret

if TYPE_CHECKING:  # the network layer (zmq) is imported only when a command runs
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from zoo_p2p.net.peer import Link, LobbySeat, Outcome

log = logging.getLogger("zoo_p2p.cli.net")
TEAMS = ("yellow", "blue", "green", "red")
SPAWN = [sys.executable, "-c", "from zoo_p2p.cli.app import main; main()"]


# ----------------------------------------------------------------------------- adapters
def load_identity(path: Path | None = None, *, ephemeral: bool = False) -> Ed25519PrivateKey:
    """Our Ed25519 identity: from `path` (created 0600 if missing), the user's, or a fresh one."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from zoo_p2p import storage

    if ephemeral and path is None:
        return Ed25519PrivateKey.generate()
    return storage.load_or_create_identity(path)


def fingerprint(pub: bytes) -> str:
    """The protocol's short fingerprint of a raw public key."""
    from zoo_p2p.protocol.crypto import fingerprint as fp

    return fp(pub)


class BatchedLog:
    """An append-only log file for a live game, fast enough for a 3 ms move.

    Every entry is written to the file (the kernel) at once, so killing the process loses
    nothing. The fsync against power loss runs on a small background thread (no sockets there),
    except where the caller asks to wait: our own move is durable before it leaves. The session
    has already checked that every entry chains; opening goes through `storage.LogWriter`,
    which drops a torn last entry.
    """

    def __init__(self, path: Path) -> None:
        import threading

        from zoo_p2p import storage

        storage.LogWriter(path).close()  # create, or recover a torn tail
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        self._cond = threading.Condition()
        self._dirty = False
        self._closed = False
        self._thread = threading.Thread(target=self._syncer, name="zoo-log-fsync", daemon=True)
        self._thread.start()

    def append(self, entry: bytes) -> None:
        """Write one entry to the file (durable against a crash of this process at once)."""
        view = memoryview(entry)
        while view:
            view = view[os.write(self._fd, view) :]

    def sync(self, wait: bool = False) -> None:
        """fsync what was written: now if `wait`, else soon on the background thread."""
        if wait:
            os.fsync(self._fd)
            return
        with self._cond:
            self._dirty = True
            self._cond.notify()

    def _syncer(self) -> None:
        while True:
            with self._cond:
                while not self._dirty and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                self._dirty = False
            os.fsync(self._fd)

    def close(self) -> None:
        """Final fsync; stop the thread; close the file."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(5)
        os.fsync(self._fd)
        os.close(self._fd)


def open_log_file(path: Path) -> BatchedLog:
    """Open (or reopen) our log for appending."""
    return BatchedLog(path)


def read_log(path: Path) -> list[bytes]:
    """Every whole entry of a log file (a torn last entry is dropped)."""
    from zoo_p2p import storage

    return storage.read_log(path).entries


def audit_entries(entries: list[bytes]) -> tuple[bool, str]:
    """Run the protocol auditor: (ok, one-line verdict with the first fault if any)."""
    from zoo_p2p.protocol.audit import audit

    report = audit(entries)
    verdict = report.verdict
    if report.fault_index is not None:
        verdict += f" at entry {report.fault_index}: {report.fault_reason}"
    elif report.notes:
        verdict += ": " + report.notes[0] + "; everything in it checks out"
    return report.ok, verdict


def default_log_path(game_id: bytes) -> Path:
    """``<data dir>/YYYYmmdd-HHMMSS-<gameid8>.zoolog``."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    from zoo_p2p import storage

    return storage.logs_dir() / f"{stamp}-{game_id.hex()[:8]}.zoolog"


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".net")


def seat_secrets(key: Ed25519PrivateKey, genesis: bytes) -> tuple[bytes, bytes]:
    """(seed, nonce) for our seat in this game: derived from our key and the genesis, so a crash
    or `zoo resume` finds the same secrets without storing them anywhere."""
    import hashlib

    from zoo_p2p.net.peer import raw_private

    gid = hashlib.sha256(genesis).digest()
    priv = raw_private(key)
    return derive_secret(priv, b"seat-seed", gid), derive_secret(priv, b"first-nonce", gid)


def session_factory(key: Ed25519PrivateKey) -> Callable[[bytes], Any]:
    """A function genesis -> our playing Session."""
    from zoo_p2p.protocol.session import Session

    def make(genesis: bytes) -> Any:
        seed, nonce = seat_secrets(key, genesis)
        return Session(genesis, key=key, seed=seed, nonce=nonce)

    return make


def log_opener(path: Path | None, meta: dict[str, Any]) -> Callable[[Any], Any]:
    """A function session -> the log file for it (`path` or the default name) plus its sidecar."""

    def open_log(session: Any) -> Any:
        p = path or default_log_path(session.game_id)
        if p.exists() and p.stat().st_size > 0:
            raise NetError(f"{p} already holds a log; use `zoo resume {p}` or another --log")
        f = open_log_file(p)
        _sidecar(p).write_text(json.dumps(meta))
        return f

    return open_log


def resume_session(key: Ed25519PrivateKey, path: Path) -> tuple[Any, Any]:
    """Rebuild our session from a log file; the log is reopened for appending."""
    entries = read_log(path)
    if not entries:
        raise NetError(f"{path} holds no entries")
    session = session_factory(key)(entries[0])
    for e in entries[1:]:
        session.receive(e)
    if len(session.entries) != len(entries):  # pragma: no cover - storage drops torn tails
        raise NetError(f"{path}: only {len(session.entries)} of {len(entries)} entries chain")
    return session, open_log_file(path)


def parse_team(text: str | None) -> int | None:
    """'yellow'/'y' ... -> 0..3, None stays None."""
    if text is None:
        return None
    from zoo_p2p.rules import Team

    try:
        return int(Team.parse(text))
    except NotationError as exc:
        raise typer.BadParameter(str(exc)) from None


def genesis_factory(
    key: Ed25519PrivateKey, variant: str, first: int | None
) -> Callable[[list[LobbySeat]], bytes]:
    """A function lobby -> signed genesis."""
    from zoo_p2p.cli.local import parse_variant
    from zoo_p2p.protocol.events import SeatInfo
    from zoo_p2p.protocol.session import Session
    from zoo_p2p.rules import Team

    var = parse_variant(variant)

    def make(lobby: list[LobbySeat]) -> bytes:
        seats = [SeatInfo(s.name, s.pub, Team(s.team)) for s in lobby]
        return Session.create_genesis(key, seats, var, first, os.urandom(32))

    return make


# ----------------------------------------------------------------------------- drivers
class _Base:
    """What bots and humans share: names for seats, notices to the console."""

    def __init__(self, console: Console | None) -> None:
        self.console = console

    def fds(self) -> list[int]:
        """No file descriptors by default."""
        return []

    def on_fd(self, fd: int, link: Link) -> bool:
        """Unused by default."""
        return False

    def say(self, *parts: Any) -> None:
        """Print if we have a console."""
        if self.console is not None:
            self.console.print(*parts)

    def on_lobby(self, seats: list[tuple[str, str, int]], need: int) -> None:
        """Show the lobby."""
        if self.console is None:
            return
        t = Table(title=f"lobby: {len(seats)} of {need} seats", show_edge=False)
        t.add_column("seat")
        t.add_column("name")
        t.add_column("fingerprint")
        t.add_column("team")
        for i, (name, fp, team) in enumerate(seats):
            t.add_row(str(i + 1), name, fp, Text(TEAMS[team], style=TEAMS[team]))
        self.console.print(t)

    def on_started(self, link: Link) -> None:
        """Nothing."""

    def on_events(self, events: list[Any], link: Link) -> None:
        """Nothing."""

    def on_turn(self, link: Link) -> None:
        """Nothing."""

    def on_presence(self, up: list[bool], link: Link) -> None:
        """Say who is missing when it changes."""
        s = link.session
        if s is None or self.console is None:
            return
        missing = [i for i, u in enumerate(up) if not u]
        if missing:
            names = ", ".join(_seat_name(s, i) for i in missing)
            self.say(Text(f"waiting for {names}", style="yellow"))
        else:
            self.say(Text("everyone is connected", style="green"))

    def on_notice(self, text: str) -> None:
        """Print a notice."""
        self.say(Text(text, style="cyan"))


def _seat_name(session: Any, seat: int | None) -> str:
    if seat is None:
        return "an observer"
    info = session.seats[seat]
    return f"{info.name} ({info.team.label})"


class BotDriver(_Base):
    """Plays our seat with a bot from `zoo_p2p.bots` (optionally waiting `delay` s per move)."""

    def __init__(self, level: str, *, seed: int | None, delay: float, console: Console | None):
        from zoo_p2p.bots import make_bot

        super().__init__(console)
        self.bot = make_bot(level, seed=seed)
        self.delay = delay

    def on_turn(self, link: Link) -> None:
        """Choose and play (now or after the delay)."""
        if self.delay > 0:
            link.call_later(self.delay, lambda: self._move(link))
        else:
            self._move(link)

    def _move(self, link: Link) -> None:
        if not link.my_turn:
            return
        assert link.session is not None and link.session.state is not None
        move = self.bot.choose(link.session.state)
        link.play(move)


def hint_text(moves: Sequence[Any]) -> str:
    """Legal moves, compact: sends grouped by the squares they may go to, then the steps."""
    from zoo_p2p.rules import Send, square_name

    by_value: dict[int, list[str]] = {}
    steps: list[str] = []
    for m in moves:
        if isinstance(m, Send):
            by_value.setdefault(m.value, []).append(square_name(m.to))
        else:
            steps.append(str(m))
    lines: list[str] = []
    groups: dict[tuple[str, ...], list[int]] = {}
    for value, squares in by_value.items():
        groups.setdefault(tuple(squares), []).append(value)
    for group, values in groups.items():
        vals = "/".join(str(v) for v in values)
        where = "any square showing a zoo card" if len(group) >= 20 else " ".join(group)
        lines.append(f"send {vals} onto {where} (e.g. {values[0]}@{group[0]})")
    if steps:
        lines.append("steps: " + " ".join(steps))
    return "legal: " + ("\n       ".join(lines) if lines else "none")


class HumanDriver(_Base):
    """A person at the terminal: board after every change, moves typed on stdin."""

    def __init__(self, console: Console) -> None:
        super().__init__(console)
        self.con = console
        self.shadow: Any = None
        self.shown_moves = 0
        self.prompted = False
        self.recap: list[Text] = []
        self.pending = ""
        self.quit = False
        self.up: list[bool] = []

    def fds(self) -> list[int]:
        """Poll stdin."""
        return [sys.stdin.fileno()]

    def names(self, link: Link) -> list[str]:
        """Seat names from the genesis."""
        assert link.session is not None
        return [s.name for s in link.session.seats]

    def on_started(self, link: Link) -> None:
        """Announce the first player and show the board."""
        s = link.session
        assert s is not None and s.state is not None
        self.shadow = s.state.clone()
        self.shown_moves = len(s.state.history)
        from zoo_p2p.cli.render import render_board, seat_label

        self.con.print(
            Text(
                f"You are {_seat_name(s, s.seat)}. Type a move like 5@C3 or C3-C4, "
                "'?' for hints, 'b' for the board, 'q' to quit.",
                style="bold",
            )
        )
        self.con.print(render_board(s.state, self.names(link), me=s.seat))
        self.con.print("first to move: ", seat_label(s.state, s.state.to_move, self.names(link)))

    def on_events(self, events: list[Any], link: Link) -> None:
        """Narrate new moves and reveals, redraw, and end with the breakdown."""
        s = link.session
        if s is None or s.state is None:
            return
        for ev in events:
            if type(ev).__name__ == "CheatDetected":
                self.con.print(
                    Text(f"CHEATING by {_seat_name(s, ev.seat)}: {ev.reason}", style="bold red")
                )
        self.refresh(link)

    def refresh(self, link: Link) -> None:
        """Show what changed since the last time (state-based, so our own entries count too)."""
        from zoo_p2p.cli.render import describe_move, render_board, render_scores

        s = link.session
        assert s is not None and s.state is not None
        st = s.state
        if self.shadow is None or st.needs is not None or len(st.history) == self.shown_moves:
            return
        names = self.names(link)
        new = st.history[self.shown_moves :]
        mover = self.shadow.to_move
        if len(new) == 1:
            lines = describe_move(self.shadow, st, new[0], names)
            for line in lines:
                self.con.print(line)
            if mover != s.seat:
                self.recap.append(Text(" · ").append_text(Text("; ").join(lines)))
        else:
            self.con.print("moves: " + ", ".join(str(m) for m in new))
            self.recap.append(Text(" · moves: " + ", ".join(str(m) for m in new)))
        self.shown_moves = len(st.history)
        self.shadow = st.clone()
        self.prompted = False
        if st.is_terminal():
            self.con.print(render_board(st, names, me=s.seat, last=new[-1]))
            self.con.print(Text.assemble("Game over: ", _seat_name(s, st.to_move), " cannot act."))
            self.con.print(render_scores(st, names))
            self.con.print("signing the result with the other peers…")
            return
        self.con.print(render_board(st, names, me=s.seat, last=new[-1]))
        if not link.my_turn:
            self.con.print(Text(f"{_seat_name(s, st.to_move)} to move…", style="dim"))

    def on_turn(self, link: Link) -> None:
        """Recap the others' moves since ours (when several), then prompt."""
        self.refresh(link)
        s = link.session
        assert s is not None
        if len(self.recap) > 1:
            self.con.print(Text("since your last move:", style="bold"))
            for line in self.recap:
                self.con.print(line)
        self.recap = []
        self.con.print(
            Text("Your move", style="bold green"), "(e.g. 5@C3, C3-C4; ? for hints): ", end=""
        )
        self.prompted = True

    def on_fd(self, fd: int, link: Link) -> bool:
        """Read what was typed (unbuffered, so pasted lines all count) and handle each line."""
        from zoo_p2p.net.peer import Outcome

        data = os.read(fd, 4096)
        if not data:
            self.quit = True
            link.stopped = Outcome(False, "you left (end of input)", link._have())
            return False
        self.pending += data.decode(errors="replace")
        while "\n" in self.pending and link.stopped is None:
            line, self.pending = self.pending.split("\n", 1)
            self.on_line(line, link)
        return True

    def on_line(self, line: str, link: Link) -> bool:
        """One typed line."""
        from zoo_p2p.net.peer import Outcome

        text = line.strip()
        s = link.session
        if text.lower() in ("q", "quit", "exit"):
            link.stopped = Outcome(False, "you left the game", link._have())
            return True
        if s is None or s.state is None:
            self.con.print("the game has not started yet")
            return True
        from zoo_p2p.cli.render import render_board
        from zoo_p2p.rules import parse_move

        if text.lower() in ("b", "board"):
            self.con.print(render_board(s.state, self.names(link), me=s.seat))
            return True
        if text in ("?", "h", "help"):
            if link.my_turn:
                self.con.print(hint_text(s.state.legal_moves()))
            else:
                self.con.print(
                    "moves: send '5@C3' (a character from your hand onto C3) or step 'C3-C4'"
                )
            self._reprompt(link)
            return True
        if not text:
            self._reprompt(link)
            return True
        if not link.my_turn:
            who = _seat_name(s, s.floor.seat) if s.floor is not None else "the others"
            self.con.print(Text(f"not your turn — waiting for {who}", style="yellow"))
            return True
        try:
            move = parse_move(text)
            s.state.check(move)
            link.play(move)
            self.refresh(link)
        except (NotationError, IllegalMoveError, LocalProtocolError) as exc:
            self.con.print(Text(str(exc), style="red"))
            self._reprompt(link)
        return True

    def _reprompt(self, link: Link) -> None:
        if link.my_turn:
            self.con.print(Text("Your move: ", style="bold green"), end="")

    def on_presence(self, up: list[bool], link: Link) -> None:
        """Say who is missing, and who holds the game up."""
        super().on_presence(up, link)


# ----------------------------------------------------------------------------- running
def _finish(link: Link, outcome: Outcome, log_path: Path | None, console: Console) -> int:
    s = link.session
    if s is None:
        console.print(Text(f"no game: {outcome.reason}", style="red"))
        return 1
    path = log_path
    sink = link.sink
    if sink is not None and hasattr(sink, "path"):
        path = sink.path
    entries = list(s.entries)
    ok, verdict = audit_entries(entries)
    style = "green" if ok and outcome.finished else "yellow"
    console.print(Text(f"{outcome.reason}; {len(entries)} entries", style=style))
    console.print(Text(f"log saved: {path}", style="bold"))
    if ok:
        verdict = "ok: every signature, link, move, reveal and seed checks out"
    head, _, rest = verdict.partition(":")
    console.print(Text(f"audit: {head.upper()}" + (f" —{rest}" if rest else ""), style=style))
    return 0 if outcome.finished and ok else 1


def _console(quiet: bool) -> Console:
    return Console(quiet=quiet, highlight=False, soft_wrap=False)


def _setup_logging(verbose: bool, quiet: bool) -> None:
    level = logging.INFO if verbose else logging.ERROR if quiet else logging.WARNING
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )


def _guess_address() -> str:
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            addr: str = s.getsockname()[0]
            return addr
    except OSError:
        return "127.0.0.1"


def _spawn_bots(
    invite: Invite, k: int, level: str, delay: float, workdir: Path, quiet: bool = True
) -> list[subprocess.Popen[bytes]]:
    procs = []
    for i in range(k):
        args = [
            *SPAWN,
            "bot",
            str(invite),
            "--level",
            level,
            "--name",
            f"{level} bot {i + 1}",
            "--delay",
            str(delay),
            "--log",
            str(workdir / f"bot{i + 1}.zoolog"),
            "--give-up",
            "30",
        ]
        if quiet:
            args.append("--quiet")
        err = open(workdir / f"bot{i + 1}.err", "wb")  # noqa: SIM115 - handed to the child
        procs.append(
            subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        )
        err.close()
    return procs


def _reap(procs: Sequence[subprocess.Popen[bytes]], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    for p in procs:
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(1)
            except subprocess.TimeoutExpired:
                p.kill()


def run_host(
    *,
    players: int,
    variant: str,
    first: int | None,
    port: int,
    bind: str | None,
    address: str | None,
    log_path: Path | None,
    name: str,
    team: int | None,
    bots: int,
    level: str,
    bot: str | None,
    invite_file: Path | None,
    curve: bool,
    identity: Path | None,
    give_up: float | None,
    delay: float,
    quiet: bool,
    console: Console,
    bot_delay: float = 0.0,
    upnp: bool = False,
    announce: bool = True,
    qr: bool = False,
) -> int:
    """Host a game (our seat human or bot) and return the exit code."""
    from zoo_p2p.cli import lan
    from zoo_p2p.net.peer import Host, HostOptions, raw_public

    key = load_identity(identity)
    driver: Any = (
        BotDriver(bot, seed=None, delay=delay, console=console) if bot else HumanDriver(console)
    )
    if not curve:
        console.print(Text("CURVE is off: traffic is readable on the network", style="red"))
    meta = {"role": "host", "port": port, "bind": bind, "curve": curve}
    plan = lan.listen_plan(bind, address)
    lan_driver = lan.LanDriver(driver)
    opts = HostOptions(
        players=players,
        bind=plan.bind,
        also_bind=plan.also_bind,
        port=port,
        curve=curve,
        name=name,
        team=team,
        give_up=give_up,
    )
    host = Host(
        key=key,
        driver=lan_driver,
        make_session=session_factory(key),
        open_log=log_opener(log_path, meta),
        options=opts,
        make_genesis=genesis_factory(key, variant, first),
        fingerprint=fingerprint,
        address=plan.advertise[0],
    )
    console.print(Text(f"you are {name} — fingerprint {fingerprint(raw_public(key))}"))
    reach = lan.set_up_host(
        console,
        host,
        plan,
        driver=lan_driver,
        name=name,
        players=players,
        variant=variant,
        upnp=upnp,
        announce=announce,
        qr=qr,
    )
    meta["port"] = host.port
    meta["invite"] = str(host.invite)
    if invite_file is not None:
        tmp = invite_file.with_name(invite_file.name + ".tmp")
        tmp.write_text(str(host.invite) + "\n")
        tmp.replace(invite_file)
    procs: list[subprocess.Popen[bytes]] = []
    tmpdir = Path(tempfile.mkdtemp(prefix="zoo-bots-"))
    try:
        if bots:  # our own bots come in over loopback whatever the invite says
            here = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(plan.bind, plan.bind)
            local = host.invite.with_addresses([(here, host.port)])
            procs = _spawn_bots(local, bots, level, bot_delay, tmpdir)
        console.print(f"waiting for {players - 1} player(s) to join…")
        host.start_if_ready()
        outcome = host.run()
    finally:
        _reap(procs)
        shutil.rmtree(tmpdir, ignore_errors=True)
        reach.close()
    return _finish(host, outcome, log_path, console)


def run_join(
    invite_text: str | None,
    *,
    name: str,
    team: int | None,
    log_path: Path | None,
    level: str | None,
    identity: Path | None,
    give_up: float | None,
    delay: float,
    seed: int | None,
    console: Console,
    ephemeral: bool,
    curve: bool = True,
) -> int:
    """Join a game as a human (level None) or a bot; resumes if `log_path` already holds it."""
    from zoo_p2p.net.peer import Joiner, JoinOptions, raw_public

    if invite_text is None:  # no invite: find the game on the LAN (issue 11)
        from zoo_p2p.cli.lan import pick_game

        invite = pick_game(console, 3.0)
    else:
        try:
            invite = Invite.parse(invite_text, allow_no_curve=not curve)
        except InviteError as exc:
            raise typer.BadParameter(str(exc)) from None
    key = load_identity(identity, ephemeral=ephemeral)
    driver: Any = (
        BotDriver(level, seed=seed, delay=delay, console=console) if level else HumanDriver(console)
    )
    session = sink = None
    if log_path is not None and log_path.exists() and log_path.stat().st_size > 0:
        session, sink = resume_session(key, log_path)
        console.print(f"resuming {log_path} from entry {len(session.entries)}")
    meta = {"role": "join", "invite": str(invite)}
    joiner = Joiner(
        invite,
        key=key,
        driver=driver,
        make_session=session_factory(key),
        open_log=log_opener(log_path, meta),
        fingerprint=fingerprint,
        options=JoinOptions(
            name=name, team=team, give_up=give_up, curve=curve and invite.server_key != bytes(32)
        ),
        session=session,
        sink=sink,
    )
    console.print(
        f"joining {invite.host}:{invite.port} as {name} ({fingerprint(raw_public(key))})…"
    )
    if session is not None:
        joiner._advance(len(session.entries))
    outcome = joiner.run()
    return _finish(joiner, outcome, log_path, console)


def run_resume(
    log_path: Path,
    *,
    invite_text: str | None,
    port: int | None,
    bind: str | None,
    bot: str | None,
    identity: Path | None,
    give_up: float | None,
    delay: float,
    console: Console,
) -> int:
    """Continue an unfinished game from our log: as its host (rebind) or as a joiner."""
    from zoo_p2p.net.peer import Host, HostOptions, Joiner, JoinOptions

    key = load_identity(identity)
    meta: dict[str, Any] = {}
    if _sidecar(log_path).exists():
        meta = json.loads(_sidecar(log_path).read_text())
    session, sink = resume_session(key, log_path)
    if session.finished:
        console.print(f"{log_path} holds a finished game; see `zoo verify {log_path}`")
        return 0
    driver: Any = (
        BotDriver(bot, seed=None, delay=delay, console=console) if bot else HumanDriver(console)
    )
    if session.seat == 0:
        from zoo_p2p.cli import lan

        plan = lan.listen_plan(bind or meta.get("bind"), None)
        opts = HostOptions(
            players=len(session.seats),
            bind=plan.bind,
            also_bind=plan.also_bind,
            port=port or int(meta.get("port", 0)),
            curve=meta.get("curve", True),
            name=session.seats[0].name,
            give_up=give_up,
        )
        host = Host(
            key=key,
            driver=driver,
            make_session=session_factory(key),
            open_log=log_opener(log_path, meta),
            options=opts,
            make_genesis=lambda lobby: b"",
            fingerprint=fingerprint,
            session=session,
            sink=sink,
            address=plan.advertise[0],
        )
        host.invite = host.invite.with_addresses([(h, host.port) for h in plan.advertise])
        console.print(f"resuming as host from entry {len(session.entries)}")
        lan.print_invite(console, host.invite)
        host.start_if_ready()
        outcome = host.run()
        return _finish(host, outcome, log_path, console)
    text = invite_text or meta.get("invite")
    if not text:
        raise typer.BadParameter("no invite stored beside the log: pass --invite")
    invite = Invite.parse(text)
    me = session.seats[session.seat]
    joiner = Joiner(
        invite,
        key=key,
        driver=driver,
        make_session=session_factory(key),
        open_log=log_opener(log_path, meta),
        fingerprint=fingerprint,
        options=JoinOptions(
            name=me.name, team=int(me.team), give_up=give_up, curve=invite.server_key != bytes(32)
        ),
        session=session,
        sink=sink,
    )
    joiner._advance(len(session.entries))
    outcome = joiner.run()
    return _finish(joiner, outcome, log_path, console)


# ----------------------------------------------------------------------------- commands
# Options that several commands share.
InviteArg = Annotated[
    str | None,
    typer.Argument(help="The invite the host printed (none: look for games on the LAN)."),
]
GiveUpOpt = Annotated[float | None, typer.Option(help="Stop after N s without the host.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing.")]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Log the transport.")]


def _exit_with(run: Callable[[], int]) -> NoReturn:
    """Run a command body and exit with its code; our own errors are one red line, exit 1."""
    try:
        code = run()
    except ZooError as exc:
        Console(stderr=True).print(f"[red]{exc}[/red]")
        raise typer.Exit(1) from None
    raise typer.Exit(code)


def host_cmd(
    players: Annotated[
        int,
        typer.Option(
            "--players", "-n", min=2, max=4, help="Seats at the table, you included (2-4)."
        ),
    ] = 2,
    variant: Annotated[str, typer.Option(help="standard or general (no mutants).")] = "standard",
    first: Annotated[
        str, typer.Option(help="First player: 'random' (fair draw) or a seat 1-4.")
    ] = "random",
    port: Annotated[int, typer.Option(help="TCP port to listen on (0: any free port).")] = 0,
    bind: Annotated[
        str | None, typer.Option(help="Address to listen on (default: every reachable one).")
    ] = None,
    address: Annotated[str | None, typer.Option(help="Address written in the invite.")] = None,
    log: Annotated[Path | None, typer.Option(help="Where to save the game log.")] = None,
    name: Annotated[str, typer.Option(help="Your name at the table.")] = "host",
    team: Annotated[str | None, typer.Option(help="Your team: yellow, blue, green, red.")] = None,
    bots: Annotated[int, typer.Option(min=0, max=3, help="Start K bot peers here.")] = 0,
    level: Annotated[str, typer.Option(help="Level of the --bots peers.")] = "greedy",
    bot: Annotated[str | None, typer.Option(help="Let a bot of this level play your seat.")] = None,
    invite_file: Annotated[Path | None, typer.Option(help="Also write the invite here.")] = None,
    curve: Annotated[bool, typer.Option(help="Encrypt with CURVE (default on).")] = True,
    identity: Annotated[
        Path | None, typer.Option(help="Ed25519 key file (default: yours).")
    ] = None,
    give_up: Annotated[float | None, typer.Option(help="Stop after N s with nobody else.")] = None,
    delay: Annotated[float, typer.Option(help="Seconds a bot waits before moving.")] = 0.0,
    announce: Annotated[
        bool, typer.Option("--announce/--no-announce", help="Announce the game on the LAN.")
    ] = True,
    upnp: Annotated[
        bool, typer.Option("--upnp", help="Ask the router to forward the port (UPnP).")
    ] = False,
    qr: Annotated[bool, typer.Option("--qr", help="Also show the invite as a QR code.")] = False,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Host a game: print an invite, wait for the players, play, save the log."""
    _setup_logging(verbose, quiet)
    first_seat = None if first == "random" else int(first) - 1
    if first_seat is not None and not 0 <= first_seat < players:
        raise typer.BadParameter("--first: 'random' or a seat number 1..players")
    _exit_with(
        lambda: run_host(
            players=players,
            variant=variant,
            first=first_seat,
            port=port,
            bind=bind,
            address=address,
            log_path=log,
            name=name,
            team=parse_team(team),
            bots=bots,
            level=level,
            bot=bot,
            invite_file=invite_file,
            curve=curve,
            identity=identity,
            give_up=give_up,
            delay=delay,
            quiet=quiet,
            console=_console(quiet),
            upnp=upnp,
            announce=announce,
            qr=qr,
        )
    )


def join_cmd(
    invite: InviteArg = None,
    name: Annotated[str, typer.Option(help="Your name at the table.")] = "player",
    team: Annotated[
        str | None, typer.Option(help="Ask for a team: yellow, blue, green, red.")
    ] = None,
    log: Annotated[Path | None, typer.Option(help="Where to save the game log.")] = None,
    identity: Annotated[
        Path | None, typer.Option(help="Ed25519 key file (default: yours).")
    ] = None,
    give_up: GiveUpOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Join a game from its invite and play at this terminal."""
    _setup_logging(verbose, False)
    _exit_with(
        lambda: run_join(
            invite,
            name=name,
            team=parse_team(team),
            log_path=log,
            level=None,
            identity=identity,
            give_up=give_up,
            delay=0.0,
            seed=None,
            console=_console(False),
            ephemeral=False,
        )
    )


def bot_cmd(
    invite: InviteArg = None,
    level: Annotated[str, typer.Option(help="random, greedy or hard.")] = "greedy",
    name: Annotated[str | None, typer.Option(help="The bot's name at the table.")] = None,
    team: Annotated[str | None, typer.Option(help="Ask for a team.")] = None,
    log: Annotated[Path | None, typer.Option(help="Where to save the bot's log.")] = None,
    identity: Annotated[
        Path | None,
        typer.Option(help="Key file (created if missing); default: a fresh key for this run."),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the bot's choices.")] = None,
    delay: Annotated[float, typer.Option(help="Seconds to wait before each move.")] = 0.0,
    give_up: GiveUpOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Join a game as a bot peer (its own key, over the network)."""
    _setup_logging(verbose, quiet)
    _exit_with(
        lambda: run_join(
            invite,
            name=name or f"{level} bot",
            team=parse_team(team),
            log_path=log,
            level=level,
            identity=identity,
            give_up=give_up,
            delay=delay,
            seed=seed,
            console=_console(quiet),
            ephemeral=True,
        )
    )


def resume_cmd(
    log: Annotated[Path, typer.Argument(help="The log of the unfinished game.")],
    invite: Annotated[
        str | None, typer.Option(help="Invite, if not stored beside the log.")
    ] = None,
    port: Annotated[int | None, typer.Option(help="Host: port to listen on again.")] = None,
    bind: Annotated[str | None, typer.Option(help="Host: address to listen on.")] = None,
    bot: Annotated[str | None, typer.Option(help="Let a bot of this level play our seat.")] = None,
    identity: Annotated[
        Path | None, typer.Option(help="Ed25519 key file (default: yours).")
    ] = None,
    give_up: Annotated[float | None, typer.Option(help="Stop after N s alone.")] = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Continue an unfinished game from its log, as host or joiner, once all seats are back."""
    _setup_logging(verbose, quiet)
    _exit_with(
        lambda: run_resume(
            log,
            invite_text=invite,
            port=port,
            bind=bind,
            bot=bot,
            identity=identity,
            give_up=give_up,
            delay=0.0,
            console=_console(quiet),
        )
    )


def play_command(
    *, bots: int, level: str, team: str | None, variant: str, log: Path | None, name: str
) -> None:
    """You against 1-3 bots, each a real peer process over loopback; the log saved and audited."""
    _setup_logging(False, False)
    console = _console(False)
    _exit_with(
        lambda: run_host(
            players=bots + 1,
            variant=variant,
            first=None,
            port=0,
            bind="127.0.0.1",
            address="127.0.0.1",
            log_path=log,
            name=name,
            team=parse_team(team),
            bots=bots,
            level=level,
            bot=None,
            invite_file=None,
            curve=True,
            identity=None,
            give_up=None,
            delay=0.0,
            quiet=False,
            console=console,
            bot_delay=float(os.environ.get("ZOO_BOT_DELAY", "0.6")),
        )
    )


def register(app: typer.Typer) -> None:
    """Add the network commands to the ``zoo`` app."""
    app.command("host")(host_cmd)
    app.command("join")(join_cmd)
    app.command("bot")(bot_cmd)
    app.command("resume")(resume_cmd)
