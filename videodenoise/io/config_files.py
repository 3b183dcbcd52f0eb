"""Reading option files (`train --config`, `experiment CONFIG`): TOML or JSON, one way for both.

TOML comes from the standard library's tomllib (Python ≥ 3.11) or, on Python 3.10, from tomli, the
same parser under its original name (a dependency there only), so every supported Python reads TOML.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from videodenoise.errors import ConfigError

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

__all__ = ["read_config_file"]


class _DuplicateKey(Exception):
    """A JSON object gives one key twice."""


def _refuse_duplicates(pairs: list[tuple[str, object]]) -> dict:
    """json's object_pairs_hook, for every object at any depth: JSON itself keeps the last of two equal
    keys without a word, where TOML refuses them; an option file is read the TOML way."""
    values = {}
    for key, value in pairs:
        if key in values:
            raise _DuplicateKey(key)
        values[key] = value
    return values


def read_config_file(path: str | os.PathLike, what: str = "config file", error: type = ConfigError) -> dict:
    """The table of a .toml file, or of a JSON file (any other suffix), as a dict; a one-line `error`
    when it is missing, unreadable, not valid TOML/JSON, gives a key twice, or is not a table."""
    path = Path(path)
    if not path.is_file():
        raise error(f"{what} '{path}' does not exist" + ("; it is a folder" if path.is_dir() else ""))
    try:
        text = path.read_text()
        if path.suffix.lower() == ".toml":
            values = tomllib.loads(text)
        else:
            values = json.loads(text, object_pairs_hook=_refuse_duplicates)
    except _DuplicateKey as duplicate:
        raise error(f"{what} '{path}' gives the key '{duplicate}' twice; keep one of them") from None
    except RecursionError:  # nested deeper than Python's parser goes
        raise error(f"{what} '{path}' is nested too deeply to be an option file") from None
    except (ValueError, UnicodeDecodeError) as problem:  # tomllib.TOMLDecodeError and JSONDecodeError are ValueErrors
        kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
        raise error(f"{what} '{path}' cannot be parsed as {kind} ({' '.join(str(problem).split())})") from None
    if not isinstance(values, dict):
        raise error(f"{what} '{path}' must hold a table of options, not a {type(values).__name__}")
    return values
