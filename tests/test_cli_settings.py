"""The command line is made from the settings dataclasses: every field is an option with the field's own
help, and what is typed arrives in the typed settings object, in the library's units."""

from __future__ import annotations

import dataclasses
import sys
import typing

import pytest
import torch
import typer.main

from videodenoise.cli.app import app, main
from videodenoise.denoise.settings import PIPELINE_PANEL, PRESETS, QUALITY_PANEL, DenoiseSettings
from videodenoise.evaluation.config import EvalConfig
from videodenoise.io.writers import write_video
from videodenoise.models.checkpoints import SHIPPED
from videodenoise.settings import DEVICE_PANEL
from videodenoise.training.config import DataConfig, DescentConfig, TrainConfig

from helpers import run_cli

COMMANDS = {"train": TrainConfig, "evaluate": EvalConfig, "clean": DenoiseSettings, "demo": DenoiseSettings}


def leaf_fields(cls) -> list[dataclasses.Field]:
    """Every setting of a class, nested settings classes walked into (a switchable one counts as one)."""
    found = []
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        if dataclasses.is_dataclass(hints[field.name]):
            found += leaf_fields(hints[field.name])
        else:
            found.append(field)
    return found


def options_of(command: str) -> dict[str, object]:
    click_command = typer.main.get_command(app).commands[command]
    return {name: param for param in click_command.params for name in param.opts + param.secondary_opts}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_setting_is_an_option_with_the_fields_help(command):
    options = options_of(command)
    fields = leaf_fields(COMMANDS[command])
    assert len(fields) >= 10
    for field in fields:
        flag = field.metadata.get("flag") or "--" + field.name.replace("_", "-")
        assert flag in options, f"{command}: {field.name} has no option {flag}"
        assert field.metadata["help"] and options[flag].help.startswith(field.metadata["help"][:40])


# the groups of each command's --help, in the order it shows them
HELP_PANELS = {
    "clean": ["Arguments", "Options", QUALITY_PANEL, PIPELINE_PANEL, DEVICE_PANEL],
    "demo": ["Options", QUALITY_PANEL, PIPELINE_PANEL, DEVICE_PANEL],
    "train": ["Options", "Model", "Data", "Descent constraints", "Noise", "Optimisation", DEVICE_PANEL],
    "evaluate": ["Arguments", "Options", "Data", "Noise", "Methods", DEVICE_PANEL],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_lists_every_setting_in_its_group_with_its_whole_name(command, capsys, monkeypatch):
    options = options_of(command)
    hints = typing.get_type_hints(COMMANDS[command])
    for field in dataclasses.fields(COMMANDS[command]):  # a nested class's fields are listed in its field's group
        nested = dataclasses.is_dataclass(hints[field.name])
        for leaf in leaf_fields(hints[field.name]) if nested else [field]:
            flag = leaf.metadata.get("flag") or "--" + leaf.name.replace("_", "-")
            assert field.metadata["panel"] in HELP_PANELS[command], f"{command}: {field.name} is in no group"
            assert options[flag].rich_help_panel == field.metadata["panel"], flag
    monkeypatch.setattr(sys, "argv", ["videodenoise", command, "--help"])
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit) as ended:
        main()
    shown = capsys.readouterr().out
    assert ended.value.code == 0
    titles = [line.split("─ ")[1].split(" ─")[0] for line in shown.splitlines() if line.startswith("╭─ ")]
    assert titles == HELP_PANELS[command]
    for flag in options:  # none cut short to fit 100 columns
        assert any(word == flag for line in shown.splitlines() for word in line.split()), flag


def test_the_walk_reaches_nested_settings():
    names = {field.name for field in leaf_fields(TrainConfig)}
    assert {f.name for f in dataclasses.fields(DataConfig)} <= names
    assert {f.name for f in dataclasses.fields(DescentConfig)} <= names
    assert "data" not in names and "descent" not in names


class Captured(BaseException):  # not an Exception: the command's error boundary lets it through
    pass


def capture(monkeypatch, module, name, position: int, key: str | None = None):
    """Replace module.name by a function that records one argument (by position or keyword) and stops."""
    seen = {}

    def record(*args, **kwargs):
        seen["value"] = kwargs[key] if key in kwargs else args[position]
        raise Captured()

    monkeypatch.setattr(module, name, record)
    return seen


def test_train_flags_become_the_typed_config_in_library_units(tmp_path, capsys, monkeypatch):
    from videodenoise.training import trainer

    seen = capture(monkeypatch, trainer, "Trainer", 0)
    config = tmp_path / "run.toml"
    config.write_text("epochs = 3\n[data]\ncrop = 40\nclip_length = 4\n[model_options]\nlayers = 4\n")
    args = [
        "train",
        "--config",
        config,
        "--crop",
        "32",
        "--alpha",
        "0.2",
        "--sigma",
        "30",
        "--sigma-range",
        "0,51",
        "--model-option",
        "heads=2",
        "--no-include-first-layer",
        "--grad-clip",
        "none",
        "--fusion",
        "{}",
        "--resilience",
        "2",
    ]
    with pytest.raises(Captured):
        run_cli(args, capsys, monkeypatch)
    got = seen["value"]
    assert isinstance(got, TrainConfig)
    assert (got.epochs, got.data.crop, got.data.clip_length) == (3, 32, 4)  # flags over the file, the file kept
    assert got.descent.alpha == 0.2 and got.descent.include_first_layer is False and got.descent.resilience == 2
    assert got.sigma_train == pytest.approx(30 / 255) and got.sigma_range == pytest.approx([0, 0.2])
    assert got.model_options == {"layers": 4, "heads": 2} and got.grad_clip is None and got.fusion == {}


def test_evaluate_and_clean_flags_become_their_settings(tmp_path, capsys, monkeypatch):
    from videodenoise.denoise.denoiser import Denoiser
    from videodenoise.evaluation import sweep

    seen = capture(monkeypatch, sweep, "evaluate", 1)
    with pytest.raises(Captured):
        run_cli(
            [
                "evaluate",
                "--gammas",
                "1,2",
                "--sigma-train",
                "50",
                "--noise",
                "uniform",
                "--baselines",
                "none",
                "--no-clamp",
                "--out",
                tmp_path / "e",
            ],
            capsys,
            monkeypatch,
        )
    got = seen["value"]
    assert isinstance(got, EvalConfig) and got.gammas == [1.0, 2.0] and got.noises == ["uniform"]
    assert got.sigma_train == pytest.approx(50 / 255) and got.baselines == [] and got.clamp is False

    movie = write_video(tmp_path / "in.mp4", torch.rand(3, 3, 16, 16))
    seen = {}

    def record(path=None, settings=DenoiseSettings()):
        seen["value"], seen["path"] = settings, path
        raise Captured()

    monkeypatch.setattr(Denoiser, "from_checkpoint", staticmethod(record))
    with pytest.raises(Captured):
        run_cli(
            ["clean", movie, "--quality", "best", "--tile", "0", "--stride", "2", "--colour", "rgb"],
            capsys,
            monkeypatch,
        )
    got = seen["value"]
    assert isinstance(got, DenoiseSettings)
    assert (got.tile, got.stride, got.colour, got.patch_stride) == (0, 2, "rgb", 2)  # best's patch stride kept
    assert got.fusion == PRESETS["best"].fusion  # best's fusion kept
    assert seen["path"] == SHIPPED / "dust-video-wide.safetensors"  # best's own weights
    with pytest.raises(Captured):
        run_cli(["clean", movie, "--no-fusion"], capsys, monkeypatch)
    assert seen["value"].fusion is None and seen["value"].frames_kept() == 3
    assert seen["path"] == SHIPPED / "dust-video.safetensors"  # the fast preset's: the default
    with pytest.raises(Captured):
        run_cli(["clean", movie, "--quality", "best", "--checkpoint", movie], capsys, monkeypatch)
    assert seen["path"] == movie and seen["value"].patch_stride == 2  # weights given: those, with best's settings
    for args, preset_name, radius in (
        (["--fusion-radius", "6"], "fast", 6),
        (["--quality", "best", "--fusion-radius", "1"], "best", 1),
    ):
        with pytest.raises(Captured):
            run_cli(["clean", movie, *args], capsys, monkeypatch)
        assert seen["value"].fusion == dataclasses.replace(PRESETS[preset_name].fusion, radius=radius)  # the rest kept
    with pytest.raises(Captured):  # σ × 1.5, then best's calibration of what the model is told, as ever
        run_cli(["clean", movie, "--quality", "best", "--sigma-scale", "1.5"], capsys, monkeypatch)
    assert (seen["value"].sigma_scale, seen["value"].calibrate, seen["value"].passes) == (1.5, True, 2)


@pytest.mark.parametrize(
    "args, message",
    [
        (["train", "--sigma-range", "0,x"], "--sigma-range must be a comma-separated list of numbers, got '0,x'"),
        (["train", "--fusion", "[1]"], "--fusion must be a JSON table"),
        (["train", "--crop", "0", "--crop", "x"], "Invalid value for '--crop'"),
        (["clean", "nothing.mp4", "--window", "0"], "the temporal window must be from 1 to 64 frames"),
        (["clean", "nothing.mp4", "--sigma-scale", "0"], "--sigma-scale is a factor > 0 (1: the σ as it is), got 0"),
        (["clean", "no.mp4", "--sigma", "none", "--sigma-scale", "2"], "--sigma-scale multiplies σ: it needs σ (a"),
    ],
)
def test_a_bad_setting_is_one_line_naming_it(args, message, capsys, monkeypatch):
    code, out, err = run_cli(args, capsys, monkeypatch)
    assert code in (1, 2) and message in err and "Traceback" not in err


def test_threads_apply_to_torch_and_opencv_for_any_command(capsys, monkeypatch, tmp_path):
    import cv2

    before = torch.get_num_threads(), cv2.getNumThreads()
    try:
        code, _, err = run_cli(["--threads", "1", "clean", tmp_path / "missing.mp4"], capsys, monkeypatch)
        assert code == 1 and "does not exist" in err  # the command ran, on one thread
        assert (torch.get_num_threads(), cv2.getNumThreads()) == (1, 1)
    finally:
        torch.set_num_threads(before[0])
        cv2.setNumThreads(before[1])
    for bad in ("0", "-2"):
        code, _, err = run_cli(["--threads", bad, "clean", tmp_path / "missing.mp4"], capsys, monkeypatch)
        assert code == 1 and err.strip() == f"error: --threads must be a whole number of at least 1, got {int(bad)}"
