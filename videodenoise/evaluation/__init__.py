"""Evaluation: the γ sweep and its settings, metrics, classical baselines, results, reports and
figures, statistics over seeds, and the experiment grid."""
