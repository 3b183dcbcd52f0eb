"""Command-line options made from settings dataclasses, so that a setting is written once.

    @settings_options(TrainConfig)
    def train(settings: dict, config: Path = typer.Option(...)) -> None:
        values = merge(file_values, settings)          # only what was given on the command line

Every field of the class (nested settings dataclasses flattened: `--crop` is `data.crop`) becomes an
option named after it (or its `flag`), with the field's help and its default shown. An option left
out is None, so that a config file or a preset fills it; `settings` holds what was given, nested like
the dataclass, converted to the library's units (a σ given on the 0-255 scale is stored on [0, 1]).

How a field's type reads on the command line: bool as --name/--no-name; int, float and str as
themselves, or "none" where the field may be None; a list as comma-separated values; a table (dict)
as JSON, except model options (KEY=VALUE, repeatable); a nested settings object that may be off
(FusionSettings | None) as --name/--no-name.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Union

import typer

from videodenoise.errors import VideodenoiseError
from videodenoise.settings import describe, fits


@dataclasses.dataclass(frozen=True)
class CliSetting:
    """One dataclass field as a command-line option."""

    path: tuple[str, ...]  # ("data", "crop") for TrainConfig.data.crop
    field: dataclasses.Field
    kind: type  # the field's type without None
    optional: bool  # the field may be None
    flag: str
    panel: str | None  # the group of --help that lists it (None: the command's main options)

    @property
    def name(self) -> str:  # the command function's parameter
        return self.path[-1]

    @property
    def scale(self) -> float:
        return self.field.metadata.get("scale", 1.0)


def _split_optional(annotation: Any) -> tuple[Any, bool]:
    if typing.get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return (args[0] if len(args) == 1 else annotation), len(args) < len(typing.get_args(annotation))
    return annotation, False


def _is_settings(kind: Any) -> bool:
    return isinstance(kind, type) and dataclasses.is_dataclass(kind)


def cli_settings(cls: type, path: tuple[str, ...] = (), panel: str | None = None) -> list[CliSetting]:
    """The command-line options of a settings class, nested settings flattened (except those that
    may be off, which are one --name/--no-name switch), each in its field's panel, else its enclosing field's."""
    hints = typing.get_type_hints(cls)
    found = []
    for field in dataclasses.fields(cls):
        if not field.metadata.get("cli", True):
            continue
        kind, optional = _split_optional(hints[field.name])
        own_panel = field.metadata.get("panel") or panel
        if _is_settings(kind) and not optional:
            found += cli_settings(kind, path + (field.name,), own_panel)
            continue
        flag = field.metadata.get("flag") or "--" + field.name.replace("_", "-")
        found.append(CliSetting(path + (field.name,), field, kind, optional, flag, own_panel))
    names = [s.name for s in found]
    duplicated = {n for n in names if names.count(n) > 1}
    assert not duplicated, f"settings of {cls.__name__} share option names: {duplicated}"
    return found


def _shown(value: Any, setting: CliSetting) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return setting.flag.lstrip("-") if value else "no-" + setting.flag.lstrip("-")
    if _is_settings(type(value)):
        return "on"
    if isinstance(value, (list, tuple)):
        return ",".join(_shown(v, setting) for v in value)
    if isinstance(value, float):
        return f"{value * setting.scale:g}"
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def _default(setting: CliSetting) -> Any:
    field = setting.field
    return field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default


def _parameter(setting: CliSetting, default_text: str) -> inspect.Parameter:
    help = setting.field.metadata.get("help", "")
    metavar = setting.field.metadata.get("metavar")
    shown_default = default_text or False
    panel = setting.panel
    kind = setting.kind
    if kind is bool or (_is_settings(kind) and setting.optional):
        flags = f"{setting.flag}/--no-{setting.flag[2:]}"
        annotation = bool | None
        option = typer.Option(None, flags, help=help, show_default=shown_default, rich_help_panel=panel)
    elif typing.get_origin(kind) is dict and setting.name == "model_options":
        annotation = list[str]
        option = typer.Option([], setting.flag, help=help, metavar=metavar, rich_help_panel=panel)
    elif kind in (int, float, str) and not setting.optional:
        annotation = kind | None
        option = typer.Option(
            None, setting.flag, help=help, metavar=metavar, show_default=shown_default, rich_help_panel=panel
        )
    else:  # may be none, or a list or table: read as text
        shown = metavar or (kind.__name__.upper() if isinstance(kind, type) else "LIST")
        annotation = str | None
        option = typer.Option(
            None,
            setting.flag,
            help=help,
            metavar=shown + ("|none" if setting.optional else ""),
            show_default=shown_default,
            rich_help_panel=panel,
        )
    return inspect.Parameter(setting.name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=annotation)


def _convert(setting: CliSetting, raw: Any) -> Any:
    """The library's value of what the command line gave."""
    kind, flag = setting.kind, setting.flag
    if setting.name == "model_options":
        return parse_pairs(raw)
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and setting.optional and raw.strip().lower() == "none":
        return None
    try:
        if kind in (int, float):
            value = kind(raw)
            if not fits(value, kind):  # "nan" and "inf" read as floats, but no setting takes them
                raise ValueError
            return value / setting.scale if setting.scale != 1 else value
        if kind is str:
            return raw
        origin = typing.get_origin(kind)
        if origin is list:
            (item,) = typing.get_args(kind)
            if raw.strip().lower() == "none":
                return []
            values = [item(part) for part in split_list(raw)]
            if not fits(values, kind):
                raise ValueError
            return [v / setting.scale for v in values] if setting.scale != 1 else values
        if origin is dict:
            value = json.loads(raw)
            if not isinstance(value, dict):
                raise ValueError
            return value
    except ValueError:
        raise VideodenoiseError(f"{flag} must be {_expected(setting)}, got '{raw}'") from None
    raise TypeError(f"no command-line form for {setting.path} of type {kind}")


def _expected(setting: CliSetting) -> str:
    kind = setting.kind
    if typing.get_origin(kind) is list:
        return f"a comma-separated list of {'numbers' if typing.get_args(kind)[0] in (int, float) else 'names'}"
    if typing.get_origin(kind) is dict:
        return "a JSON table, e.g. '{}'"
    return describe(kind) + (" or none" if setting.optional else "")


def split_list(text: str) -> list[str]:
    """'0.5,1 2' → ['0.5', '1', '2']."""
    return [item.strip() for item in text.replace(" ", ",").split(",") if item.strip()]


def parse_pairs(pairs: list[str]) -> dict:
    """KEY=VALUE strings → a dict, each value read as JSON when it is JSON (6, true, "x"), else as text."""
    options = {}
    for pair in pairs:
        if "=" not in pair:
            raise VideodenoiseError(f"model option '{pair}' must look like KEY=VALUE (e.g. layers=6)")
        key, raw = pair.split("=", 1)
        try:
            options[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            options[key.strip()] = raw
    return options


def settings_options(cls: type, defaults: Mapping[str, Any] | None = None) -> Callable:
    """Give a command every setting of `cls` as an option; the command receives `settings`, the nested
    dict of what was given. defaults: named instances (presets) whose values the help shows where
    they differ from the dataclass's own."""
    found = cli_settings(cls)

    def default_text(setting: CliSetting) -> str:
        own = _default(setting)
        if not defaults:
            return _shown(own, setting)
        values = {name: _value_at(preset, setting.path) for name, preset in defaults.items()}
        if all(value == own for value in values.values()):
            return _shown(own, setting)
        if len({_shown(value, setting) for value in values.values()}) == 1:
            return _shown(next(iter(values.values())), setting)
        return ", ".join(f"{name}: {_shown(value, setting)}" for name, value in values.items())

    derived = [_parameter(setting, default_text(setting)) for setting in found]

    def decorate(function: Callable) -> Callable:
        signature = inspect.signature(function)
        own = [p for p in signature.parameters.values() if p.name != "settings"]

        @functools.wraps(function)
        def command(**kwargs):
            given: dict = {}
            for setting in found:
                raw = kwargs.pop(setting.name)
                if raw is None or raw == []:
                    continue
                target = given
                for part in setting.path[:-1]:
                    target = target.setdefault(part, {})
                target[setting.name] = _convert(setting, raw)
            return function(settings=given, **kwargs)

        command.__signature__ = signature.replace(parameters=own + derived)
        command.__annotations__ = {**{p.name: p.annotation for p in own}, **{p.name: p.annotation for p in derived}}
        return command

    return decorate


def _value_at(instance: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        instance = getattr(instance, part)
    return instance


def merge(base: dict, given: dict) -> dict:
    """`base` (e.g. a config file's table) with `given` on top, nested tables merged key by key."""
    merged = dict(base)
    for key, value in given.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict) and key != "model_options":
            merged[key] = merge(merged[key], value)
        elif key == "model_options" and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged
