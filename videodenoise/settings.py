"""Settings are frozen dataclasses whose fields carry their own help; everything else derives from them.

    @dataclass(frozen=True)
    class DenoiseSettings:
        window: int = setting(5, "Frames the model sees at once (reflected at the ends).")

A settings class is the one place a setting is written: its default, its type and its help text. The
command line builds its options from the fields (`videodenoise.cli.options`), option files and saved
run configs are read through `from_mapping`, and presets are named instances. So a new setting is
one line, and nothing can fall out of step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

from videodenoise.errors import ConfigError

T = TypeVar("T")


def setting(
    default: Any = dataclasses.MISSING,
    help: str = "",
    *,
    default_factory: Any = dataclasses.MISSING,
    flag: str | None = None,
    cli: bool = True,
    metavar: str | None = None,
    scale: float = 1.0,
) -> Any:
    """A dataclass field with its help text. flag: the command-line name when it is not the field's
    (e.g. "--sigma" for sigma_train); cli=False keeps a field off the command line (set it in a file);
    scale: the command line takes the value times this (255 for a σ the library holds on [0, 1])."""
    metadata = {"help": help, "flag": flag, "cli": cli, "metavar": metavar, "scale": scale}
    if default_factory is not dataclasses.MISSING:
        return dataclasses.field(default_factory=default_factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def from_mapping(
    cls: type[T], values: Any, error: type[Exception] = ConfigError, what: str = "option", where: str = ""
) -> T:
    """An instance of the dataclass `cls` from a mapping (a table of an option file, a saved config),
    or a one-line `error`: unknown keys are refused with the valid ones listed ("unknown {what}(s) KEYS
    {where}; valid: ..."), and a value of the wrong kind names its key."""
    if isinstance(values, cls):
        return values
    if not isinstance(values, Mapping):
        raise error(f"the {what}s must be a table of KEY = VALUE, got {type(values).__name__} {values!r}")
    known = [field.name for field in dataclasses.fields(cls)]
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise error(f"unknown {what}(s) {', '.join(map(str, unknown))}{where}; valid: {', '.join(sorted(known))}")
    try:
        return cls(**values)
    except TypeError as problem:  # e.g. a nested table where a number belongs
        raise error(f"invalid {what}s {dict(values)}: {problem}") from None
