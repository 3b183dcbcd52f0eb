"""Helpers shared by the test modules."""

from __future__ import annotations

import sys

from videodenoise.cli import main


def run_cli(args, capsys, monkeypatch) -> tuple[int, str, str]:
    """Run `videodenoise ARGS` in-process: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["videodenoise", *map(str, args)])
    monkeypatch.setenv("COLUMNS", "250")  # rich wraps tables to the terminal width
    try:
        main()
        code = 0
    except SystemExit as exit:
        code = exit.code or 0
    captured = capsys.readouterr()
    return code, captured.out, captured.err
