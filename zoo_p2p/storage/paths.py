"""Where zoo's files live: the config and data directories, and a new game log's default name.

`ZOO_HOME`, when set, replaces the platform directories: config in `$ZOO_HOME/config`, data
(logs) in `$ZOO_HOME/data`.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import platformdirs

from zoo_p2p import files

APP_NAME = "zoo-p2p"


def config_dir() -> Path:
    """The user config directory ($ZOO_HOME/config when ZOO_HOME is set)."""
    home = os.environ.get("ZOO_HOME")
    if home:
        return Path(home) / "config"
    return Path(platformdirs.user_config_dir(APP_NAME))


def data_dir() -> Path:
    """The user data directory ($ZOO_HOME/data when ZOO_HOME is set)."""
    home = os.environ.get("ZOO_HOME")
    if home:
        return Path(home) / "data"
    return Path(platformdirs.user_data_dir(APP_NAME))


def logs_dir() -> Path:
    """Where game logs go by default (created on demand)."""
    d = data_dir() / "logs"
    files.make_dirs(d)
    return d


def default_log_path(game_id: bytes) -> Path:
    """``<data dir>/logs/YYYYmmdd-HHMMSS-<gameid8>.zoolog``."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return logs_dir() / f"{stamp}-{game_id.hex()[:8]}.zoolog"
