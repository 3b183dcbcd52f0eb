"""The `videodenoise` command: output on the dataset replicas, and one-line errors for bad input."""

from __future__ import annotations

import subprocess
import sys

import pytest

import replicas as R
from helpers import run_cli


def test_data_info_shows_splits_clips_frames_resolution_fps(tmp_path, capsys, monkeypatch):
    R.make_ucsd(tmp_path, ped=2)
    code, out, err = run_cli(["data", "info", "ucsd-ped2", "--root", str(tmp_path)], capsys, monkeypatch)
    assert code == 0, err
    rows = {
        line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
        for line in out.splitlines()
        if line.count("│") >= 6
    }
    assert rows["train"] == ["2", str(sum(R.UCSD_TRAIN_FRAMES[2])), "360×240", "1", "10"]
    assert rows["test"] == ["2", str(sum(R.UCSD_TEST_FRAMES[2])), "360×240", "1", "10"]
    assert err == ""


def test_data_info_warns_about_label_mismatches(tmp_path, capsys, monkeypatch):
    R.make_avenue(tmp_path)
    (tmp_path / "Avenue Dataset" / "testing_videos" / "03.avi").unlink()
    R.write_avi(tmp_path / "Avenue Dataset" / "testing_videos" / "03.avi", 3, 2, R.AVENUE_SIZE)
    code, out, err = run_cli(["data", "info", "avenue", "--root", str(tmp_path)], capsys, monkeypatch)
    assert code == 0
    assert "warning: avenue/test/03: 3_label.mat implies 6 frames, 2 found" in err
    assert "640" not in out and "64×36" in out and "25" in out


@pytest.mark.parametrize(
    "args,message",
    [
        (["data", "info", "avenue"], "error: dataset 'avenue' needs a root folder; pass --root DIR"),
        (["data", "info", "ped9", "--root", "."], "error: unknown dataset 'ped9'; choose one of: avenue, ucsd-ped1"),
        (["data", "info", "shanghaitech", "--root", "{tmp}"], "error: '{tmp}' matches no known shanghaitech layout"),
        (["data", "info", "ucsd-ped1", "--root", "{tmp}/nope"], "error: root '{tmp}/nope' does not exist"),
        (["data", "download", "avenue"], "error: downloading 'avenue' needs a destination; pass --root DIR"),
    ],
)
def test_bad_input_gives_one_line_and_exit_code_1(tmp_path, capsys, monkeypatch, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code, out, err = run_cli(args, capsys, monkeypatch)
    assert code == 1
    assert err.startswith(message.replace("{tmp}", str(tmp_path)))
    assert err.count("\n") == 1 and "Traceback" not in err


def test_console_script_exit_code_and_no_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "videodenoise", "data", "info", "avenue", "--root", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert result.stderr.strip().startswith("error: root") and "Traceback" not in result.stderr
    help_text = subprocess.run(
        [sys.executable, "-m", "videodenoise", "data", "--help"], capture_output=True, text=True, timeout=120
    )
    assert help_text.returncode == 0 and "download" in help_text.stdout and "info" in help_text.stdout


def test_version_names_ours_and_the_libraries_without_loading_torch():
    from importlib import metadata

    import videodenoise

    code = (
        "import sys; sys.argv = ['videodenoise', '--version']\n"
        "from videodenoise.cli.app import main\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    print('exit', exit.code or 0, 'torch' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    first, libraries, ended = result.stdout.splitlines()
    assert first == f"videodenoise {videodenoise.__version__}" and result.stderr == ""
    assert f"Python {sys.version.split()[0]}" in libraries
    assert f"torch {metadata.version('torch')}" in libraries and f"PyAV {metadata.version('av')}" in libraries
    assert "FFmpeg " in libraries and "(not installed)" not in libraries
    assert ended == "exit 0 False"  # it stops before any command, and reads the versions without importing torch
    assert metadata.version("videodenoise") == videodenoise.__version__  # the package's metadata reads the one version


def test_frame_rate_column_ends_on_the_whole_runs_rate():
    from rich.progress import Progress

    from videodenoise.cli.progress import _FramesPerSecond

    now = [0.0]
    column = _FramesPerSecond()
    with Progress(column, get_time=lambda: now[0], disable=True) as bar:
        task = bar.add_task("clip", total=None)
        now[0] = 2.0  # the estimate and the first window: nothing out yet
        bar.update(task, completed=3, total=10)
        now[0] = 2.1  # a window's frames come out in a burst
        bar.update(task, completed=6, total=10)
        running = column.render(bar.tasks[0]).plain
        now[0] = 2.5
        bar.update(task, completed=10, total=10)
        done = column.render(bar.tasks[0]).plain
    assert running == f"{3 / 0.1:.2f} fps"  # the recent rate while it runs
    assert done == "4.00 fps"  # 10 frames in the 2.5 s since the task was added
    with Progress(column, get_time=lambda: now[0], disable=True) as bar:
        task = bar.add_task("clip", total=None, resumed=6)  # a run going on after the 6 frames of an interrupted one
        bar.update(task, completed=10, total=10)
        now[0] = 3.5
        assert column.render(bar.tasks[0]).plain == "4.00 fps"  # its own 4 frames in 1 s
