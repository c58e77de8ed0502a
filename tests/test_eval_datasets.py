"""anchormem.eval.datasets: one place that finds shared/datasets (no fixed /work path in the benchmarks)."""

from __future__ import annotations

from pathlib import Path

from anchormem.eval.datasets import LOCOMO, dataset_path, datasets_dir


def test_env_folder_wins(tmp_path, monkeypatch):
    (tmp_path / "locomo").mkdir()
    (tmp_path / "locomo" / "locomo10.json").write_text("[]", encoding="utf-8")
    monkeypatch.setenv("ANCHORMEM_DATASETS", str(tmp_path))
    assert datasets_dir() == tmp_path
    assert dataset_path(LOCOMO) == tmp_path / "locomo" / "locomo10.json"


def test_shared_beside_the_working_directory_is_found(tmp_path, monkeypatch):
    data = tmp_path / "shared" / "datasets" / "memora" / "weekly"
    data.mkdir(parents=True)
    work = tmp_path / "repo"
    work.mkdir()
    monkeypatch.delenv("ANCHORMEM_DATASETS", raising=False)
    monkeypatch.chdir(work)
    assert dataset_path("memora/weekly") == data


def test_a_missing_dataset_names_where_it_belongs(monkeypatch, tmp_path):
    monkeypatch.setenv("ANCHORMEM_DATASETS", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    p = dataset_path("nope/missing.json")
    assert p.parts[-4:] == ("shared", "datasets", "nope", "missing.json") and not p.exists()
    assert isinstance(p, Path)
