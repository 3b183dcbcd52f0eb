"""Datasets: one module per dataset layout (avenue, ucsd, shanghaitech, samples, folder), what they
share (base), the registry by name (registry), clip samplers (clips), synthetic camera motion over
photographs (motion) and downloads (download)."""
