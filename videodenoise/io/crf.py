"""The H.264 quality scale (libx264's constant rate factor) the outputs are written at, in a module of its own so
that the CLI reads its default without importing the writers (PyTorch, PyAV)."""

MAX_CRF = 51  # libx264's 8-bit CRF range is 0-51
DEFAULT_CRF = 17  # what `clean` writes H.264 at: benchmarks/results/output-crf/
