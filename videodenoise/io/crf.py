"""The quality scale (the encoders' constant rate factor) that H.264 and HEVC outputs are written at, in a module of
its own so that the CLI reads its defaults without importing the writers (PyTorch, PyAV)."""

MAX_CRF = 51  # libx264's and libx265's CRF range is 0-51
DEFAULT_CRF = {
    # what `clean` writes H.264 at, chosen by a rule fixed before its run: the highest CRF whose loss on the validation
    # clips' denoised camera footage is within 0.15 dB of lossless x264's (17, the default before, lost up to 0.33 dB
    # more; benchmarks/results/output-crf/)
    "h264": 10,
    # HEVC, written for inputs of more than 8 bits: the highest CRF no worse than H.264 High 10 at its CRF 10 (what
    # `clean` wrote such inputs in before) by more than 0.05 dB on the mean or the worst clip, at every camera condition
    # (the second trial: a first rule, on the mean against lossless x264, chose 20, which lost 1.07 dB held out at light
    # noise where High 10 lost 0.52; benchmarks/results/output-crf-h265/)
    "h265": 10,
}
