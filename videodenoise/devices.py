"""Choosing the device, numeric precision and CPU threads from the `--device`, `--precision` and `--threads`
options, and what the CPU offers (bfloat16, AVX-512, cache sizes) where the code adapts to it."""

from __future__ import annotations

import contextlib
import warnings
from pathlib import Path

import torch

from videodenoise.errors import VideodenoiseError

DEVICES = ("auto", "cpu", "cuda")
PRECISIONS = ("auto", "fp32", "bf16")


def resolve_device(name: str = "auto", local_rank: int | None = None) -> torch.device:
    """`auto` is the GPU when there is one, else the CPU; `cuda` without a GPU is an error.
    Under torchrun each process takes the GPU of its local rank."""
    if name not in DEVICES and not name.startswith("cuda:"):
        raise VideodenoiseError(f"unknown device '{name}'; choose one of: {', '.join(DEVICES)}")
    if name == "cpu" or (name == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise VideodenoiseError(f"device '{name}' was asked for but no CUDA GPU is available; use --device cpu or auto")
    if name.startswith("cuda:"):
        return torch.device(name)
    return torch.device("cuda", local_rank or 0)


def resolve_precision(name: str, device: torch.device) -> torch.dtype:
    """`auto` is bfloat16 autocast on a GPU (no loss scaling needed) and float32 on the CPU."""
    if name not in PRECISIONS:
        raise VideodenoiseError(f"unknown precision '{name}'; choose one of: {', '.join(PRECISIONS)}")
    if name == "bf16" or (name == "auto" and device.type == "cuda"):
        if device.type == "cpu" and not cpu_has_fast_bfloat16():
            warnings.warn(
                "this CPU has no fast bfloat16 (torch's oneDNN check finds none; it needs AVX-512 or newer), so "
                "--precision bf16 is emulated and many times slower than fp32 (about 18x for DUST on an AVX2 CPU); "
                "--precision fp32 is faster here",
                stacklevel=2,
            )
        return torch.bfloat16
    return torch.float32


def cpu_has_fast_bfloat16() -> bool:
    """Whether torch's oneDNN runs bfloat16 natively on this CPU (it needs AVX-512 or newer); True when torch
    cannot say. On an AVX2 CPU bfloat16 autocast ran DUST at 0.56 frames/s against 9.9 in float32
    (benchmarks/results/speed, "A noise map's thresholds become one per atom")."""
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):  # a private op: a torch without it is not a reason to warn
        return True


def cpu_has_avx512() -> bool:
    """Whether this CPU runs AVX-512 code, as torch's kernel dispatch sees it (False where torch cannot say,
    or where ATEN_CPU_CAPABILITY lowers it)."""
    try:
        return torch.backends.cpu.get_cpu_capability().startswith("AVX512")
    except (AttributeError, RuntimeError):
        return False


def cpu_cache_bytes(level: int, root: Path = Path("/sys/devices/system/cpu/cpu0/cache")) -> int | None:
    """The size of one core's level-`level` data (or unified) cache in bytes, as Linux's sysfs lists it under
    `root`; None where it does not (another OS, a container hiding it)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    try:
        for index in sorted(root.glob("index*")):
            if (index / "level").read_text().strip() != str(level):
                continue
            if (index / "type").read_text().strip() not in ("Data", "Unified"):
                continue
            size = (index / "size").read_text().strip()
            return int(size[:-1]) * units[size[-1]] if size[-1] in units else int(size)
    except (OSError, ValueError):
        return None
    return None


def use_threads(count: int) -> None:
    """Run torch's and OpenCV's CPU work on `count` threads (both default to one per core). Fewer pays when
    other jobs share the machine: torch's threads wait on each other for a core (`demo` beside one busy
    process on 2 cores: 75-85 s on 2 threads, 40 s on 1; idle, 29 s against 37 s)."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise VideodenoiseError(f"--threads must be a whole number of at least 1, got {count!r}")
    import cv2

    torch.set_num_threads(count)
    cv2.setNumThreads(count)


def autocast(device: torch.device, dtype: torch.dtype):
    """Mixed-precision context for the forward pass (a no-op in float32)."""
    if dtype == torch.float32:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=dtype)


def distributed_environment() -> tuple[int, int, int | None]:
    """(rank, world size, local rank) as torchrun sets them in the environment; (0, 1, None) when not
    launched by torchrun. The one place that reads RANK, WORLD_SIZE and LOCAL_RANK."""
    import os

    def read(name: str, default: int | None) -> int | None:
        raw = os.environ.get(name)
        if raw is None or raw.strip() == "":
            return default
        try:
            return int(raw)
        except ValueError:
            raise VideodenoiseError(
                f"environment variable {name}={raw!r} is not an integer; launch with torchrun or unset it"
            ) from None

    world = read("WORLD_SIZE", 1)
    if world is None or world < 1:
        raise VideodenoiseError(
            f"environment variable WORLD_SIZE={world} must be at least 1; launch with torchrun or unset it"
        )
    rank = read("RANK", 0)
    if not 0 <= rank < world:
        raise VideodenoiseError(
            f"environment variable RANK={rank} is outside 0..{world - 1}; launch with torchrun or unset it"
        )
    return rank, world, read("LOCAL_RANK", None)
