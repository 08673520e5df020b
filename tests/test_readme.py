"""The README is a front page (issue 20, item 12): at most 1,000 words, exactly two quick-start
commands (the second is what `.ci/run` runs, word for word), the commands in a table that
matches `zoo --help`, and links that all lead somewhere. The reference lives in docs/."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from zoo_p2p.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _section(title: str) -> str:
    return README.split(f"## {title}\n")[1].split("\n## ")[0]


def test_the_readme_is_at_most_1000_words() -> None:
    assert len(README.split()) <= 1000, len(README.split())


def test_two_quick_start_commands_and_ci_runs_the_second() -> None:
    blocks = re.findall(r"```sh\n(.*?)```", _section("Quick start"), re.S)
    commands = [b.strip() for b in blocks]
    assert len(commands) == 2 and all("\n" not in c for c in commands), commands
    play, test = commands
    assert play.endswith(".venv/bin/zoo play") and "pip install -e ." in play
    assert test.endswith(".venv/bin/python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == test, (ci[-1], test)  # keep them in step


def test_the_commands_table_is_zoo_help() -> None:
    r = CliRunner().invoke(app, ["--help"], terminal_width=80)
    listed = r.output.split("Commands:")[1].split("\n\n")[0].splitlines()[1:]
    commands = {line.split()[0] for line in listed if line.strip()}
    rows = re.findall(r"^\| `zoo (\w+)` \|", _section("Commands"), re.M)
    assert sorted(rows) == sorted(commands), rows


def test_every_link_of_the_readme_and_docs_leads_to_a_file() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target:
                continue
            assert (page.parent / target).is_file(), (page.name, target)
    for name in ("PLAYING", "NETWORK", "FAIRNESS", "CLI", "CODE"):
        assert f"docs/{name}.md" in README, name
