"""benchmarks/attention_maps.py and attention_worth.py on tiny models and clips: what each says of a layer's attention
against hand-made weights, and that attention_worth's "all off" is the same weights with attention switched off by
their config."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

from videodenoise.models.attention import TokenAttention
from videodenoise.models.registry import build_model, save_model

from helpers import load_benchmark as load


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


def test_attention_maps_reads_the_weight_on_other_frames_and_the_sources_attended_to():
    load("bench_quality")
    maps = load("attention_maps")
    attention = TokenAttention(4, heads=1, head_dim=4, gain_init=0.5)
    own = torch.eye(2).view(1, 1, 1, 1, 2, 1, 2)  # (B, rows, cols, heads, T, offsets, S): each frame on itself
    even = torch.full((1, 1, 1, 1, 2, 1, 2), 0.5)  # each frame half on the other
    (alone,), (shared,) = (maps.layer_summaries([[w]], [attention]) for w in (own, even))
    assert (alone["others"], alone["sources"], alone["borrowed"]) == (0.0, 1.0, 0.0)
    assert (shared["others"], shared["sources"]) == (0.5, 2.0) and abs(shared["borrowed"] - 0.25) < 1e-7
    assert alone["gain"] == 0.5 and alone["beta"] is None and alone["observation_gain"] is None
    assert maps.middle_frame_map([own]).tolist() == [[0.0]] and maps.middle_frame_map([even]).tolist() == [[0.5]]


def test_attention_maps_runs_a_checkpoint_on_a_pan_and_draws_its_maps(tmp_path, monkeypatch, capsys):
    load("bench_quality")
    maps = load("attention_maps")
    checkpoint = save_model(
        build_model("dust", layers=2, patch_size=4, stride=2, attention_gain=0.5), tmp_path / "m.safetensors"
    )
    argv = ["attention_maps.py", "--checkpoint", f"tiny={checkpoint}", "--size", "32x32", "--out", str(tmp_path)]
    monkeypatch.setattr(sys, "argv", argv)
    maps.main()
    out = capsys.readouterr().out
    assert "| 1 | 0.500 | 0.500 |" in out and "| 2 | 0.500 | 0.500 |" in out
    assert (tmp_path / "tiny-others.png").stat().st_size > 0
