"""videodenoise: interpretable, robust video denoisers (DUST, UT) with layer-wise descent constraints.

The public API is the names below; each is defined in the module named beside it and loaded on first
use, so `import videodenoise` (and the command line's --help) does not pay for torch until a name that
needs it is touched.

    import videodenoise as vd
    denoiser = vd.Denoiser.from_preset("fast")   # what `videodenoise clean` runs (--quality best: "best")
    vd.denoise_video("input.mp4", "input.denoised.mp4", denoiser, sigma="auto")
"""

import importlib as _importlib
import os as _os

# OpenCV's bundled FFmpeg prints decoder chatter ("moov atom not found") straight to stderr when it
# probes a bad file; we turn every such failure into one clear error of our own, so silence it.
# These must be set before cv2 is first imported.
_os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
_os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")

__version__ = "0.1.0"

# name → the module that defines it
_PUBLIC = {
    # denoising video files
    "Denoiser": "videodenoise.denoise.denoiser",
    "DenoiseSettings": "videodenoise.denoise.settings",
    "PRESETS": "videodenoise.denoise.settings",
    "PRESET_WEIGHTS": "videodenoise.denoise.settings",
    "denoise_video": "videodenoise.denoise.pipeline",
    "DenoiseResult": "videodenoise.denoise.pipeline",
    "run_demo": "videodenoise.denoise.demo",
    "MotionFusion": "videodenoise.denoise.fusion",
    "choose_told_scale": "videodenoise.denoise.calibration",
    "FusionSettings": "videodenoise.denoise.settings",
    # video files
    "open_video": "videodenoise.io.video",
    "read_video": "videodenoise.io.video",
    "write_video": "videodenoise.io.writers",
    "VideoWriter": "videodenoise.io.writers",
    "Span": "videodenoise.io.excerpt",
    # datasets and noise
    "load_dataset": "videodenoise.datasets.registry",
    "RandomClips": "videodenoise.datasets.clips",
    "SequentialClips": "videodenoise.datasets.clips",
    "make_noise": "videodenoise.noise.kinds",
    "gamma_sweep": "videodenoise.noise.levels",
    "estimate_video_sigma": "videodenoise.noise.estimation",
    "estimate_video_noise": "videodenoise.noise.estimation",
    "NoiseLevelFunction": "videodenoise.noise.noise_level_function",
    "CameraNoise": "videodenoise.noise.camera",
    # models
    "build_model": "videodenoise.models.registry",
    "load_model": "videodenoise.models.registry",
    "save_model": "videodenoise.models.registry",
    "load_checkpoint": "videodenoise.models.checkpoints",
    "DUST": "videodenoise.models.dust",
    "UT": "videodenoise.models.ut",
    # training
    "TrainConfig": "videodenoise.training.config",
    "DataConfig": "videodenoise.training.config",
    "DescentConfig": "videodenoise.training.config",
    "Trainer": "videodenoise.training.trainer",
    # evaluation
    "EvalConfig": "videodenoise.evaluation.config",
    "evaluate": "videodenoise.evaluation.sweep",
    "read_results": "videodenoise.evaluation.results",
    "write_evaluation_outputs": "videodenoise.evaluation.reports",
    "load_experiment": "videodenoise.evaluation.experiment",
    "run_experiment": "videodenoise.evaluation.experiment",
    "clip_metrics": "videodenoise.metrics",
    # errors
    "VideodenoiseError": "videodenoise.errors",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'videodenoise' has no attribute {name!r}")
    value = getattr(_importlib.import_module(_PUBLIC[name]), name)
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
