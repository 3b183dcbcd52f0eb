"""σ auto across a scene cut: the runs whose pairs of frames show two pictures are counted (`clean` warns of them)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from videodenoise.datasets.motion import camera_motion_clip, load_photo
from videodenoise.noise import estimation
from videodenoise.noise.estimation import estimate_clip_noise
from videodenoise.noise.scene_cuts import across_cut

SIGMA = 2 / 255


def cut_clip(cut: int, frames: int = 8) -> torch.Tensor:
    """Frames [0, cut) a pan over one photograph, the rest over another, with light white noise on 8 bits."""
    size = (96, 128)
    first = camera_motion_clip(load_photo("skimage:camera"), frames, size, seed=3).expand(-1, 3, -1, -1)
    second = camera_motion_clip(load_photo("skimage:rocket"), frames, size, seed=4)
    clean = torch.cat([first[:cut], second[cut:]])
    noisy = clean + SIGMA * torch.randn(clean.shape, generator=torch.Generator().manual_seed(cut))
    return noisy.clamp(0, 1).mul(255).round().div(255)


@pytest.mark.parametrize(
    ("cut", "runs"),  # seven runs: six of three frames and the last of two
    [(1, 1), (6, 2), (7, 2)],  # the first run's pairs; two runs' (one apart in one, two in the other); the last's too
)
def test_runs_showing_two_pictures_are_counted_and_the_estimate_left_as_it_was(cut, runs, monkeypatch):
    noisy = cut_clip(cut)
    function = estimate_clip_noise(noisy)
    assert function.unlike_runs == runs and function.level > 1.4 * SIGMA  # the cut reads as noise: `clean` says so
    monkeypatch.setattr(estimation, "across_cut", lambda *_: False)
    assert estimate_clip_noise(noisy) == dataclasses.replace(function, unlike_runs=0)


def test_a_clip_without_a_cut_has_no_run_showing_two_pictures():
    function = estimate_clip_noise(cut_clip(8))
    assert function.unlike_runs == 0 and function.level == pytest.approx(SIGMA, rel=0.06)


def frame(photo: str, seed: int, shift: int = 0) -> np.ndarray:
    """A (96, 128, 3) frame of a photograph, moved `shift` pixels to the right."""
    picture = camera_motion_clip(load_photo(photo), 1, (96, 128 + 8), seed=seed)[0].expand(3, -1, -1)
    return picture[:, :, 8 - shift : 136 - shift].permute(1, 2, 0).numpy().copy()


def noisy(image: np.ndarray, sigma: float, seed: int) -> np.ndarray:
    return image + np.random.default_rng(seed).normal(0, sigma, image.shape).astype(np.float32)


@pytest.mark.parametrize("sigma", [0.0, 2 / 255, 25 / 255])
def test_a_difference_holding_another_picture_is_across_a_cut_and_noise_is_not(sigma):
    first, other = noisy(frame("skimage:camera", 3), sigma, 1), noisy(frame("skimage:rocket", 4), sigma, 2)
    trusted = np.ones(first.shape[:2], bool)
    assert across_cut(first - other, first, trusted)
    again = noisy(frame("skimage:camera", 3), sigma, 3)  # the same picture, its own noise
    assert not across_cut(first - again, first, trusted)


def test_noise_on_a_flat_frame_is_not_a_cut_though_it_is_all_the_picture_there_is():
    flat = np.full((96, 128, 3), 0.05, np.float32)
    first, second = noisy(flat, 10 / 255, 1), noisy(flat, 10 / 255, 2)
    assert not across_cut(first - second, first, np.ones((96, 128), bool))


def test_too_few_cells_filled_by_the_flow_say_nothing():
    first, other = frame("skimage:camera", 3), frame("skimage:rocket", 4)
    trusted = np.zeros(first.shape[:2], bool)
    trusted[:8, :64] = True  # eight cells
    assert not across_cut(first - other, first, trusted)
    assert not across_cut((first - other)[:12], first[:12], trusted[:12])
