"""Training: settings (config), the descent constraints and their primal-dual step (constraints),
the trainer, and run folders (runs)."""
