"""The denoisers: DUST (dust) and UT (ut) on one base class (base), the layers they are built from
(layers), their configs (config), building, saving and loading by name (registry), and trained
weights checked before use (checkpoints)."""
