"""What DUST and UT have in common: clip in, patches, L layers, one readout, clip(s) out.

A model only says how tokens become its representation (`initial_state`), what one layer does to it
(`apply_layer`) and how the shared readout turns it back into patches (`readout_patches`); this
class does the rest, identically for both, so that "the estimate after layer l" means the same thing.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn as nn

from videodenoise.devices import cpu_cache_bytes
from videodenoise.errors import ModelError
from videodenoise.models.attention import (
    AlignedContext,
    mixes_patches,
    rms_scale,
    rms_scale_encoded,
    spatial_offsets,
)
from videodenoise.models.config import PatchConfig
from videodenoise.models.layers import extract_patches, fold_patches, patch_means


# On the CPU the layers run on bands of patch rows whose widest tensor takes about this many bytes.
# The layers' elementwise steps (shrinkage, the attention's mixing and gains) cost about as much as
# their matrix products, and run fastest on tensors that stay near the core, so the best band follows
# the CPU's caches (bench_models.py --band-bytes; benchmarks/results/speed, "Band size from the L2
# cache"). On the 2-core Intel Xeon with 2 MiB of L2 a core, 8 MiB bands beat 2 MiB ones by 5-17 % for
# all four default models (`clean` 1.12× as fast), and 16 MiB ones lost again. On the 2-core AMD EPYC
# (its L2 not recorded; EPYC cores have 0.5 or 1 MiB) 2 MiB was fastest for the grey models (DUST level
# with 4 MiB, UT 15 % ahead of it), 8-30 % faster than 8 MiB. Four times one core's L2 gives 8 MiB on the
# Xeon and 2 MiB on an EPYC core of 0.5 MiB; an unknown cache keeps 2 MiB, and the rule stays within the
# 2-16 MiB measured. Bands are exact: the temporal token set never crosses rows, and a spatio-temporal
# one gets a halo wide enough for every layer. Off the CPU a whole clip is one band. The Wiener filter's
# bands (videodenoise.denoise.wiener) hold the same bytes: there too it was the fastest size.
def band_bytes(l2_cache: int | None) -> int:
    """The CPU band size (bytes of a band's widest tensor) for one core's L2 cache size (None: unknown)."""
    if l2_cache is None:
        return 2 << 20
    return min(16 << 20, max(2 << 20, 4 * l2_cache))


CPU_BAND_BYTES = band_bytes(cpu_cache_bytes(2))


class HandedOn(NamedTuple):
    """What a layer returns when the layers after it step towards another observation than the clip's patches:
    DUST's last attending layer with `aligned_depth`, whose attention mixed the frame's patches with the frames
    warped onto it. tokens: that observation, shaped as the band's tokens; noise_scale: its noise over the told σ's,
    per token (B, rows, cols, T, 1)."""

    state: torch.Tensor
    tokens: torch.Tensor
    noise_scale: torch.Tensor


class UnrolledDenoiser(nn.Module):
    """Base of the patch-token denoisers. Subclasses set `name` and implement the four hooks below."""

    name = "unrolled"
    config: PatchConfig

    # ---- hooks ---------------------------------------------------------------------------------
    def initial_state(self, tokens: torch.Tensor) -> torch.Tensor:
        """Token grid (B, rows, cols, T, n) → layer-0 representation (B, rows, cols, T, width)."""
        raise NotImplementedError

    def apply_layer(
        self,
        index: int,
        state: torch.Tensor,
        tokens: torch.Tensor,
        noise_scale: torch.Tensor | None = None,
        context: AlignedContext | None = None,
        scaled: bool = False,
    ) -> torch.Tensor:
        """Representation after layer index → after layer index + 1.

        noise_scale: None, or σ / config.sigma per clip (B, 1, 1, 1, 1) or per token (B, rows, cols, T, 1)
        for a model whose layers depend on the noise level (DUST's thresholds); a model that does not
        ignores it.
        context: the aligned token set's view of the clip (its attention's), else None.
        scaled: the tokens and the state are divided by each token's noise_scale (see `scales_by_noise`).
        Returns the new state, or a `HandedOn` whose tokens and noise_scale the later layers are given instead."""
        raise NotImplementedError

    def readout_patches(self, state: torch.Tensor) -> torch.Tensor:
        """The shared readout: representation (…, width) → patch estimates (…, n)."""
        raise NotImplementedError

    @property
    def state_width(self) -> int:
        """Width of the widest per-token tensor a layer makes (sizes the CPU bands)."""
        raise NotImplementedError

    @property
    def noise_conditional(self) -> bool:
        """Whether `forward(..., sigma=σ)` changes the layers (they scale with σ / config.sigma)."""
        return False

    @property
    def scales_by_noise(self) -> bool:
        """Whether a layer commutes with dividing each token and its state by the token's noise scale s,
        thresholds s·θ becoming θ (s·S_θ(x/s) = S_sθ(x)): outside autograd, `forward` then runs a band told
        one σ per token that way, and multiplies the readout back by s."""
        return False

    @property
    def linear_encoder(self) -> torch.Tensor | None:
        """E with initial_state(tokens) = tokens @ E when the initial state is linear (lets the aligned
        attention project warped patches instead of their wider states), else None."""
        return None

    @property
    def attends_aligned(self) -> bool:
        """Whether `forward` needs `aligned=`, the clip's frames warped onto each other (token_set "aligned")."""
        return self.config.token_set == "aligned"

    # ---- shared ------------------------------------------------------------------------------------
    @property
    def parameter_dtype(self) -> torch.dtype:
        return next(self.parameters()).dtype

    @property
    def num_layers(self) -> int:
        return self.config.layers

    @property
    def halo(self) -> int:
        """How many patch locations away, along rows or columns, a token's output can depend on: each
        layer of a windowed token set reaches one more neighbourhood radius, a temporal one none."""
        return self._halo(self.num_layers)

    def _halo(self, depth: int) -> int:
        offsets = spatial_offsets(self.config.token_set, self.config.neighbourhood)
        return max(max(abs(dr), abs(dc)) for dr, dc in offsets) * depth

    def check_depth(self, depth: int | None) -> int:
        """The number of layers a forward pass runs: the trained L, or `depth` (any depth ≥ 1 when layers
        are tied, since every layer is the same map; at most L otherwise)."""
        if depth is None:
            return self.num_layers
        limit = None if self.config.tied_layers else self.num_layers
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1 or (limit and depth > limit):
            allowed = "any depth >= 1 (its layers are tied)" if limit is None else f"a depth from 1 to {limit}"
            raise ModelError(f"this {self.name} runs {allowed}, got depth={depth!r}")
        return depth

    def start_from(self, state: dict[str, torch.Tensor]) -> None:
        """Load trained weights to start training from: all of them, except that a model attending over
        aligned frames may start from one that does not (its attention's mismatch weights β, and the gains
        of a mixed observation, then keep their initial values). Anything else missing or left over raises
        RuntimeError, as load_state_dict."""
        missing, unexpected = self.load_state_dict(state, strict=False)
        aligned_only = ("attention.mismatch", "attention.observation_gain")
        missing = [name for name in missing if not (self.attends_aligned and name.endswith(aligned_only))]
        if missing or unexpected:
            raise RuntimeError(f"missing keys {missing}, unexpected keys {unexpected}")

    @property
    def reach(self) -> int:
        """How many pixels away an output pixel can depend on: the p − 1 of the patches covering it, plus
        the halo's patch locations, stride pixels each (tiles and bands are cut with this margin)."""
        return self.config.patch_size - 1 + self.halo * self.config.stride

    def layer(self, index: int) -> nn.Module:
        """The module computing layer index + 1; the same one at every depth when layers are tied."""
        return self.layers[0 if self.config.tied_layers else index]

    def forward(
        self,
        noisy: torch.Tensor,
        all_layers: bool = False,
        perturbations=None,
        sigma=None,
        depth=None,
        aligned=None,
        sources=None,
    ):
        """Denoise a clip (B, T, C, H, W) with any T, H, W.

        sigma: the clip's noise level on the [0, 1] scale for a noise-conditional model (DUST scales its
        thresholds by σ / config.sigma): a number, one per clip as a (B,) tensor, or a noise map
        (B, T, H, W) giving each pixel's σ (e.g. after motion-compensated fusion, where the noise left
        depends on how many frames agreed); each patch is then told the root mean square of its
        pixels' σ. None applies the model at the σ it was built for, which is what the robustness
        protocol calls "blind".

        Returns the final estimate (B, T, C, H, W), or with all_layers=True the list of L+1 estimates:
        [0] is the input itself and [l] the readout of layer l.

        depth: run this many layers instead of the trained L (test-time depth): fewer for any model,
        more only when its layers are tied. With all_layers=True one pass gives every depth up to it.

        aligned: the clip's frames resampled onto each other along the optical flow, (B, T, T, C, H, W)
        with [:, t, s] frame s warped onto frame t (and [:, t, t] frame t itself), e.g. from
        `videodenoise.denoise.fusion.align_clip`: what the aligned token set attends to, and only it.
        sources: with aligned shaped (B, T, S, C, H, W), S > T, the clip's frames are some of a window of S
        (its frames `sources`, one index per frame: [:, t, sources[t]] is frame t itself), each denoised
        against all S. A frame's estimate depends only on its own row of `aligned` (the attention takes the
        other sources as warped, never as they are denoised), so it is the same whichever frames are
        denoised beside it: `clean` denoises only the frames it keeps of a window.

        perturbations (robustness tests only): L entries, each None or a clip shaped like `noisy`;
        entry l is cut into patches, encoded by the linear part of `initial_state` and added to the
        representation entering layer l + 1, so every layer can be handed a perturbed input.
        """
        check_clip(noisy, self.config.channels, self.name)
        noisy = noisy.to(self.parameter_dtype)  # e.g. float64 frames from numpy meet float32 weights
        tokens, grid = extract_patches(noisy, self.config.patch_size, self.config.stride)
        depth = self.check_depth(depth)
        perturbation_tokens = self._perturbation_tokens(perturbations, noisy)
        perturbation_tokens += [None] * (depth - len(perturbation_tokens))
        noise_scale = self._noise_scale(sigma, noisy)
        aligned_tokens, itself = self._aligned_tokens(aligned, noisy, sources)
        wanted = range(depth) if all_layers else [depth - 1]
        patch_estimates = [[] for _ in wanted]
        for start, stop, low, high in self._bands(tokens, depth):
            band = tokens[:, low:high].contiguous()  # free unless B > 1
            band_scale = _band_rows(noise_scale, low, high)
            # contiguous (a copy unless B = 1): a strided slice would be copied by each of its matrix products
            aligned_band = None if aligned_tokens is None else aligned_tokens[:, low:high].contiguous()
            context = None if aligned_band is None else self._context(band, aligned_band, band_scale, itself)
            token_scale = self._token_scale(band_scale, perturbations)
            if token_scale is not None:  # the layers' thresholds become one per unit (see scales_by_noise)
                band = band / token_scale
            state = self.initial_state(band)
            for index in range(depth):
                if perturbation_tokens[index] is not None:
                    extra = perturbation_tokens[index][:, low:high].contiguous()
                    state = state + self.initial_state(extra) - self.initial_state(torch.zeros_like(extra))
                state = self.apply_layer(index, state, band, band_scale, context, scaled=token_scale is not None)
                if isinstance(state, HandedOn):
                    state, band, band_scale = state
                if index in wanted:
                    patches = self.readout_patches(state[:, start - low : stop - low])
                    if token_scale is not None:
                        patches = patches * _band_rows(token_scale, start - low, stop - low)
                    patch_estimates[wanted.index(index)].append(patches)
        estimates = [fold_patches(parts, grid) for parts in patch_estimates]
        return [noisy] + estimates if all_layers else estimates[0]

    def _noise_scale(self, sigma, noisy: torch.Tensor) -> torch.Tensor | None:
        if sigma is None:
            return None
        reference = getattr(self.config, "sigma", None)
        if not self.noise_conditional or not reference:
            raise ModelError(
                f"this {self.name} is not noise-conditional (or has no reference noise level); call it without sigma"
            )
        sigma = torch.as_tensor(sigma, dtype=noisy.dtype, device=noisy.device)
        if sigma.dim() == 4:
            return self._noise_map_scale(sigma, noisy) / reference
        shape, sigma = tuple(sigma.shape), sigma.reshape(-1)
        if sigma.numel() not in (1, noisy.shape[0]) or not torch.isfinite(sigma).all() or (sigma < 0).any():
            batch, frames, _, height, width = noisy.shape
            # a wrongly shaped map can hold millions of values: say its shape, not its values
            values = ", ".join(f"{value:.4g}" for value in sigma[:8].tolist())
            given = f"[{values}]" if sigma.numel() <= 8 else f"a tensor of shape {shape}"
            raise ModelError(
                f"sigma must be one noise level >= 0, one per clip ({batch}), or a noise map of shape "
                f"(B, T, H, W) = {(batch, frames, height, width)}; got {given}"
            )
        # one σ for the batch stays one number, so the thresholds scale as a (k,) vector (see SoftThreshold)
        return (sigma / reference).reshape(-1, 1, 1, 1, 1)

    def _token_scale(self, noise_scale: torch.Tensor | None, perturbations) -> torch.Tensor | None:
        """A band's noise scale when it is run divided by it: outside autograd (training keeps the pass
        it differentiates), for more than one σ (one for the batch is already one threshold per unit) and
        none zero (a token told σ = 0 has nothing to divide by)."""
        if (
            not self.scales_by_noise
            or torch.is_grad_enabled()
            or perturbations is not None
            or noise_scale is None
            or noise_scale.numel() == 1
            or not (noise_scale > 0).all()
        ):
            return None
        return noise_scale

    def _noise_map_scale(self, sigma: torch.Tensor, noisy: torch.Tensor) -> torch.Tensor:
        """A noise map (B, T, H, W) → each token's σ, (B, rows, cols, T, 1): RMS over its patch."""
        batch, frames, _, height, width = noisy.shape
        if tuple(sigma.shape) != (batch, frames, height, width):
            raise ModelError(
                f"a noise map must be shaped (B, T, H, W) = {(batch, frames, height, width)} like the clip, "
                f"got {tuple(sigma.shape)}"
            )
        if not torch.isfinite(sigma).all() or (sigma < 0).any():
            raise ModelError("a noise map must be finite and >= 0 everywhere")
        return patch_means(sigma.square().unsqueeze(2), self.config.patch_size, self.config.stride).sqrt()

    def _aligned_tokens(
        self, aligned, noisy: torch.Tensor, sources=None
    ) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        """The aligned clip (B, T, S, C, H, W) as tokens (B, rows, cols, T, S, n), checked, and which source
        each frame is, (T, S) bool; (None, None) without."""
        if aligned is None and not self.attends_aligned:
            if sources is not None:
                raise ModelError("sources= goes with aligned= (the window the frames attend to)")
            return None, None
        if not self.attends_aligned:
            raise ModelError(
                f"this {self.name} does not attend over aligned frames (token_set={self.config.token_set!r})"
            )
        batch, frames = noisy.shape[:2]
        width = aligned.shape[2] if isinstance(aligned, torch.Tensor) and aligned.dim() == 6 else frames
        expected = (batch, frames, width, *noisy.shape[2:])
        if aligned is None or not isinstance(aligned, torch.Tensor) or tuple(aligned.shape) != expected:
            got = tuple(aligned.shape) if isinstance(aligned, torch.Tensor) else type(aligned).__name__
            raise ModelError(
                f"this {self.name} attends over the clip's frames aligned to each other: pass aligned= shaped "
                f"(B, T, T, C, H, W) = {(batch, frames, frames, *noisy.shape[2:])} "
                f"(videodenoise.denoise.fusion.align_clip makes it), or (B, T, S, C, H, W) with sources=; got {got}"
            )
        sources = list(range(frames)) if sources is None else [int(s) for s in sources]
        if len(sources) != frames or len(set(sources)) != frames or not all(0 <= s < width for s in sources):
            raise ModelError(
                f"sources= must give each of the {frames} frames its own index among the {width} aligned sources, "
                f"got {sources}"
            )
        itself = torch.zeros(frames, width, dtype=torch.bool, device=noisy.device)
        itself[torch.arange(frames), torch.tensor(sources)] = True
        flat = aligned.to(noisy.device, self.parameter_dtype).flatten(1, 2)
        tokens, _ = extract_patches(flat, self.config.patch_size, self.config.stride)
        return tokens.unflatten(3, (frames, width)), itself

    def _context(
        self, tokens: torch.Tensor, aligned: torch.Tensor, noise_scale: torch.Tensor | None, itself: torch.Tensor
    ) -> AlignedContext:
        """A band's `AlignedContext`: the warped tokens in the model's representation, and each one's
        excess difference from the frame's own token over what noise of the told σ (else the model's
        reference σ) explains."""
        encoder = self.linear_encoder
        if mixes_patches(self.config.heads, encoder):  # the attention reads the patches only: no states kept
            states, scale = None, rms_scale_encoded(aligned, encoder)
        else:
            states = self.initial_state(aligned.flatten(3, 4)).unflatten(3, itself.shape)
            scale = rms_scale(states)
        sigma = float(getattr(self.config, "sigma", 0.0) or 0.0)
        variance = torch.as_tensor(sigma**2, dtype=tokens.dtype, device=tokens.device)
        if noise_scale is not None:
            variance = variance * noise_scale.to(tokens.dtype).square()  # (…, 1) broadcasts over the sources
        # the mean square through the norm, as `rms_scale` takes it: no second tensor of the T·S warped tokens' size
        mean_square = torch.linalg.vector_norm(tokens.unsqueeze(-2) - aligned, dim=-1).square() / aligned.shape[-1]
        excess = (mean_square / (2 * variance).clamp(min=1e-12) - 1).clamp(min=0)
        patches = None if encoder is None else aligned
        return AlignedContext(states, excess.masked_fill(itself, 0.0), scale, patches, encoder, itself)

    def _perturbation_tokens(self, perturbations, noisy: torch.Tensor) -> list:
        if perturbations is None:
            return [None] * self.num_layers
        perturbations = list(perturbations)
        if len(perturbations) != self.num_layers:
            raise ModelError(
                f"{self.name} has {self.num_layers} layers but got {len(perturbations)} perturbations; "
                f"pass one per layer (None leaves a layer's input unperturbed)"
            )
        cut = []
        for perturbation in perturbations:
            if perturbation is not None and tuple(perturbation.shape) != tuple(noisy.shape):
                raise ModelError(
                    f"a perturbation of shape {tuple(perturbation.shape)} does not match the clip's "
                    f"{tuple(noisy.shape)}"
                )
            cut.append(
                None
                if perturbation is None
                else extract_patches(
                    perturbation.to(noisy.device, self.parameter_dtype), self.config.patch_size, self.config.stride
                )[0]
            )
        return cut

    def _bands(self, tokens: torch.Tensor, depth: int) -> list[tuple[int, int, int, int]]:
        """(start, stop, low, high): rows [start, stop) are kept from a band computed on [low, high)."""
        batch, rows, cols, frames, _ = tokens.shape
        if tokens.device.type != "cpu":
            return [(0, rows, 0, rows)]
        halo = self._halo(depth)  # how far a border error can travel in `depth` layers
        # the layers' tensors are of autocast's dtype under autocast (bf16: 2 bytes), else of the tokens'
        autocast = torch.is_autocast_enabled("cpu")
        element = torch.get_autocast_dtype("cpu").itemsize if autocast else tokens.element_size()
        per_row = batch * cols * frames * self.state_width * element
        # a band at least 4 halos high: the halo rows are computed twice, so they should be the minority
        band_rows = max(1, CPU_BAND_BYTES // per_row, 4 * halo)
        bands = []
        for start in range(0, rows, band_rows):
            stop = min(rows, start + band_rows)
            bands.append((start, stop, max(0, start - halo), min(rows, stop + halo)))
        return bands


def _band_rows(noise_scale: torch.Tensor | None, low: int, high: int) -> torch.Tensor | None:
    """A per-token noise scale (B, rows, cols, T, 1) cut to the band's rows; a per-clip one as it is."""
    if noise_scale is None or noise_scale.dim() != 5 or noise_scale.shape[1] == 1:
        return noise_scale
    return noise_scale[:, low:high]


def check_clip(clip: torch.Tensor, channels: int, model_name: str) -> None:
    """Raise a ModelError unless `clip` is a floating (B, T, C, H, W) tensor with the model's C."""
    if not isinstance(clip, torch.Tensor) or clip.dim() != 5:
        shape = tuple(clip.shape) if isinstance(clip, torch.Tensor) else type(clip).__name__
        raise ModelError(
            f"{model_name} expects a clip tensor of shape (B, T, C, H, W), got {shape}; "
            f"add the missing batch/frame axes with .unsqueeze"
        )
    if clip.shape[2] != channels:
        raise ModelError(
            f"{model_name} was built for {channels} channel(s) but the clip has {clip.shape[2]}; "
            f"convert the clip (grey = 1, colour = 3) or use a model built for it"
        )
    if not clip.is_floating_point():
        raise ModelError(f"{model_name} expects float pixels in [0, 1], got {clip.dtype}; divide 8-bit frames by 255")
    if min(clip.shape) == 0:
        raise ModelError(
            f"{model_name} got an empty clip of shape {tuple(clip.shape)}; pass at least one frame and pixel"
        )
