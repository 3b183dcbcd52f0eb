"""Noise: the kinds of noise added to clean clips, noise levels and the γ sweep, and estimating the
noise level of a video."""
