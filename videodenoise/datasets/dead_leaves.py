"""Dead-leaves images: synthetic texture with the statistics of natural images, as many as there are seeds.

The dead-leaves model (Matheron; Lee, Mumford & Huang 2001) drops opaque discs one after another onto the picture,
each hiding what lies under it, with radii drawn from a density ∝ r⁻³ between a smallest and a largest radius. What
shows is scale-invariant (its power spectrum falls as about 1/f²), with sharp edges and texture at every size
down to a few pixels. That is why camera tests measure a denoiser's texture loss on a dead-leaves chart (Cao,
Guichard & Hornung, "Dead leaves model for measuring texture quality on a digital camera", 2010): a denoiser that
smooths texture shows it there as it would on grass or foliage.

Here they give validation clips that no choice has seen (`motion.load_photo("generated:dead_leaves_7")`: a seed not
used before), since the photographs shipped with installed packages have all been read by some choice. Discs are
drawn front to back, each painting only what no disc in front of it covers, until the picture is covered; the picture
is drawn at twice its size and averaged down by 2×2, so that edges are anti-aliased as a lens and a sensor leave
them. Deterministic given the seed.

Textured (`textured=True`): discs of flat colour are what dead leaves are, and a codec spends few bits on them; gravel,
grass or fabric also carry a grain of their own, finer than any disc, which is what a codec at a camera's CRF loses
first. Each disc then carries a static fine texture (white noise blurred to a correlation of about a pixel, the same
field under every disc) at an amplitude of its own, up to GRAIN_AMPLITUDE: some discs smooth, some rough.
"""

from __future__ import annotations

import numpy as np

SIZE = 512  # pixels a side: room for a 240×320 pan with its zoom and rotation
SMALLEST_RADIUS = 1.5  # pixels of the final picture: texture down to the finest scale a codec keeps
LARGEST_RADIUS = 100.0
SUPERSAMPLING = 2
CHROMA = 0.15  # std of a colour disc's channels around its grey level
GRAIN_AMPLITUDE = 0.04  # the largest std of a textured disc's grain ([0, 1] scale; about 10 of 255)
GRAIN_BLUR = 1.0  # the grain's correlation (Gaussian σ, pixels of the final picture)


def dead_leaves_image(seed: int, colour: bool = True, size: int = SIZE, textured: bool = False) -> np.ndarray:
    """A (size, size, 3) float32 dead-leaves picture in [0, 1]: colour discs (a grey level with a tint), or grey ones
    in three equal channels; textured: each disc with a fine grain of its own amplitude (the module notes)."""
    rng = np.random.default_rng([seed, int(colour)])
    grain_rng = np.random.default_rng([seed, int(colour), 1])  # its own stream: the discs as without texture
    side = size * SUPERSAMPLING
    canvas = np.zeros((side, side, 3), np.float32)
    amplitude = np.zeros((side, side), np.float32) if textured else None  # each pixel's grain, by its disc
    uncovered = np.ones((side, side), bool)
    remaining = side * side  # uncovered pixels, counted down (not searched for at every disc)
    smallest, largest = SMALLEST_RADIUS * SUPERSAMPLING, LARGEST_RADIUS * SUPERSAMPLING
    while remaining:
        # r from the density ∝ r⁻³ on [smallest, largest], by inverting its distribution function
        u = rng.random()
        radius = 1 / np.sqrt(1 / smallest**2 - u * (1 / smallest**2 - 1 / largest**2))
        # a centre anywhere from which the disc reaches the picture; one that falls on covered pixels only paints none
        cy, cx = rng.uniform(-radius, side + radius, 2)
        top, bottom = max(int(cy - radius), 0), min(int(cy + radius) + 1, side)
        left, right = max(int(cx - radius), 0), min(int(cx + radius) + 1, side)
        if top >= bottom or left >= right:
            continue
        ys, xs = np.ogrid[top:bottom, left:right]
        disc = ((ys + 0.5 - cy) ** 2 + (xs + 0.5 - cx) ** 2 <= radius**2) & uncovered[top:bottom, left:right]
        painted = int(disc.sum())
        if not painted:
            continue
        # a grey level, and in colour a tint around it (natural colours vary less across channels than in brightness)
        grey = rng.random()
        value = np.clip(grey + CHROMA * rng.standard_normal(3), 0, 1) if colour else np.repeat(grey, 3)
        canvas[top:bottom, left:right][disc] = value
        if amplitude is not None:
            amplitude[top:bottom, left:right][disc] = GRAIN_AMPLITUDE * grain_rng.random()
        uncovered[top:bottom, left:right][disc] = False
        remaining -= painted
    if amplitude is not None:
        canvas = np.clip(canvas + (amplitude * _grain(grain_rng, side))[..., None], 0, 1)
    return canvas.reshape(size, SUPERSAMPLING, size, SUPERSAMPLING, 3).mean(axis=(1, 3))


def _grain(rng: np.random.Generator, side: int) -> np.ndarray:
    """A (side, side) field of unit std: white noise blurred by GRAIN_BLUR pixels of the final picture."""
    import cv2

    field = cv2.GaussianBlur(rng.standard_normal((side, side)).astype(np.float32), (0, 0), GRAIN_BLUR * SUPERSAMPLING)
    return field / field.std()
