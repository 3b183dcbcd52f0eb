"""videodenoise: interpretable, robust video denoisers (DUST, UT) with layer-wise descent constraints."""

__version__ = "0.1.0"
