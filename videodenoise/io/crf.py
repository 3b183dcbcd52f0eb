"""The H.264 quality scale (libx264's constant rate factor) the outputs are written at, in a module of its own so
that the CLI reads its default without importing the writers (PyTorch, PyAV)."""

MAX_CRF = 51  # libx264's 8-bit CRF range is 0-51
# what `clean` writes H.264 at, chosen by a rule fixed before its run: the highest CRF whose loss on the validation
# clips' denoised camera footage is within 0.15 dB of lossless x264's (17, the default before, lost up to 0.33 dB
# more; benchmarks/results/output-crf/)
DEFAULT_CRF = 10
