"""`zoo_p2p/cli/app.py` is the table of contents of the ``zoo`` command (issue 19): every command
is registered there, in the order ``zoo --help`` lists them, and is a call into a module that
never imports typer; ``zoo --help`` loads none of the game, the protocol or the network."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import typer.main
from typer.testing import CliRunner

from zoo_p2p.cli.app import app

CLI = Path(__file__).resolve().parents[2] / "zoo_p2p" / "cli"
TYPER_MODULES = {"app.py", "options.py"}  # the commands, and the options they take


def _imports_typer(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == "typer" for a in node.names
        ):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "typer":
            return True
    return False


def test_only_the_table_of_contents_and_its_options_import_typer() -> None:
    importing = {p.name for p in CLI.glob("*.py") if _imports_typer(p)}
    assert importing == TYPER_MODULES, importing


def test_every_command_is_defined_in_app_py_in_help_order() -> None:
    group = typer.main.get_command(app)
    listed = CliRunner().invoke(app, ["--help"], terminal_width=200).output
    rows = listed.split("Commands:")[1].split("\n\n")[0].splitlines()
    in_help = [row.split()[0] for row in rows if row.strip()]
    tree = ast.parse((CLI / "app.py").read_text())
    defined = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any(
            isinstance(d, ast.Call)
            and isinstance(d.func, ast.Attribute)
            and d.func.attr == "command"
            for d in node.decorator_list
        )
    ]
    assert in_help == defined == list(group.commands)  # type: ignore[attr-defined]
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        assert command.callback.__module__ == "zoo_p2p.cli.app", name


def test_zoo_help_imports_none_of_the_game() -> None:
    """`zoo --help` (and `zoo COMMAND --help`) reads the options and the defaults only: no
    protocol, network, bots, rules or full-screen app, no rich (the old registration imported
    the network commands' module, and rich with it, to list them)."""
    code = (
        "import sys\n"
        "from zoo_p2p.cli.app import main\n"
        "for argv in (['zoo', '--help'], ['zoo', 'host', '--help'], ['zoo', 'arena', '--help']):\n"
        "    sys.argv = argv\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = ('zoo_p2p.protocol', 'zoo_p2p.net', 'zoo_p2p.bots', 'zoo_p2p.rules',\n"
        "         'zoo_p2p.tui', 'zoo_p2p.cli.netcmds', 'zmq', 'cryptography', 'textual', 'rich')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)), file=sys.stderr)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert p.returncode == 0 and p.stderr.strip() == b"[]", p.stderr


def test_the_defaults_module_imports_nothing() -> None:
    tree = ast.parse((CLI.parent / "defaults.py").read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]


def test_every_command_passes_exactly_its_targets_parameters() -> None:
    """A command is its options and one call of its target with all of them by name
    (`zoo_p2p.cli.app._runs`): an option the target does not take, or a parameter of the target
    that no option gives, fails here rather than when a user types the command."""
    import importlib
    import inspect

    from zoo_p2p.cli.app import TARGETS

    group = typer.main.get_command(app)
    assert set(TARGETS) == set(group.commands)  # type: ignore[attr-defined]
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        target, alias = TARGETS[name]
        module, _, function = target.partition(":")
        body = getattr(importlib.import_module(module), function)
        options = {p.name for p in command.params}
        # each alias takes one option's place (the hidden one) and gives the target's name
        given = (options - set(alias.values())) | set(alias)
        taken = set(inspect.signature(body).parameters)
        assert given == taken, (name, sorted(given ^ taken))
