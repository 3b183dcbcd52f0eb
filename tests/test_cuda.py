"""The GPU path: on a machine with CUDA, the models, the Wiener filter, `clean`'s presets and training give on
the GPU what they give on the CPU (float32), bfloat16 stays close, and a GPU run resumes. Skipped without CUDA
(CI has none); run on a GPU machine with `python -m pytest tests/test_cuda.py`."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.fusion import align_clip
from videodenoise.denoise.settings import PRESETS
from videodenoise.denoise.wiener import noise_spectrum, wiener_estimate
from videodenoise.models.registry import build_model
from videodenoise.training.trainer import Trainer

import replicas as R
from helpers import TINY_MODEL, panned_clip, randomise, tiny_config

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
CUDA = torch.device("cuda")


@pytest.fixture(autouse=True)
def exact_float32():
    """TF32 would round float32 matrix products and convolutions to 10-bit mantissas: compare true float32."""
    matmul, cudnn = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = matmul, cudnn


def noisy_pan(channels: int, sigma: float = 20 / 255, frames: int = 5) -> tuple[torch.Tensor, torch.Tensor]:
    clean = panned_clip(frames=frames, height=72, width=96).expand(-1, channels, -1, -1).contiguous()
    if channels == 3:  # a colour clip, not grey shown as colour
        clean = clean * torch.tensor([1.0, 0.8, 0.6]).view(1, 3, 1, 1)
    noise = sigma * torch.randn(clean.shape, generator=torch.Generator().manual_seed(3))
    return clean, (clean + noise).clamp(0, 1)


def psnr(estimate: torch.Tensor, clean: torch.Tensor) -> float:
    return -10 * math.log10(float(((estimate - clean) ** 2).mean()))


@pytest.mark.parametrize("name", ["dust", "ut"])
@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("token_set", ["temporal", "aligned"])
def test_a_model_gives_on_the_gpu_what_it_gives_on_the_cpu(name, channels, token_set):
    model = randomise(build_model(name, channels=channels, layers=3, token_set=token_set), seed=4).eval()
    _, noisy = noisy_pan(channels)
    clip = noisy[None]
    aligned = align_clip(noisy)[None] if token_set == "aligned" else None
    with torch.no_grad():
        on_cpu = model(clip, aligned=aligned) if aligned is not None else model(clip)
        model.to(CUDA)
        moved = None if aligned is None else aligned.to(CUDA)
        on_gpu = (model(clip.to(CUDA), aligned=moved) if moved is not None else model(clip.to(CUDA))).cpu()
    torch.testing.assert_close(on_gpu, on_cpu, atol=2e-5, rtol=0)


def test_the_wiener_estimate_and_noise_spectrum_are_the_same_on_the_gpu():
    clean, noisy = noisy_pan(3)
    pilot = (clean + 0.01 * torch.randn(clean.shape, generator=torch.Generator().manual_seed(5))).clamp(0, 1)
    variance = torch.full(clean.shape[1:], (20 / 255) ** 2)
    spectrum = noise_spectrum(noisy[2] - pilot[2], variance)
    on_gpu_spectrum = noise_spectrum((noisy[2] - pilot[2]).to(CUDA), variance.to(CUDA)).cpu()
    torch.testing.assert_close(on_gpu_spectrum, spectrum, atol=1e-5, rtol=1e-4)
    on_cpu = wiener_estimate(noisy, pilot, variance, 2, spectrum)
    on_gpu = wiener_estimate(noisy.to(CUDA), pilot.to(CUDA), variance.to(CUDA), 2, spectrum.to(CUDA)).cpu()
    torch.testing.assert_close(on_gpu, on_cpu, atol=1e-5, rtol=0)


@pytest.mark.parametrize("preset", ["fast", "best"])
def test_clean_presets_give_on_the_gpu_what_they_give_on_the_cpu(preset):
    """The shipped weights, fusion, two scales and the Wiener filter on the GPU in float32: the CPU's frames.
    `clean`'s default on a GPU is float32; in bfloat16 (`--precision bf16`) the model's arithmetic is rounded:
    within 0.1 dB of float32."""
    clean, noisy = noisy_pan(3)
    sigma = 20 / 255
    outputs = {}
    for device, precision in [("cpu", "fp32"), ("cuda", "fp32"), ("cuda", "bf16")]:
        settings = dataclasses.replace(PRESETS[preset], device=device, precision=precision)
        outputs[device, precision] = Denoiser.from_preset(preset, settings=settings).denoise_clip(noisy, sigma)
    assert psnr(outputs["cpu", "fp32"], clean) > psnr(noisy, clean) + 3
    default = Denoiser.from_preset(preset, settings=dataclasses.replace(PRESETS[preset], device="cuda"))
    assert default.dtype == torch.float32
    torch.testing.assert_close(outputs["cuda", "fp32"], outputs["cpu", "fp32"], atol=2e-3, rtol=0)
    assert abs(psnr(outputs["cuda", "fp32"], clean) - psnr(outputs["cpu", "fp32"], clean)) < 0.01
    assert abs(psnr(outputs["cuda", "bf16"], clean) - psnr(outputs["cpu", "fp32"], clean)) < 0.1


@pytest.mark.parametrize("model", ["dust", "ut"])
@pytest.mark.parametrize("mode", ["erm", "constrained"])
def test_training_runs_on_the_gpu_in_bf16_and_resumes(tmp_path, model, mode):
    R.make_repackaged(tmp_path / "data", "ped2", size=(40, 48))
    options = dict(TINY_MODEL, **({"width": 16} if model == "ut" else {}))
    config = tiny_config(
        tmp_path / "data", model=model, model_options=options, mode=mode, epochs=1, device="cuda", precision="bf16"
    )
    summary = Trainer(config, tmp_path / "run", quiet=True).fit()
    assert summary["device"].startswith("cuda") and summary["hardware"] == torch.cuda.get_device_name(CUDA)
    resumed = Trainer.resume(tmp_path / "run", quiet=True, epochs=2).fit()
    assert resumed["epochs_completed"] == 2 and resumed["steps"] == 2 * summary["steps"]
    losses = resumed["final"]["val_loss_per_layer"]
    assert len(losses) == 4 and all(math.isfinite(value) for value in losses)  # the input's, then each layer's
