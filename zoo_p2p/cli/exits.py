"""The exit codes of every ``zoo`` command: one table, and the one place that maps an error to it.

`TABLE` is what ``zoo --help`` prints under its commands and what docs/CLI.md shows. `fail` is
the only code that turns an exception into an exit status: `main()` calls it for whatever a
command let through, and `netcmds.exit_with` for what a game's body raised, so the same error
ends every command the same way (one line, the same code); `end` is how a command that has
said its piece ends with a code of this table. A wrong option or value is click's
usage error (exit 2, its "Error: …" line); a file named on the command line that does not exist
is one too, said by `missing_file` in one wording for every command (`options.existing`).

No typer, rich or zoo import at module level: ``zoo --help`` reads `EPILOG`.
"""

from __future__ import annotations

import sys
from typing import NoReturn

OK = 0
ERROR = 1
USAGE = 2
INCOMPLETE = 3
CHEAT = 4
REJECTED = 5
UNREADABLE = 6
INTERRUPTED = 130

TABLE: tuple[tuple[int, str], ...] = (
    (OK, "done; zoo verify: the log is complete and every check held"),
    (ERROR, "an error, said in one line, or a game left unfinished"),
    (USAGE, "a wrong option or value, or a named file that does not exist"),
    (INCOMPLETE, "zoo verify: every entry checks, but the log stops early"),
    (CHEAT, "zoo verify, replay: a seat is proven to have cheated"),
    (REJECTED, "zoo verify, replay: not a valid log, nobody proven at fault"),
    (UNREADABLE, "zoo verify: the file cannot be read as a log (FIFO, too large)"),
    (INTERRUPTED, "stopped by Ctrl-C (a game's log can be resumed)"),
)
"""Each line fits `zoo --help` at 80 columns (tests/cli/test_exit_codes.py checks it)."""

VERDICT_CODES = {
    "ok": OK,
    "incomplete": INCOMPLETE,
    "cheat": CHEAT,
    "rejected": REJECTED,
    "unreadable": UNREADABLE,
}
"""`zoo verify`'s verdicts (PROTOCOL.md §8.1) and their exit codes; several logs: the highest."""


def epilog() -> str:
    """The table as ``zoo --help`` shows it under the commands (click keeps \\b paragraphs)."""
    rows = "\n".join(f"  {code:>3}  {words}" for code, words in TABLE)
    return (
        f"\b\nExit codes (every command):\n{rows}\n\n"
        "Guides: docs/ (docs/PLAYING.md first); `zoo COMMAND --help`: the options."
    )


def end(code: int) -> NoReturn:
    """End the command with `code` once it has said what it had to: a verdict (`zoo verify`), a
    faulty log's line (`zoo replay`), a game left or unfinished (1). The commands' modules end
    this way, never through typer, so that they run the same under the full-screen app."""
    raise SystemExit(code)


def missing_file(path: object) -> str:
    """The one wording of a file named on the command line that does not exist."""
    return f"cannot read {path}: no such file"


def code_for(exc: BaseException) -> int:
    """The exit status of an error that ended a command."""
    from zoo_p2p.errors import UsageError

    if isinstance(exc, KeyboardInterrupt):
        return INTERRUPTED
    if isinstance(exc, UsageError):
        return USAGE
    return ERROR


def fail(exc: BaseException) -> NoReturn:
    """End the program on an error: one line on stderr (never a traceback), then `code_for`.
    A usage error says "Error: …" as click does; our own errors say their sentence; a file
    error nothing named (an OSError with a path) says "cannot use PATH: REASON"; anything
    else is named as a bug."""
    code = code_for(exc)
    if code == INTERRUPTED or isinstance(exc, BrokenPipeError):  # nothing to say, or nowhere
        sys.exit(code)
    from rich.console import Console
    from rich.text import Text

    from zoo_p2p.errors import UsageError, ZooError
    from zoo_p2p.text import shown

    err = Console(stderr=True, highlight=False)
    if isinstance(exc, UsageError):
        line = f"Error: {shown(str(exc), 500)}"
    elif isinstance(exc, ZooError):
        line = shown(str(exc), 500)
    elif isinstance(exc, OSError) and exc.filename is not None:
        from zoo_p2p.files import error

        line = shown(str(error("use", exc.filename, exc)), 500)
    else:
        line = (
            f"zoo: internal error ({type(exc).__name__}: {shown(str(exc), 300)}); "
            "run again with ZOO_DEBUG=1 for the details and report it"
        )
    err.print(Text(line, style="red"), soft_wrap=True)  # one line: a path stays whole
    sys.exit(code)
