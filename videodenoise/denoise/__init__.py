"""Denoising real video: the Denoiser, motion-compensated fusion, tiling, the file pipeline and the
demo."""
