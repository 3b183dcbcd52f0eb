"""bench_quality with every model's windows distinct (moved inside the video, as an aligned model's are): one measurement."""
import sys
sys.path.insert(0, "benchmarks")
import videodenoise.denoise.denoiser as denoiser
from videodenoise.denoise.tiling import window_frames
denoiser.window_frames = lambda frame, before, size, total, distinct=False: window_frames(frame, before, size, total, True)
import bench_quality
sys.exit(bench_quality.main(sys.argv[1:]))
