"""The quality scale (the encoders' constant rate factor) that H.264 and HEVC outputs are written at, in a module of
its own so that the CLI reads its defaults without importing the writers (PyTorch, PyAV)."""

MAX_CRF = 51  # libx264's and libx265's CRF range is 0-51
DEFAULT_CRF = {
    # what `clean` writes H.264 at, chosen by a rule fixed before its run: the highest CRF whose loss on the validation
    # clips' denoised camera footage is within 0.15 dB of lossless x264's (17, the default before, lost up to 0.33 dB
    # more; benchmarks/results/output-crf/)
    "h264": 10,
    # HEVC, written for inputs of more than 8 bits: chosen by the same rule, against lossless H.264 at 10 bits; every
    # candidate from 4 to 20 passed, and CRF 20's files are a third of H.264 High 10's at CRF 10
    # (benchmarks/results/output-crf-h265/)
    "h265": 20,
}
