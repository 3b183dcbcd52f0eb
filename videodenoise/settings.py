"""Settings are frozen dataclasses whose fields carry their own help; everything else derives from them.

    @dataclass(frozen=True)
    class DenoiseSettings:
        window: int = setting(5, "Frames the model sees at once (reflected at the ends).")

A settings class is the one place a setting is written: its default, its type and its help text. The
command line builds its options from the fields (`videodenoise.cli.options`), option files and saved
run configs are read through `from_mapping`, and presets are named instances. So a new setting is
one line, and nothing can fall out of step. Its type is checked the same way everywhere too: every
settings class's validation starts with `check_fields` (each value fits its annotation, and a float is
finite), and `from_mapping` checks a file's values against the same annotations before building.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar, Union

from videodenoise.errors import ConfigError

T = TypeVar("T")

# the group of a command's --help that lists the device options of every settings class (`setting`'s panel)
DEVICE_PANEL = "Device"

# seeds are non-negative and fit 32 bits: every generator the package seeds (torch, numpy) takes them
MAX_SEED = 2**32 - 1


def setting(
    default: Any = dataclasses.MISSING,
    help: str = "",
    *,
    default_factory: Any = dataclasses.MISSING,
    flag: str | None = None,
    cli: bool = True,
    metavar: str | None = None,
    scale: float = 1.0,
    panel: str | None = None,
) -> Any:
    """A dataclass field with its help text. flag: the command-line name when it is not the field's
    (e.g. "--sigma" for sigma_train); cli=False keeps a field off the command line (set it in a file);
    scale: the command line takes the value times this (255 for a σ the library holds on [0, 1]); panel: the
    group of the command's --help that lists it (None: its main options; a nested settings field's panel is its
    fields')."""
    metadata = {"help": help, "flag": flag, "cli": cli, "metavar": metavar, "scale": scale, "panel": panel}
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
    # each value against its field's type before the class sees it (a nested settings class may still be a
    # table here), so that a class whose checks compare numbers never meets text instead of a crash
    hints = _type_hints(cls)
    for key, value in values.items():
        if not fits(value, hints[key], tables=True):
            raise error(f"{what} {key}{where} must be {describe(hints[key])}, got {_shown(value)}")
    try:
        return cls(**values)
    except TypeError as problem:  # e.g. a nested table where a number belongs
        raise error(f"invalid {what}s {dict(values)}: {problem}") from None


def check_fields(instance: Any, error: type[Exception] = ConfigError, what: str = "option") -> None:
    """Refuse, as one line naming the field ("{what} NAME must be ..., got ..."), a field of the dataclass
    `instance` whose value does not fit its annotation; a float must also be finite (a NaN learning rate
    trains to NaN without a word). Every settings class calls this first in its validation, once its
    nested settings are objects, so that the library, the command line and option files are all checked."""
    problem = field_problem(instance)
    if problem is not None:
        raise error(f"{what} {problem}")


def field_problem(instance: Any) -> str | None:
    """The first field of a dataclass instance whose value does not fit its annotation (see `fits`), as
    "NAME must be ..., got ...", else None."""
    hints = _type_hints(type(instance))
    for field in dataclasses.fields(instance):
        value = getattr(instance, field.name)
        if not fits(value, hints[field.name]):
            return f"{field.name} must be {describe(hints[field.name])}, got {_shown(value)}"
    return None


def fits(value: Any, annotation: Any, tables: bool = False) -> bool:
    """Whether `value` is of the type `annotation` says: int (not a bool), float (an int is fine; not
    NaN or infinity), str, bool, list[X] (a tuple too), dict[K, V], X | None, Any, or a settings
    dataclass (an instance, or with tables=True a mapping of its fields, checked when it is built)."""
    if annotation is Any:
        return True
    if annotation is None or annotation is type(None):
        return value is None
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (Union, types.UnionType):
        return any(fits(value, argument, tables) for argument in arguments)
    if origin is list:
        return isinstance(value, (list, tuple)) and all(fits(item, arguments[0], tables) for item in value)
    if origin is dict:
        key_type, value_type = arguments or (Any, Any)
        return isinstance(value, Mapping) and all(
            fits(key, key_type, tables) and fits(item, value_type, tables) for key, item in value.items()
        )
    if annotation is bool:
        return isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        try:
            return math.isfinite(value)
        except OverflowError:  # an int too large for a float
            return False
    if dataclasses.is_dataclass(annotation):
        return isinstance(value, annotation) or (tables and isinstance(value, Mapping))
    return not isinstance(annotation, type) or isinstance(value, annotation)  # other typing forms: not ours to check


def describe(annotation: Any, plural: bool = False) -> str:
    """What a value of the type `annotation` is, in words: "an integer or none", "a list of finite numbers"."""
    if annotation is Any:
        return "anything"
    if annotation is None or annotation is type(None):
        return "none"
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (Union, types.UnionType):
        return " or ".join(describe(argument, plural) for argument in arguments)
    if origin is list:
        return ("lists" if plural else "a list") + f" of {describe(arguments[0], plural=True)}"
    if origin is dict and arguments[1:] and arguments[1] is not Any:
        return ("tables" if plural else "a table") + f" of {describe(arguments[1], plural=True)}"
    if origin is dict or annotation is dict:
        return "tables" if plural else "a table"
    words = {
        bool: ("true or false", "true or false values"),
        int: ("an integer", "integers"),
        float: ("a finite number", "finite numbers"),
        str: ("a string", "strings"),
    }
    if annotation in words:
        return words[annotation][plural]
    if dataclasses.is_dataclass(annotation):
        return f"{'tables' if plural else 'a table'} of {annotation.__name__} fields"
    return getattr(annotation, "__name__", str(annotation))


def is_seed(seed: Any) -> bool:
    """Whether `seed` is a seed the package can use: an integer in [0, MAX_SEED]."""
    return isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed <= MAX_SEED


@functools.cache
def _type_hints(cls: type) -> dict[str, Any]:
    # the annotations are strings (from __future__ import annotations): resolved once per class
    return typing.get_type_hints(cls)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
