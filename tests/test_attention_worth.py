"""benchmarks/attention_worth.py on a tiny model and clip: its arms, and that "all off" is the same weights with
attention switched off by their config."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import torch

from videodenoise.models.registry import build_model, save_model

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load(name: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_each_layer_and_all_attention_switched_off_against_as_trained(tmp_path, monkeypatch):
    quality = load("bench_quality")
    worth = load("attention_worth")
    torch.manual_seed(0)
    options = dict(layers=3, patch_size=4, stride=2, attention_gain=0.5)
    model = build_model("dust", **options)
    for name, parameter in model.named_parameters():  # attention that does something: random projections
        if name.endswith("query.weight"):
            parameter.data.normal_(0, 1)
    trained = save_model(model, tmp_path / "trained.safetensors")
    blind = build_model("dust", token_set="none", **options)
    blind.load_state_dict(model.state_dict())
    without = save_model(blind, tmp_path / "without.safetensors")

    y, x = torch.meshgrid(torch.linspace(0, 1, 24), torch.linspace(0, 1, 24), indexing="ij")
    frames = torch.stack([torch.stack([(x + 0.05 * t) % 1, y, 0.5 + 0.3 * torch.sin(6 * x + t)]) for t in range(3)])
    clip = quality.Clip("tiny", "test", "made in the test", quality.to_uint8(frames))
    monkeypatch.setattr(quality, "build_clips", lambda names, frames: [clip])

    def run(checkpoint: Path, out: Path) -> list[dict]:
        worth.main(
            ["--checkpoint", f"{checkpoint},fusion=off", "--clips", "tiny", "--frames", "3"]
            + ["--sigmas", "25", "--out", str(out)]
        )
        return json.loads((out / "worth.json").read_text())["rows"]

    rows = run(trained, tmp_path / "trained")
    assert [r["arm"] for r in rows] == ["as trained", "layer 1 off", "layer 2 off", "layer 3 off", "all off"]
    psnr = {r["arm"]: r["psnr"] for r in rows}
    assert len(set(psnr.values())) > 1  # switching attention off changes the output
    (reference,) = run(without, tmp_path / "without")  # a model with no attention has one arm
    assert reference["arm"] == "as trained" and abs(psnr["all off"] - reference["psnr"]) < 1e-9
    assert worth.arms([]) == {"as trained": []}
