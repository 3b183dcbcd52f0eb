"""Choosing the device and precision: bfloat16 on a CPU that only emulates it comes with a warning."""

from __future__ import annotations

import warnings

import pytest
import torch

import videodenoise.devices as devices
from videodenoise.errors import VideodenoiseError


@pytest.mark.parametrize("fast", [True, False])
def test_bf16_on_a_cpu_warns_only_when_the_cpu_emulates_it(fast, monkeypatch):
    monkeypatch.setattr(devices, "cpu_has_fast_bfloat16", lambda: fast)
    cpu = torch.device("cpu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert devices.resolve_precision("bf16", cpu) == torch.bfloat16
        assert devices.resolve_precision("auto", cpu) == torch.float32
        assert devices.resolve_precision("fp32", cpu) == torch.float32
    messages = [str(warning.message) for warning in caught]
    if fast:
        assert messages == []
    else:
        assert len(messages) == 1 and "--precision fp32 is faster" in messages[0]


def test_the_cpu_checks_answer_on_this_machine(monkeypatch):
    assert isinstance(devices.cpu_has_fast_bfloat16(), bool)
    assert isinstance(devices.cpu_has_avx512(), bool)
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX2")
    assert devices.cpu_has_avx512() is False


def test_an_unknown_precision_is_a_clear_error():
    with pytest.raises(VideodenoiseError, match="unknown precision 'fp8'; choose one of: auto, fp32, bf16"):
        devices.resolve_precision("fp8", torch.device("cpu"))


def test_the_l2_cache_is_read_from_sysfs(tmp_path):
    for index, (level, kind, size) in enumerate(
        [(1, "Data", "48K"), (1, "Instruction", "32K"), (2, "Unified", "2048K")]
    ):
        folder = tmp_path / f"index{index}"
        folder.mkdir()
        (folder / "level").write_text(f"{level}\n")
        (folder / "type").write_text(f"{kind}\n")
        (folder / "size").write_text(f"{size}\n")
    assert devices.cpu_cache_bytes(2, tmp_path) == 2 << 20
    assert devices.cpu_cache_bytes(1, tmp_path) == 48 << 10  # the data cache, not the instruction cache
    assert devices.cpu_cache_bytes(3, tmp_path) is None
    assert devices.cpu_cache_bytes(2, tmp_path / "missing") is None
    (tmp_path / "index2" / "size").write_text("garbled\n")
    assert devices.cpu_cache_bytes(2, tmp_path) is None
