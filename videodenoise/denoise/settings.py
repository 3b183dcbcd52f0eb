"""How a trained model is applied to video: `DenoiseSettings`, and the presets `clean --quality` names.

    settings = PRESETS["fast"]                        # what `clean` runs by default
    denoiser = Denoiser.from_preset("best", settings=dataclasses.replace(PRESETS["best"], device="cpu", tile=256))

The presets are faster or better (the README's quality table; `balanced` is `fast` with a sparse Wiener filter
after it, the comment on PRESETS): all fuse every frame
with its motion-aligned neighbours first (`videodenoise.denoise.fusion`), then keep all frames of each
window, since once a frame holds its neighbours, centring windows (stride 3, 5/3× the model's work)
gained nothing on the validation clips of benchmarks/tune_fusion.py (disjoint windows: +0.01 dB at
0.66× the time for fast, ±0.015 dB at 0.87× for best). `best` fuses 4 neighbours a side, each scaled to
the frame's exposure first (the comment on PRESETS), cuts 4× as many patches, and chooses the told σ per video
(`videodenoise.denoise.calibration`: +0.36 dB at σ = 25 on the validation pans, a fixed cost per video
that the fast preset does not pay; benchmarks/results/calibration), and runs twice, the second pass's
fusion steered by the first pass's output (+0.13 dB at σ = 25 on the validation pans, nowhere more than
0.05 dB lost; benchmarks/results/passes), the first pass on the sparser stride-4 patch grid (it only
steers fusion: within 0.01 dB on the validation pans at 0.67× the time; benchmarks/results/guide-stride),
at two scales (benchmarks/results/scales), and ends with a Wiener filter whose pilot is that output
(videodenoise.denoise.wiener: +0.26 dB at σ = 25 on the validation pans; benchmarks/results/wiener), in
opponent colours and told the noise it measures (+0.21 dB more on eight validation clips;
benchmarks/results/wiener-spectrum), mixing half its estimate in where that noise measures white and 0.3
elsewhere (+0.19 dB more; benchmarks/results/wiener-white-2).
`best` also applies weights of its own (`PRESET_WEIGHTS`): a wider DUST (576 atoms) trained on the default's
recipe and fine-tuned at best's patch stride (+0.14 dB at σ = 25 on the validation pans over the default's
weights so fine-tuned; benchmarks/results/capacity). `DenoiseSettings()` itself is the model alone, on
centred windows.
"""

from __future__ import annotations

from dataclasses import dataclass

from videodenoise.errors import DenoiseError
from videodenoise.settings import DEVICE_PANEL, check_fields, setting

DEFAULT_WINDOW = 5  # the training clip length
DEFAULT_STRIDE = 3  # without fusion: the centre 3 frames of each 5-frame window, a neighbour on each side
# a model attending over aligned frames keeps the centre frame of each window: it denoises only the frames kept
# (so keeping fewer costs no more), and every frame then has its neighbours ±1, ±2; on eight validation clips of 15
# frames +0.09 dB over the centre 3 at σ = 25, 8 of 8, 0.98× the time (benchmarks/results/ablation-observation/stride)
ALIGNED_STRIDE = 1
MAX_WINDOW = 64  # a window is held in memory whole, however short the video: bounded whatever is asked
COLOURS = ("opponent", "rgb")
SCALINGS = ("rescale", "none")
MIRRORS = ((), (-1,), (-2,), (-2, -1))  # the frame axes flipped: none, left-right, up-down, both
FLOW_PRESETS = ("ultrafast", "fast", "medium")  # OpenCV's DIS presets, cv2.DISOPTICAL_FLOW_PRESET_*
# the groups of `clean --help` besides its main options and the device: what is told about the noise and the
# footage, and the parts of the pipeline a --quality preset sets
QUALITY_PANEL = "Noise and quality"
PIPELINE_PANEL = "The pipeline (what --quality sets)"


@dataclass(frozen=True)
class FusionSettings:
    """How `MotionFusion` aligns and weighs neighbours (defaults: chosen on validation clips by
    benchmarks/tune_fusion.py)."""

    radius: int = 2  # neighbours on each side: 2 fuses up to 5 frames
    flow_preset: str = "medium"  # DIS preset, see FLOW_PRESETS
    flow_blur: float = 0.8  # Gaussian blur (px) of the grey frames the flow is computed on
    box: int = 5  # side of the window a squared difference is averaged over
    strength: float = 0.7  # h = strength·σ: how large an unexplained difference still counts
    # with guides (a first pass's output, `passes=2`), a weight is guided_mix times one read off them, at
    # h = guided_strength·σ (their differences hold no noise, only the first pass's error), plus the rest
    # times the noisy frames' (0.35 and 0.5: on the validation pans, benchmarks/results/passes)
    guided_strength: float = 0.35
    guided_mix: float = 0.5
    # scale each aligned neighbour to the frame's exposure, a gain per channel (fusion's notes, "Exposure")
    match_exposure: bool = False
    # reach a neighbour k frames away through the frames between, chaining consecutive frames' flows
    # (fusion's notes, step 1): two dense flows a frame instead of 2·radius
    chain_flows: bool = False

    def __post_init__(self):
        check_fields(self, DenoiseError, "fusion setting")
        if self.radius < 0:
            raise DenoiseError(f"the fusion radius must be >= 0 frames, got {self.radius}")
        if self.flow_preset not in FLOW_PRESETS:
            raise DenoiseError(f"unknown flow preset '{self.flow_preset}'; choose one of: {', '.join(FLOW_PRESETS)}")
        if self.flow_blur < 0 or self.box < 1 or not self.strength > 0 or not self.guided_strength > 0:
            raise DenoiseError("flow_blur must be >= 0, box >= 1, and strength and guided_strength > 0")
        if not 0 <= self.guided_mix <= 1:
            raise DenoiseError(f"guided_mix is a share: from 0 to 1, got {self.guided_mix}")


@dataclass(frozen=True)
class DenoiseSettings:
    """Everything about applying a model that is not in its weights (see `videodenoise.denoise.denoiser`)."""

    window: int = setting(
        DEFAULT_WINDOW, "Frames the model sees at once (reflected at the ends).", panel=PIPELINE_PANEL
    )
    stride: int | None = setting(
        None,
        "Frames kept from each window, the centre ones: 1 = one window per frame (slowest), the window = "
        "disjoint windows (fastest); a model attending over aligned frames denoises only the frames kept, "
        "so for it the stride changes little of the time. Default: the window with fusion (every frame "
        f"already holds its neighbours), {DEFAULT_STRIDE} without, {ALIGNED_STRIDE} for a model attending over "
        "aligned frames.",
        panel=PIPELINE_PANEL,
    )
    # 1024: on 1920×1080 frames 5 % faster than 512 (fewer overlaps computed twice) at the same peak memory, the CPU's
    # bands bounding the model's (benchmarks/results/speed/large-frames/); frames up to 1024 px a side are not cut
    tile: int | None = setting(1024, "Largest tile side in pixels; 0 = whole frames.", panel=PIPELINE_PANEL)
    overlap: int | None = setting(
        None, "Tile overlap in pixels (default: from the model's reach).", panel=PIPELINE_PANEL
    )
    colour: str = setting(
        "opponent",
        "How a grey model denoises colour video: opponent (luminance and two "
        "colour differences) or rgb (each channel).",
        panel=PIPELINE_PANEL,
    )
    patch_stride: int | None = setting(
        None,
        "Cut patches at this stride instead of the model's own (the weights do not depend on it): 2 for a "
        "stride-4 model averages 4× as many patch estimates per pixel, at about 4× the time.",
        panel=PIPELINE_PANEL,
    )
    fusion: FusionSettings | None = setting(
        None,
        "Average every frame with its motion-aligned neighbours where they agree before the model "
        "(needs σ: off with --sigma none).",
        panel=PIPELINE_PANEL,
    )
    mirrors: int = setting(
        1,
        "Average the model's estimates of 1, 2 or 4 mirror images of each window (as it is; flipped left-right; "
        "and up-down, and both), each turned back: about that many times the model's time.",
        panel=PIPELINE_PANEL,
    )
    passes: int = setting(
        1,
        "1, or 2: denoise twice, the second time with fusion's flow and weights read off the first pass's "
        "output instead of the noisy frames (about twice the time; needs fusion).",
        panel=PIPELINE_PANEL,
    )
    guide_patch_stride: int | None = setting(
        None,
        "With --passes 2: the first pass's patch stride (default: the second's). The first pass only steers "
        "fusion's flow and weights, so a sparser patch grid there costs little and saves its time.",
        panel=PIPELINE_PANEL,
    )
    scales: int = setting(
        1,
        "1, or 2: also denoise the video at half its size and take the frequencies above a 3-pixel Gaussian from "
        "the full size, the rest from the half size, where noise too wide for the model's patches is removed "
        "(about 1.25× the time; needs σ).",
        panel=PIPELINE_PANEL,
    )
    wiener: bool = setting(
        False,
        "Filter the noisy frames again, per 3D DCT coefficient of patches grouped along the flow (colour in "
        "opponent colours, the noise as measured on each frame), with the denoised output as the Wiener filter's "
        "pilot, and mix 0.3 of that in, 0.5 where the noise measures white (about 1.5× the time; needs σ).",
        panel=PIPELINE_PANEL,
    )
    wiener_stride: int = setting(
        1,
        "With --wiener: filter the patches every this many pixels down and across (1: every position, as best "
        "does; N: 1/N² of them). At 5, with --wiener-flow ultrafast, the filter adds about 37 % to fast's time.",
        panel=PIPELINE_PANEL,
    )
    wiener_flow: str = setting(
        "medium",
        "With --wiener: the OpenCV DIS preset of the flow between the denoised frames that groups the patches "
        f"({', '.join(FLOW_PRESETS)}).",
        panel=PIPELINE_PANEL,
    )
    calibrate: bool = setting(
        False,
        "Choose for each video how much σ the model is told (0.64-2× the noise's), by how well each choice "
        "predicts a left-out neighbouring frame, on 5 frames from its middle; white noise only, not a codec's.",
        panel=QUALITY_PANEL,
    )
    sigma_scale: float = setting(
        1.0,
        "Multiply σ by this before anything uses it (σ auto's curve, or the number given): above 1 removes more noise "
        "and more fine detail, under 1 less; --sigma 20 --sigma-scale 1.5 is --sigma 30.",
        panel=QUALITY_PANEL,
    )
    calibrate_dark: bool = setting(
        False,
        "Calibrate as --calibrate does where σ auto finds the video dark (a mean level under 48 of 255), where it "
        "reads the noise low; white noise only, not a codec's (on in the fast and balanced presets).",
        panel=QUALITY_PANEL,
    )
    unclip: bool = setting(
        True,
        "Undo the bias 8-bit clipping leaves in what fusion and the model return (near black too bright, near white "
        "too dark), with the σ told or estimated; off: their output as it is (benchmarks/results/clipping).",
        panel=QUALITY_PANEL,
    )
    camera_bias: bool = setting(
        True,
        "With --sigma auto, also undo the bias a camera's gamma leaves (shadows darkened, in footage whose noise "
        "was made in linear light) when the first frame with noisy picture is skewed as a gamma skews it; clean "
        "says when. Off: only the clipping's bias is undone. Held out it gains +0.17 dB on average, up to +2.3 on a "
        'dark scene and -0.65 on a near-black background (README, "Real footage").',
        panel=QUALITY_PANEL,
    )
    fields: bool = setting(
        False,
        "Denoise a video its file says is interlaced field by field: each frame's two fields (half its height) in "
        "the order they were taken, then woven back. +2.2 dB on a synthetic interlaced clip with motion, -0.8 on a "
        "nearly still one; progressive video is denoised as frames either way.",
        panel=PIPELINE_PANEL,
    )
    scaling: str = setting(
        "rescale",
        "How a model meets another noise level than it was trained at: rescale "
        "(noise-level rescaling) or none (applied as trained).",
        panel=PIPELINE_PANEL,
    )
    device: str = setting("auto", "auto, cpu or cuda (under torchrun: the GPU of each local rank).", panel=DEVICE_PANEL)
    # fp32, not auto, on a GPU too: on an H200 bf16 made `clean` no faster (the flow and fusion around the model
    # set its pace) and cost 0.02-0.05 dB on average (benchmarks/results/gpu); fp32 also gives the CPU's frames
    precision: str = setting("fp32", "fp32, bf16, or auto (bf16 on GPU, fp32 on CPU).", panel=DEVICE_PANEL)

    def __post_init__(self):
        check_fields(self, DenoiseError, "denoise setting")
        if not 1 <= self.window <= MAX_WINDOW:
            raise DenoiseError(
                f"the temporal window must be from 1 to {MAX_WINDOW} frames, got {self.window}; the models were "
                f"trained on {DEFAULT_WINDOW}-frame clips"
            )
        if self.stride is not None and self.stride < 1:
            raise DenoiseError(f"the stride must be at least 1 frame, got {self.stride}")
        if self.tile is not None and self.tile < 0:
            raise DenoiseError(f"the tile size must be 0 (whole frames) or more pixels, got {self.tile}")
        if self.overlap is not None and self.overlap < 0:
            raise DenoiseError(f"the tile overlap must be >= 0 pixels, got {self.overlap}")
        if self.patch_stride is not None and self.patch_stride < 1:
            raise DenoiseError(f"patch_stride must be between 1 and the patch size, got {self.patch_stride}")
        if not self.sigma_scale > 0:
            raise DenoiseError(f"--sigma-scale is a factor > 0 (1: the σ as it is), got {self.sigma_scale:g}")
        if self.mirrors not in (1, 2, 4):
            raise DenoiseError(f"mirrors must be 1, 2 or 4 (mirror images averaged), got {self.mirrors}")
        if self.guide_patch_stride is not None and self.guide_patch_stride < 1:
            raise DenoiseError(
                f"guide_patch_stride must be between 1 and the patch size, got {self.guide_patch_stride}"
            )
        if self.passes not in (1, 2):
            raise DenoiseError(f"passes must be 1 or 2, got {self.passes}")
        if self.passes == 2 and self.fusion is None:
            raise DenoiseError(
                "a second pass steers fusion by the first pass's output: it needs fusion (and σ); "
                "use passes=1 (--passes 1)"
            )
        if not 1 <= self.wiener_stride <= 8:
            raise DenoiseError(f"wiener_stride must be from 1 to 8 pixels (a patch side), got {self.wiener_stride}")
        if self.wiener_flow not in FLOW_PRESETS:
            raise DenoiseError(f"unknown flow preset '{self.wiener_flow}'; choose one of: {', '.join(FLOW_PRESETS)}")
        if self.scales not in (1, 2):
            raise DenoiseError(f"scales must be 1 or 2 (the full size, and half of it), got {self.scales}")
        if self.colour not in COLOURS:
            raise DenoiseError(f"unknown colour handling '{self.colour}'; choose one of: {', '.join(COLOURS)}")
        if self.scaling not in SCALINGS:
            raise DenoiseError(f"unknown scaling '{self.scaling}'; choose one of: {', '.join(SCALINGS)}")

    def frames_kept(self, aligned: bool = False) -> int:
        """Frames kept from each window: the stride, else the window when frames are fused, else the centre 3, or the
        centre one for a model attending over `aligned` frames."""
        if self.stride is not None:
            return min(self.stride, self.window)
        if self.fusion is not None:
            return self.window
        return min(ALIGNED_STRIDE if aligned else DEFAULT_STRIDE, self.window)


# best fuses 4 neighbours each side: on 12-frame validation clips radius 4 gained +0.08 dB over 3 at σ = 25 for
# 1.01× the time, and 5, within 0.03 dB of 4, gave way by the rule fixed before the run
# (benchmarks/results/fusion-radius/); and it matches each neighbour's exposure first: +0.12 dB at σ = 25 there, 8 of
# 8 clips ahead, for 1.04× the time (benchmarks/results/exposure/). fast stays at 2 neighbours along direct flows,
# unmatched: 4 matched neighbours along chained flows passed its rule there (+0.29 dB at σ = 25, 1.05× the time) but,
# held out, lost 0.33-0.57 dB on bikes, the one real clip whose parts move on their own, gained only on the pans
# (whose synthetic exposure drift matching undoes), and took 0.25× OpenCV NLM's time on the long clip against
# 0.24× (issue 19 asks ≤ 0.25×), so it was not kept (ibid., "Held out")
# balanced is fast with the Wiener filter on every 5th patch position, its flow at DIS's ultrafast: the validation
# clips' choice among strides 4 and 5 (+0.49 dB at σ = 25 there); held out +0.26 dB at σ = 25, 6 of 6 clips, camera
# noise −0.03 to +0.10, for 1.37× fast's time, 0.27-0.31× OpenCV NLM's on the long clip: over the 0.25× that issue
# 19 holds the default to, so it is not the default (benchmarks/results/wiener-fast/)
# fast and balanced calibrate dark footage (white noise only): on the late validation clips darkened 8× and 16×,
# +0.29 dB over 28 condition-means, none lower, +0.1 to +3.0 dB where it chose a scale other than 1, by a rule fixed
# before the run (benchmarks/results/dark-calibration/); its cost is --calibrate's, fixed per dark video
PRESETS: dict[str, DenoiseSettings] = {
    "fast": DenoiseSettings(fusion=FusionSettings(), calibrate_dark=True),
    "balanced": DenoiseSettings(
        fusion=FusionSettings(), wiener=True, wiener_stride=5, wiener_flow="ultrafast", calibrate_dark=True
    ),
    "best": DenoiseSettings(
        fusion=FusionSettings(radius=4, match_exposure=True),
        patch_stride=2,
        calibrate=True,
        passes=2,
        guide_patch_stride=4,
        scales=2,
        wiener=True,
    ),
}

# the shipped weights (files of videodenoise/checkpoints) each preset applies unless given others: balanced's are
# fast's; best's are
# a 576-atom DUST trained on the default's recipe and fine-tuned at best's patch stride, 2 (about 1.6× the
# dense 256-atom weights' time; configs/train/dust-video-atoms-1.toml, -2.toml, dust-video-atoms-dense.toml). fast's is
# models.checkpoints.DEFAULT_CHECKPOINT (what a run without --checkpoint loads elsewhere), named here by its file
# name so that this module, which the command line's --help reads, stays free of torch; test_denoise keeps them equal
PRESET_WEIGHTS: dict[str, str] = {
    "fast": "dust-video.safetensors",
    "balanced": "dust-video.safetensors",
    "best": "dust-video-wide.safetensors",
}


def preset(name: str) -> DenoiseSettings:
    """The settings `clean --quality NAME` starts from, or a one-line DenoiseError naming the choices."""
    if name not in PRESETS:
        raise DenoiseError(f"unknown --quality '{name}'; choose one of: {', '.join(PRESETS)}")
    return PRESETS[name]
