"""Empirical Wiener refinement along the flow: a second estimate of every frame, mixed into the first.

    for refined in wiener_refine(noisy_frames, denoised_frames, sigma=25 / 255):
        ...  # (C, H, W): a share of the Wiener estimate (`mix_share`), the rest the denoised frame

The denoised frames (the pilot) say what the signal is; the noisy frames are filtered again with that
knowledge, the way the second step of BM3D/BM4D filters with the first step's output, but grouped along
the optical flow instead of by block matching:

1. Group. For frame t, each neighbour within RADIUS frames is resampled onto t along the flow read off the
   pilot (`FrameAligner`, its noise already gone), at the nearest pixel: the noise stays white with the
   frame's σ, where a bilinear resampling would average and correlate it. The same resampling of the
   neighbour's pilot goes along, so the pilot stack shows whatever the flow got wrong, as the noisy
   stack does. Per PATCH×PATCH patch (at every position, or every `stride`-th row and column), a neighbour
   whose pilot patch differs from frame t's by more than EXCLUDE·σ in RMS (an occlusion, a wrong flow) is
   left out of that patch's group: its difference would otherwise pass the filter as signal. (Every patch is
   first filtered with all frames; those that leave one out, a few in a hundred along a good flow, are filtered
   again, together by which neighbours they keep.)
2. Shrink. The noisy stack's 3D DCT (2D over the patch, 1D over the frames) is multiplied, coefficient
   by coefficient, by P² / (P² + TOLD²·σ²·S), P the pilot stack's coefficient: the Wiener gain were the
   pilot the truth and the noise TOLD·σ. S, one factor per channel and 2D coefficient, is the noise's
   spectrum as measured on the frame (below): 1 for white noise of the σ told. TOLD < 1 because a denoised
   pilot is the truth shrunk: its small coefficients are smaller than the signal's, and with σ itself the
   filter would remove more than the noise. Back through the inverse DCT, frame t's patch is the estimate.
3. Aggregate. Each pixel is the weighted mean of the patches over it, a patch weighing 1 / Σ σ²·S·gain²
   (BM3D's weight: the inverse of its estimate's noise variance; σ² here TOLD²·σ², the same up to a factor).
4. Mix. The output is a share m of that estimate plus (1 − m) times the pilot. Alone the Wiener estimate is
   worse than a strong pilot; the two err differently, and the mix has less error than either. How much
   the estimate deserves depends on the noise: where it is white, as the filter assumes, m = MIX_WHITE;
   where the measured spectrum S is far from white (a camera's noise after a codec), m = MIX
   (`mix_share`: m falls from MIX_WHITE to MIX as the RMS of log S over the frame's channels and
   coefficients goes from WHITE to COLOURED; it measured 0.05-0.28 on Gaussian noise and 3.6-4.5 on the
   camera model after H.264, `benchmarks/results/wiener-white/`). (MIX, TOLD and EXCLUDE were chosen on
   pans over training photographs: `benchmarks/results/wiener/`; MIX_WHITE likewise,
   `benchmarks/results/wiener-white/`.)

σ is one number, or a `NoiseLevelFunction` read off the pilot frame (each pixel's σ per channel; a patch
is told the mean of σ² over it). Colour frames are filtered channel by channel in opponent colours
(`videodenoise.colour`), as CBM3D does: luminance holds the structure and the two colour differences are
smooth, so most of their coefficients shrink away, where in R, G and B each channel repeats the same
structure under its own noise. The transform is orthonormal, so the exclusion's distances are unchanged
and white noise independent across R, G and B stays white with the same σ. A camera's noise is neither:
its colour matrix correlates the channels' noise (most of it lands in luminance) and a codec's 4:2:0 keeps
the colour differences at half resolution. So the noise's spectrum S is measured on each frame: the
variance of each 2D DCT coefficient of the residual (noisy − pilot, centre frame, patches at a stride of
SPECTRUM_STRIDE) over the σ² told, per opponent channel. It sets each channel's level and each
coefficient's share, the σ told still setting how the noise varies with intensity.

Frames are processed in bands of patch rows (on `device`, the Denoiser's; the flow on the CPU), so memory stays
a few times a frame's, and streams hold 2·RADIUS + 1 frames of each.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from videodenoise.colour import OPPONENT, opponent_sigma
from videodenoise.denoise.fusion import FrameAligner
from videodenoise.denoise.settings import FusionSettings
from videodenoise.errors import DenoiseError
from videodenoise.models.base import CPU_BAND_BYTES
from videodenoise.noise.noise_level_function import NoiseLevelFunction

PATCH = 8
RADIUS = 2  # neighbours each side
EXCLUDE = 1.0  # a neighbour's pilot patch further than this times σ (RMS) from the frame's is left out
TOLD = 0.6  # the filter's gains are computed for this times σ (step 2)
MIX = 0.3  # the Wiener estimate's share of the output where the noise is far from white (step 4)
MIX_WHITE = 0.5  # its share where the noise is white
WHITE, COLOURED = 0.5, 1.5  # RMS of log S at which the share starts to fall from MIX_WHITE, and reaches MIX
SPECTRUM_STRIDE = 4  # the residual's patches the noise spectrum is measured on: every 4th row and column
# patch positions filtered at once off the CPU (about 60 MB of float32 per stack at 5 frames, 3 channels); on the CPU
# a band's noisy and pilot stacks together take about the models' L2-sized CPU_BAND_BYTES: with 8 MiB that is 1,092
# positions at 5 frames in colour and the filter ran 2.4× as fast as with 16,384 on an Intel Xeon (1,024-2,048
# within 10 % in colour, 2,048-4,096 in grey: the same bytes; benchmarks/results/wiener-fast, "Band size"; with the
# DCTs as a convolution, 1× and 2× those bytes were level, 0.5× and 8× slower: benchmarks/results/wiener-conv)
BAND_PATCHES = 16_384


@functools.cache
def dct_matrix(size: int, device: torch.device | str = "cpu") -> torch.Tensor:
    """The orthonormal DCT-II of `size` points on `device` (built once per both): rows are the basis, so
    x = Mᵀ(M x)."""
    k, i = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    matrix = np.cos(np.pi * (i + 0.5) * k / size) * np.sqrt(2.0 / size)
    matrix[0] /= np.sqrt(2.0)
    return torch.from_numpy(matrix.astype(np.float32)).to(device)


@functools.cache
def spatial_dct(device: torch.device | str = "cpu") -> torch.Tensor:
    """The orthonormal 2D DCT of a PATCH×PATCH patch flattened row by row, (PATCH², PATCH²) on `device`
    (built once per device)."""
    return torch.kron(dct_matrix(PATCH, device), dct_matrix(PATCH, device))


def wiener_estimate(
    noisy: torch.Tensor,
    pilot: torch.Tensor,
    variance: torch.Tensor,
    centre: int,
    spectrum: torch.Tensor | None = None,
    stride: int = 1,
) -> torch.Tensor:
    """Steps 1-3 for one frame: noisy and pilot stacks (N, C, H, W) aligned onto frame `centre`, the frame's
    noise variance per pixel and channel (C, H, W), and the noise's spectrum S (C, PATCH²; None: white, all
    ones) → the Wiener estimate of that frame (C, H, W). stride: the patches' positions, every `stride`-th row
    and column (1: every position); the frame is first extended by reflection at the bottom and right to a
    whole number of strides, so every pixel is covered."""
    frames, channels, height, width = noisy.shape
    if min(height, width) < PATCH:
        return pilot[centre].clone()
    if stride > 1:
        extra = (0, -(width - PATCH) % stride, 0, -(height - PATCH) % stride)  # left, right, top, bottom
        noisy, pilot = (F.pad(stack, extra, mode="reflect") for stack in (noisy, pilot))
        variance = F.pad(variance[None], extra, mode="reflect")[0]
    device, (padded_height, padded_width) = noisy.device, noisy.shape[2:]
    spatial = spatial_dct(device)
    basis = spatial.view(PATCH * PATCH, 1, PATCH, PATCH)  # the 2D DCT's 64 basis patches, as convolution kernels
    spectrum = torch.ones(channels, PATCH * PATCH, device=device) if spectrum is None else spectrum.to(device)
    out_rows, out_columns = (padded_height - PATCH) // stride + 1, (padded_width - PATCH) // stride + 1
    per_position = 2 * frames * channels * PATCH * PATCH * noisy.element_size()  # the noisy and the pilot stack
    band = max(1, CPU_BAND_BYTES // per_position) if device.type == "cpu" else BAND_PATCHES
    band_rows = max(1, band // out_columns)
    numerator, denominator = (torch.zeros(channels, padded_height, padded_width, device=device) for _ in range(2))
    bits = torch.arange(frames, device=device).unsqueeze(1)

    def coefficients(images: torch.Tensor) -> torch.Tensor:  # (N, C, h, w) → (N, C, 64, L), positions in place
        # the 2D DCT of every patch as a convolution with the 64 basis patches (oneDNN's): 1.3-1.9× as fast as
        # unfold and a product on a band, and it never writes the patches out
        images = images.reshape(frames * channels, 1, *images.shape[2:])
        return F.conv2d(images, basis, stride=stride).view(frames, channels, PATCH * PATCH, -1)

    def shrink(z: torch.Tensor, p: torch.Tensor, s2: torch.Tensor, members: list[int]) -> tuple[torch.Tensor, ...]:
        """Steps 2-3 for positions that keep the same frames: their noisy and pilot coefficients (n, C, 64, l) and
        σ²·S (C, 64, l) → frame `centre`'s patches (C, 64, l) and their weights (C, l)."""
        temporal = dct_matrix(len(members), device)
        coefficient = (temporal @ z.flatten(1)).view(z.shape)  # the 1D DCT over the frames, as one product
        gain = (temporal @ p.flatten(1)).view(p.shape).square_()
        gain.div_(gain + TOLD**2 * s2)
        mine = temporal[:, members.index(centre)]  # the inverse temporal DCT, at the centre frame
        patches = spatial.T @ (mine @ coefficient.mul_(gain).flatten(1)).view(z.shape[1:])
        return patches, 1.0 / (TOLD**2 * (s2 * gain.square_().sum(dim=0)).sum(dim=1)).clamp_min(1e-12)

    for top in range(0, out_rows, band_rows):
        rows = slice(top * stride, (min(top + band_rows, out_rows) - 1) * stride + PATCH)
        sigma2 = F.avg_pool2d(variance[None, :, rows], PATCH, stride)[0].flatten(1)  # (C, L): σ² over a patch
        difference = (pilot[:, :, rows] - pilot[centre, :, rows]).square().mean(dim=1, keepdim=True)
        distance = F.avg_pool2d(difference, PATCH, stride).flatten(1)  # (N, L): mean square over each patch
        kept = distance <= EXCLUDE**2 * sigma2.mean(dim=0)  # the centre frame: distance 0, always kept
        z, p = coefficients(noisy[:, :, rows]), coefficients(pilot[:, :, rows])
        s2 = sigma2.unsqueeze(1) * spectrum.unsqueeze(2)  # (C, 64, L): σ²·S
        # most positions keep every frame (98 % on bikes): all are filtered so, then those that leave one out again,
        # where gathering every position's patches in group order (before 2026-12-05) cost a third of the filter
        partial = (~kept).any(dim=0).nonzero().squeeze(1)
        groups = (kept[:, partial].long() << bits).sum(dim=0)  # which frames each of those keeps, as bits
        estimate, weight = shrink(z, p, s2, list(range(frames)))
        for group in groups.unique().tolist():
            members, where = [t for t in range(frames) if group >> t & 1], partial[groups == group]
            z_group, p_group = (stack.index_select(3, where)[members] for stack in (z, p))
            patches, weights = shrink(z_group, p_group, s2.index_select(2, where), members)
            estimate.index_copy_(2, where, patches)
            weight.index_copy_(1, where, weights)
        size = (rows.stop - rows.start, padded_width)
        numerator[:, rows] += F.fold(estimate.mul_(weight.unsqueeze(1)), size, PATCH, stride=stride)[:, 0]
        spread = weight.unsqueeze(1).expand(-1, PATCH * PATCH, -1)
        denominator[:, rows] += F.fold(spread, size, PATCH, stride=stride)[:, 0]
    return (numerator / denominator)[:, :height, :width]


def noise_spectrum(residual: torch.Tensor, variance: torch.Tensor) -> torch.Tensor:
    """The noise's spectrum S (C, PATCH²) from a frame's residual, noisy − pilot (C, H, W), and the σ² told
    (C, H, W): the mean square of each 2D DCT coefficient of the residual's patches, over the mean σ² told."""
    spatial = spatial_dct(residual.device)
    patches = F.unfold(residual.unsqueeze(1), PATCH, stride=SPECTRUM_STRIDE)  # (C, 64, L)
    power = (spatial @ patches).square().mean(dim=2)
    # a floor far under any noise: a channel without any (a flat frame) would otherwise give a gain of 0 / 0
    return (power / variance.mean(dim=(1, 2)).clamp_min(1e-12).unsqueeze(1)).clamp_min(1e-6)


def mix_share(spectrum: torch.Tensor) -> float:
    """The Wiener estimate's share of the output (step 4) for a frame whose measured noise spectrum is S (C, PATCH²):
    MIX_WHITE while the RMS of log S is at most WHITE, MIX from COLOURED on, linear between."""
    deviation = float(spectrum.log().square().mean().sqrt())
    whiteness = min(max((COLOURED - deviation) / (COLOURED - WHITE), 0.0), 1.0)
    return MIX + (MIX_WHITE - MIX) * whiteness


def _nearest(frame: torch.Tensor, map_x: np.ndarray, map_y: np.ndarray) -> torch.Tensor:
    """A (C, H, W) frame resampled at the nearest pixel to the coordinates (reflected at the borders)."""
    image = np.ascontiguousarray(frame.numpy().transpose(1, 2, 0))
    warped = cv2.remap(image, map_x, map_y, cv2.INTER_NEAREST, borderMode=cv2.BORDER_REFLECT)
    return torch.from_numpy(warped.reshape(*warped.shape[:2], -1).transpose(2, 0, 1).copy())


def wiener_refine(
    noisy: Iterable[torch.Tensor],
    pilot: Iterable[torch.Tensor],
    sigma: float | NoiseLevelFunction,
    device: torch.device | str = "cpu",
    stride: int = 1,
    flow_preset: str = "medium",
) -> Iterator[torch.Tensor]:
    """Yield each frame refined (C, H, W, on the CPU), in order, from the noisy frames and their denoised pilot
    (one per noisy frame, same shape), holding 2·RADIUS + 1 of each; see the module notes. device: where the
    filter's arithmetic runs (the flow, the resampling and the frames held stay on the CPU); stride: the
    patches' positions, every `stride`-th row and column (`wiener_estimate`); flow_preset: the OpenCV DIS
    preset of the flow between pilot frames."""
    if sigma is None:
        raise DenoiseError("the Wiener refinement needs the noise level: pass sigma (or 'auto'), or wiener=False")
    if not 1 <= stride <= PATCH:
        raise DenoiseError(f"the Wiener filter's patch stride must be from 1 to {PATCH} pixels, got {stride}")
    aligner = FrameAligner(FusionSettings(flow_preset=flow_preset))
    grid = None  # the pixel coordinates (x, y) of a frame, built once
    noisy_source, pilot_source = iter(noisy), iter(pilot)
    buffer: dict[int, tuple[torch.Tensor, torch.Tensor, np.ndarray]] = {}  # index → (noisy, pilot, flow guide)
    loaded, done, current = 0, False, 0
    while True:
        while not done and loaded <= current + RADIUS:
            frame = next(noisy_source, None)
            if frame is None:
                done = True
                break
            estimate = next(pilot_source, None)
            if estimate is None or estimate.shape != frame.shape:
                raise DenoiseError(f"the Wiener refinement needs a denoised frame of the noisy one's shape at {loaded}")
            frame, estimate = frame.detach().cpu().float(), estimate.detach().cpu().float()
            buffer[loaded] = (frame, estimate, aligner.prepare(estimate)[1])
            loaded += 1
        if current >= loaded:
            return
        frame, estimate, guide = buffer[current]
        if grid is None:
            height, width = guide.shape
            grid = np.meshgrid(np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32))
        noisy_stack, pilot_stack, centre = [], [], 0
        for index in range(current - RADIUS, current + RADIUS + 1):
            if index == current:
                centre = len(noisy_stack)
                noisy_stack.append(frame)
                pilot_stack.append(estimate)
            elif index in buffer:
                flow = aligner.optical_flow(guide, buffer[index][2])
                map_x, map_y = np.round(grid[0] + flow[..., 0]), np.round(grid[1] + flow[..., 1])
                noisy_stack.append(_nearest(buffer[index][0], map_x, map_y))
                pilot_stack.append(_nearest(buffer[index][1], map_x, map_y))
        colour = frame.shape[0] == 3
        if isinstance(sigma, NoiseLevelFunction):
            variance = (opponent_sigma(sigma(estimate)) if colour else sigma(estimate)).square()
        else:
            variance = torch.full_like(frame, float(sigma) ** 2)  # the same σ in every opponent channel
        if not bool((variance > 0).any()) or min(frame.shape[1:]) < PATCH:  # nothing to filter, or no patch
            yield estimate
        else:
            noisy_stack, pilot_stack = (torch.stack(stack).to(device) for stack in (noisy_stack, pilot_stack))
            variance, opponent = variance.clamp_min(1e-12).to(device), OPPONENT.to(device)
            if colour:
                noisy_stack, pilot_stack = (
                    torch.einsum("oc,nchw->nohw", opponent, s) for s in (noisy_stack, pilot_stack)
                )
            spectrum = noise_spectrum(noisy_stack[centre] - pilot_stack[centre], variance)
            refined = wiener_estimate(noisy_stack, pilot_stack, variance, centre, spectrum, stride)
            if colour:  # back to R, G, B: the transform's inverse is its transpose
                refined = torch.einsum("oc,ohw->chw", opponent, refined)
            mix = mix_share(spectrum)
            yield (mix * refined.cpu() + (1 - mix) * estimate).clamp_(0, 1)
        buffer.pop(current - RADIUS, None)
        current += 1
