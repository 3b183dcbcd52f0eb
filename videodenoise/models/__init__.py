"""The denoisers: DUST (unfolded sparse coding with attention) and UT (unrolled transformer).

Both map a noisy clip (B, T, C, H, W) to an estimate, or with all_layers=True to the L+1 estimates
read out after every layer (layer 0 = the input), through one shared readout per model:

    model = build_model("dust", channels=1)
    estimates = model(noisy, all_layers=True)
    save_model(model, "dust.safetensors"); model = load_model("dust.safetensors")
"""

from .base import UnrolledDenoiser
from .config import DUSTConfig, ModelError, PatchConfig, UTConfig
from .dust import DUST
from .layers import (PatchGrid, SoftThreshold, TokenAttention, dc_atoms, dct_dictionary, extract_patches,
                     fold_patches)
from .registry import (MODEL_NAMES, build_model, count_parameters, load_model, load_state, make_config,
                       model_from_config, read_metadata, save_model)
from .ut import UT

__all__ = [
    "MODEL_NAMES", "build_model", "make_config", "model_from_config", "count_parameters",
    "save_model", "load_model", "load_state", "read_metadata",
    "UnrolledDenoiser", "DUST", "UT", "DUSTConfig", "UTConfig", "PatchConfig", "ModelError",
    "PatchGrid", "extract_patches", "fold_patches", "SoftThreshold", "dct_dictionary", "dc_atoms",
    "TokenAttention",
]
