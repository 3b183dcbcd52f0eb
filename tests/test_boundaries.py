"""Everything that enters from outside is checked where it enters: untrusted weights files (bounded
config, tensors compared with the config's model before anything is built, bounded memory), every
settings field (type, finite floats, ranges, from the command line, option files and the library),
JSON files that give a key twice, and training that goes NaN (stopped, last good checkpoint kept)."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys
import textwrap
import typing
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from videodenoise.errors import (
    ConfigError,
    EvaluationError,
    ExperimentError,
    ModelError,
    TrainingDivergedError,
    VideodenoiseError,
)
from videodenoise.evaluation.config import EvalConfig
from videodenoise.evaluation.experiment import load_experiment
from videodenoise.io.config_files import read_config_file
from videodenoise.models.checkpoints import load_checkpoint
from videodenoise.models.config import MAX_LAYERS, MAX_PATCH_SIZE, MAX_WIDTH
from videodenoise.models.registry import MAX_HEADER_BYTES, build_model, load_model, save_model
from videodenoise.settings import MAX_SEED, from_mapping
from videodenoise.training.config import DataConfig, DescentConfig, TrainConfig
from videodenoise.training.trainer import Trainer

import replicas as R
from helpers import run_cli, tiny_config

TINY_MODEL = {"layers": 2, "patch_size": 4, "stride": 2}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("ped2")
    R.make_repackaged(root, "ped2", size=(24, 32))
    return root


def one_line_error(code: int, err: str, *parts: str) -> None:
    assert code == 1, err
    assert err.count("\n") == 1 and "Traceback" not in err and "failed unexpectedly" not in err, err
    for part in parts:
        assert part in err, err


# ---------------------------------------------------------------------------------------------------
# untrusted weights files


def tiny_tensors() -> tuple[dict[str, torch.Tensor], dict]:
    """The tensors of a real small DUST and its config as save_model writes it."""
    model = build_model("dust", **TINY_MODEL)
    return {k: v.contiguous() for k, v in model.state_dict().items()}, dataclasses.asdict(model.config)


def crafted(path: Path, config: dict, name: str = "dust", tensors: dict | None = None) -> Path:
    """A weights file with our metadata whose config says `config`, holding `tensors` (default: a tiny DUST's)."""
    tensors = tiny_tensors()[0] if tensors is None else tensors
    save_file(tensors, str(path), metadata={"videodenoise_model": name, "config": json.dumps(config)})
    return path


@pytest.mark.parametrize(
    "option, value",
    [
        ("layers", 10_000_000),
        ("layers", MAX_LAYERS + 1),
        ("code_size", 10**9),
        ("patch_size", MAX_PATCH_SIZE + 1),
        ("heads", 10**6),
        ("head_dim", 10**7),
        ("neighbourhood", 10**6 + 1),
        ("layers", 1e300),
        ("sigma", math.inf),
    ],
)
def test_a_config_out_of_bounds_is_refused_before_anything_is_built(tmp_path, option, value):
    config = dict(tiny_tensors()[1], **{option: value})
    path = crafted(tmp_path / "hostile.safetensors", config)
    with pytest.raises(ModelError) as caught:
        load_model(path)
    message = str(caught.value)
    assert str(path) in message and option in message and "invalid model config" in message
    assert "\n" not in message
    # the library refuses the same config without a file
    with pytest.raises(ModelError, match=option):
        build_model("dust", **config)


def test_ut_widths_are_bounded_too(tmp_path):
    for option in ("width", "ffn_hidden"):
        config = {"feed_forward": "mlp", "width": 16, option: MAX_WIDTH * 2}
        with pytest.raises(ModelError, match=f"{option} must be between 1 and {MAX_WIDTH}"):
            load_model(crafted(tmp_path / f"{option}.safetensors", config, name="ut"))


def test_tensors_that_do_not_fit_the_config_are_refused_before_building(tmp_path):
    tensors, config = tiny_tensors()
    # a config within bounds whose model would take gigabytes: compared on the meta device, never built
    huge = dict(config, channels=3, patch_size=32, stride=16, code_size=MAX_WIDTH, layers=MAX_LAYERS)
    with pytest.raises(ModelError, match="does not fit a dust model with this config .*wrong shape dictionary"):
        load_model(crafted(tmp_path / "huge.safetensors", huge))

    # more tensors than the config's model holds (a file far bigger than its model)
    bigger = {k: v.contiguous() for k, v in build_model("dust", **dict(TINY_MODEL, layers=5)).state_dict().items()}
    with pytest.raises(ModelError, match="does not fit .*unexpected layers.2"):
        load_model(crafted(tmp_path / "bigger.safetensors", config, tensors=bigger))

    # one tensor of another shape
    reshaped = dict(tensors, dictionary=torch.zeros(16, 65))
    with pytest.raises(ModelError, match=r"wrong shape dictionary \(16, 65\) vs \(16, 64\)"):
        load_model(crafted(tmp_path / "reshaped.safetensors", config, tensors=reshaped))

    # a tensor that is not floating point, under the right name and shape
    integer = dict(tensors, dictionary=torch.zeros(16, 64, dtype=torch.int64))
    with pytest.raises(ModelError, match="holds dictionary as I64, not floating point"):
        load_model(crafted(tmp_path / "integer.safetensors", config, tensors=integer))

    # the real thing still loads
    exact = load_model(crafted(tmp_path / "exact.safetensors", config))
    assert torch.equal(exact.dictionary, tensors["dictionary"])


def test_a_header_that_safetensors_would_not_write_is_refused(tmp_path):
    model = build_model("dust", **TINY_MODEL)
    data = save_model(model, tmp_path / "good.safetensors").read_bytes()
    claims_too_much = tmp_path / "claims.safetensors"
    claims_too_much.write_bytes((MAX_HEADER_BYTES + 1).to_bytes(8, "little") + data[8:])
    past_the_end = tmp_path / "past.safetensors"
    past_the_end.write_bytes((len(data)).to_bytes(8, "little") + data[8:])
    short = tmp_path / "short.safetensors"
    short.write_bytes(b"\x01\x02")
    for path in (claims_too_much, past_the_end, short):
        with pytest.raises(ModelError, match=f"{path} is not a safetensors weights file"):
            load_model(path)
    # a checkpoint is read through the same checks
    with pytest.raises(ModelError, match="not a safetensors"):
        load_checkpoint(claims_too_much)


HOSTILE_LOAD = textwrap.dedent(
    """
    import json, resource, sys
    import torch
    torch.set_num_threads(1)
    from videodenoise.errors import ModelError
    from videodenoise.models.registry import load_model

    # torch alone maps gigabytes of address space (its libraries), so the limit is what is mapped once
    # everything is imported, plus a headroom far below what the hostile configs would take
    mapped = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmSize:"))
    limit = mapped + (1 << 30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    results = {}
    try:
        bytearray(2 << 30)
        results["limit"] = "not enforced"
    except MemoryError:
        results["limit"] = "enforced"
    for path in sys.argv[1:]:
        try:
            load_model(path)
            results[path] = "loaded"
        except ModelError as error:
            results[path] = "ModelError: " + str(error)
        except Exception as error:  # MemoryError, or torch's allocator failing: what unchecked loading did
            results[path] = type(error).__name__
    print(json.dumps(results))
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc/self/status are Linux's")
def test_hostile_files_load_in_bounded_memory(tmp_path):
    tensors, config = tiny_tensors()
    files = {
        "layers": crafted(tmp_path / "layers.safetensors", dict(config, layers=10_000_000)),
        "code_size": crafted(tmp_path / "code.safetensors", dict(config, code_size=2**40)),
        "shapes": crafted(
            tmp_path / "shapes.safetensors",
            dict(config, channels=3, patch_size=32, stride=16, code_size=MAX_WIDTH, layers=MAX_LAYERS),
        ),
        "good": crafted(tmp_path / "good.safetensors", config),
    }
    environment = dict(os.environ, OMP_NUM_THREADS="1", MALLOC_ARENA_MAX="2")
    done = subprocess.run(
        [sys.executable, "-c", HOSTILE_LOAD, *map(str, files.values())],
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert results.pop("limit") == "enforced"
    assert results.pop(str(files.pop("good"))) == "loaded"  # a real file loads under the same limit
    expected = {"layers": "layers must be between 1 and", "code_size": "code_size must be between 1 and"}
    expected["shapes"] = "does not fit a dust model with this config"
    for case, path in files.items():
        assert results[str(path)].startswith(f"ModelError: {path}") and expected[case] in results[str(path)]


def test_shipped_weights_load_without_the_meta_skeleton():
    # the package's own file is built directly (its tensors still checked before loading): the "meta" device's
    # first use imports torch's meta kernels and compiler, 0.85 s of every `clean`'s start-up
    probe = (
        "import sys; from videodenoise.models.checkpoints import load_checkpoint; model, _ = load_checkpoint(None); "
        "print(type(model).__name__, 'torch._dynamo' in sys.modules, 'sympy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["DUST", "False", "False"]


# ---------------------------------------------------------------------------------------------------
# every settings field, from the library and from files

SETTINGS_CLASSES = [
    (TrainConfig, ConfigError),
    (DataConfig, ConfigError),
    (DescentConfig, ConfigError),
    (EvalConfig, EvaluationError),
]


def leaves(annotation) -> set:
    """The plain types an annotation is made of: float for `list[float] | None`."""
    arguments = typing.get_args(annotation)
    return set().union(*(leaves(a) for a in arguments)) if arguments else {annotation}


def fields_of(kind: type) -> list[tuple[type, type, str, typing.Any]]:
    cases = []
    for cls, error in SETTINGS_CLASSES:
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            if kind is object or kind in leaves(hints[field.name]):
                cases.append((cls, error, field.name, hints[field.name]))
    return cases


def non_finite_value(annotation, number: float):
    return [number] if list in {typing.get_origin(a) for a in (annotation, *typing.get_args(annotation))} else number


def test_every_float_field_of_every_settings_class_is_covered():
    found = {f"{cls.__name__}.{name}" for cls, _, name, _ in fields_of(float)}
    assert {"TrainConfig.lr", "DataConfig.resize", "DescentConfig.resilience", "EvalConfig.gammas"} <= found
    assert len(found) >= 15


@pytest.mark.parametrize(
    "cls, error, name, annotation", fields_of(float), ids=lambda v: v if isinstance(v, str) else None
)
def test_no_float_setting_takes_nan_or_infinity(cls, error, name, annotation):
    for number in (math.nan, math.inf, -math.inf):
        value = non_finite_value(annotation, number)
        with pytest.raises(error, match=f"{name} must be .*finite number"):
            cls(**{name: value})  # the library
        with pytest.raises(error, match=f"{name} must be .*finite number"):
            from_mapping(cls, {name: value}, error, "option")  # an option file


@pytest.mark.parametrize(
    "cls, error, name, annotation", fields_of(object), ids=lambda v: v if isinstance(v, str) else None
)
def test_every_setting_refuses_a_value_of_the_wrong_type(cls, error, name, annotation):
    wrong = {1, 2}  # a set: no setting takes one
    with pytest.raises(error, match=name):
        cls(**{name: wrong})
    with pytest.raises(error, match=name):
        from_mapping(cls, {name: wrong}, error, "option")


@pytest.mark.parametrize(
    "text, message",
    [
        ('epochs = "ten"', "training option epochs must be an integer, got 'ten'"),
        ("epochs = 2.5", "training option epochs must be an integer, got 2.5"),
        ("lr = inf", "training option lr must be a finite number, got inf"),
        ("lr = nan", "training option lr must be a finite number, got nan"),
        ('lr = "fast"', "training option lr must be a finite number, got 'fast'"),
        ("clip_noise = 1", "training option clip_noise must be true or false, got 1"),
        ("model = 3", "training option model must be a string, got 3"),
        ("sigma_range = [0.1, nan]", "sigma_range must be a list of finite numbers or none"),
        ("model_options = 5", "training option model_options must be a table"),
        ("descent = 5", "training option descent must be a table of DescentConfig fields, got 5"),
        ("[data]\ncrop = [1, 2]", "data option crop must be an integer, got [1, 2]"),
        ('[data]\nresize = "half"', "data option resize must be a finite number or none, got 'half'"),
        ("[descent]\nalpha = true", "descent option alpha must be a finite number, got True"),
        ("[descent]\nresilience = inf", "descent option resilience must be a finite number or none, got inf"),
        ("fusion = { radius = 1.5 }", "fusion setting radius must be an integer, got 1.5"),
        ("fusion = { flow_blur = nan }", "fusion setting flow_blur must be a finite number, got nan"),
    ],
)
def test_a_config_file_value_of_the_wrong_kind_is_one_line_naming_its_key(
    text, message, root, tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "train.toml"
    extra = "sigma_range = [0.02, 0.2]\n" if text.startswith("fusion") else ""
    config.write_text(f"{extra}{text}\n")
    code, out, err = run_cli(
        ["train", "--config", config, "--dataset", "ucsd-ped2", "--root", root, "--run-dir", tmp_path / "run"],
        capsys,
        monkeypatch,
    )
    one_line_error(code, err, message)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.toml"]  # nothing written


def train_args(root, tmp_path, *extra) -> list:
    return [
        "train",
        "--dataset",
        "ucsd-ped2",
        "--root",
        root,
        "--crop",
        "12",
        "--val-crop",
        "16",
        "--clip-length",
        "3",
        "--samples-per-epoch",
        "8",
        "--val-clips-per-video",
        "1",
        "--batch-size",
        "4",
        "--epochs",
        "1",
        *[item for key, value in TINY_MODEL.items() for item in ("--model-option", f"{key}={value}")],
        "--device",
        "cpu",
        "--quiet",
        "--run-dir",
        tmp_path / "run",
        *extra,
    ]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--lr", "nan"], "--lr must be a finite number, got 'nan'"),
        (["--lr", "inf"], "--lr must be a finite number, got 'inf'"),
        (["--sigma", "nan"], "--sigma must be a finite number, got 'nan'"),
        (["--alpha", "-inf"], "--alpha must be a finite number, got '-inf'"),
        (["--sigma-range", "0,nan"], "--sigma-range must be a comma-separated list of numbers, got '0,nan'"),
        (["--seed", "-1"], f"seed must be an integer from 0 to {MAX_SEED}, got -1"),
        (["--seed", str(MAX_SEED + 1)], f"seed must be an integer from 0 to {MAX_SEED}"),
        (["--max-steps", "0"], "max_steps must be at least 1 (or none: no limit), got 0"),
        (["--max-steps", "-3"], "max_steps must be at least 1 (or none: no limit), got -3"),
        (["--epochs", "0"], "epochs must be at least 1, got 0"),
        (["--batch-size", "0"], "batch size must be at least 1, got 0"),
        (["--warmup-steps", "-1"], "warmup_steps must be 0 (no warm-up) or more, got -1"),
        (["--checkpoint-every", "-1"], "checkpoint_every must be 0 (at the end of every epoch only) or more steps"),
        (["--samples-per-epoch", "0"], "samples_per_epoch must be at least 1, got 0"),
        (["--clip-length", "0"], "clip_length must be at least 1 frame, got 0"),
        (["--crop", "0"], "crop must be at least 1 pixel, got 0"),
        (["--val-crop", "-8"], "val_crop must be at least 1 pixel or none (whole frames), got -8"),
        (["--val-clips-per-video", "0"], "val_clips_per_video must be at least 1, got 0"),
        (["--cache-mb", "-1"], "cache_mb must be 0 (no cache) or more megabytes, got -1"),
        (["--resize", "0"], "resize must be a positive scale factor (e.g. 0.5) or none, got 0"),
        (["--resize", "-0.5"], "resize must be a positive scale factor (e.g. 0.5) or none, got -0.5"),
        (["--nupi-kp", "-1"], "the nupi gain nupi_kp must be >= 0, got -1"),
    ],
)
def test_a_bad_training_option_is_one_line_and_writes_nothing(extra, message, root, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(train_args(root, tmp_path, *extra), capsys, monkeypatch)
    one_line_error(code, err, message)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--resize", "0"], "resize must be a positive scale factor (e.g. 0.5) or none, got 0"),
        (["--resize", "-1"], "resize must be a positive scale factor"),
        (["--crop", "0"], "crop must be at least 1 pixel or none, got 0"),
        (["--seeds", "0,-1"], f"noise seeds must be integers from 0 to {MAX_SEED}, got [0, -1]"),
        (["--gammas", "1,nan"], "--gammas must be a comma-separated list of numbers, got '1,nan'"),
        (["--sigma-train", "inf"], "--sigma-train must be a finite number or none, got 'inf'"),
    ],
)
def test_a_bad_evaluation_option_is_one_line_and_writes_nothing(extra, message, root, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["evaluate", "--dataset", "ucsd-ped2", "--root", root, "--baselines", "noisy", "--quiet", *extra]
    code, out, err = run_cli(args, capsys, monkeypatch)
    one_line_error(code, err, message)
    assert list(tmp_path.iterdir()) == []


def test_library_configs_refuse_out_of_range_seeds_and_scales():
    with pytest.raises(ConfigError, match="seed must be an integer from 0"):
        TrainConfig(seed=-1)
    with pytest.raises(ConfigError, match="training option seed must be an integer, got True"):
        TrainConfig(seed=True)
    with pytest.raises(EvaluationError, match="noise seeds must be integers from 0"):
        EvalConfig(seeds=[0, -2])
    with pytest.raises(EvaluationError, match="evaluation option seeds must be a list of integers"):
        EvalConfig(seeds=[0.5])
    with pytest.raises(EvaluationError, match="resize must be a positive"):
        EvalConfig(resize=0.0)
    with pytest.raises(ConfigError, match="max_steps must be at least 1"):
        TrainConfig(max_steps=0)
    assert TrainConfig(seed=MAX_SEED, max_steps=1).seed == MAX_SEED


@pytest.mark.parametrize(
    "change, message",
    [
        ({"seeds": [0, -1]}, f"seeds must be integers from 0 to {MAX_SEED}, got [0, -1]"),
        ({"seeds": ["a"]}, "experiment option seeds in"),
        ({"training": {"lr": math.inf}}, "training option lr must be a finite number, got inf"),
        ({"training": {"max_steps": 0}}, "max_steps must be at least 1"),
        ({"evaluation": {"resize": -1}}, "resize must be a positive scale factor"),
        ({"models": "dust"}, "experiment option models in"),
        ({"datasets": [{"name": "ucsd-ped2", "root": 5}]}, "dataset option root must be a string or none, got 5"),
    ],
)
def test_an_experiment_config_is_checked_like_the_rest(change, message, root, tmp_path, capsys, monkeypatch):
    values = {
        "name": "tiny",
        "models": ["dust"],
        "seeds": [0],
        "datasets": [{"name": "ucsd-ped2", "root": str(root)}],
        "training": {"epochs": 1, "device": "cpu"},
    }
    config = tmp_path / "experiment.json"
    config.write_text(json.dumps({**values, **change}, allow_nan=True))
    with pytest.raises(ExperimentError):
        load_experiment(config)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["experiment", config, "--quiet"], capsys, monkeypatch)
    one_line_error(code, err, message)
    assert list(tmp_path.iterdir()) == [config]


# ---------------------------------------------------------------------------------------------------
# JSON files that give a key twice


@pytest.mark.parametrize(
    "text, key",
    [
        ('{"lr": 0.1, "epochs": 2, "lr": 0.2}', "lr"),
        ('{"data": {"crop": 8, "crop": 16}}', "crop"),
        ('{"fusion": {"radius": 1}, "model_options": {"x": {"a": [{"b": 1, "b": 2}]}}}', "b"),
    ],
)
def test_a_json_config_that_gives_a_key_twice_is_refused(text, key, root, tmp_path, capsys, monkeypatch):
    config = tmp_path / "twice.json"
    config.write_text(text)
    with pytest.raises(ConfigError, match=f"config file '{config}' gives the key '{key}' twice; keep one of them"):
        read_config_file(config)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(
        ["train", "--config", config, "--dataset", "ucsd-ped2", "--root", root], capsys, monkeypatch
    )
    one_line_error(code, err, f"gives the key '{key}' twice")
    assert list(tmp_path.iterdir()) == [config]
    experiment = tmp_path / "experiment.json"
    experiment.write_text(text)
    with pytest.raises(ExperimentError, match="twice"):
        load_experiment(experiment)


def test_json_without_repeated_keys_reads_as_before(tmp_path):
    config = tmp_path / "ok.json"
    config.write_text('{"lr": 0.1, "data": {"crop": 8}, "descent": {"alpha": 0.2}, "list": [{"a": 1}, {"a": 2}]}')
    assert read_config_file(config) == {
        "lr": 0.1,
        "data": {"crop": 8},
        "descent": {"alpha": 0.2},
        "list": [{"a": 1}, {"a": 2}],
    }


# ---------------------------------------------------------------------------------------------------
# training that goes non-finite


def finite_files(run: Path) -> int:
    """Check that every weight the run folder holds is finite; returns last.pt's step."""
    state = torch.load(run / "last.pt", weights_only=True)
    for name, tensor in state["model"].items():
        assert torch.isfinite(tensor).all(), name
    for name in ("last.safetensors", "best.safetensors"):
        load_checkpoint(run / name)  # refuses non-finite weights
    return state["step"]


@pytest.mark.parametrize(
    "poison_after, checkpoint_every, stopped, kept",
    [
        (5, 0, "step 6 (epoch 3): the loss became nan", 4),  # the next step's loss
        (4, 0, "step 4 (epoch 2): dictionary became NaN or infinite", 2),  # end of epoch: before validation
        (3, 1, "step 3 (epoch 2): dictionary became NaN or infinite", 2),  # a mid-epoch checkpoint
    ],
)
def test_training_that_goes_nan_stops_and_keeps_the_last_good_checkpoint(
    root, tmp_path, monkeypatch, poison_after, checkpoint_every, stopped, kept
):
    original = Trainer.train_step

    def poisoned(self, clean):
        losses = original(self, clean)
        if self.step + 1 == poison_after:  # the step counter moves on after train_step
            with torch.no_grad():
                self.model.dictionary.fill_(math.nan)
        return losses

    monkeypatch.setattr(Trainer, "train_step", poisoned)
    run = tmp_path / "run"
    config = tiny_config(
        root,
        data=dict(crop=12, val_crop=16, samples_per_epoch=8, val_clips_per_video=1),
        model_options=dict(TINY_MODEL),
        epochs=3,  # 2 steps an epoch
        checkpoint_every=checkpoint_every,
    )
    with pytest.raises(TrainingDivergedError) as caught:
        Trainer(config, run, quiet=True).fit()
    message = str(caught.value)
    assert "\n" not in message and isinstance(caught.value, VideodenoiseError)
    assert message.startswith(f"training diverged at {stopped}")
    assert f"{run} keeps its last good checkpoint (step {kept})" in message
    assert "lower --lr than 0.001" in message
    assert finite_files(run) == kept
    assert not (run / "summary.json").exists()
    assert all(line["step"] <= kept for line in map(json.loads, (run / "metrics.jsonl").read_text().splitlines()))

    monkeypatch.setattr(Trainer, "train_step", original)
    summary = Trainer.resume(run, quiet=True).fit()  # the kept checkpoint resumes as any other
    assert summary["steps"] == 6 and math.isfinite(summary["best_val_mse"])
    assert finite_files(run) == 6


def test_a_learning_rate_that_diverges_is_one_line_and_leaves_nothing(root, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(train_args(root, tmp_path, "--lr", "1e30", "--mode", "erm"), capsys, monkeypatch)
    one_line_error(code, err, "training diverged at step", "nothing was kept", "lower --lr than 1e+30")
    assert list(tmp_path.iterdir()) == []
