"""Issue #22, a new user's findings on the public API (add_many progress, epoch timestamps, database folders)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem import Memory
from anchormem.errors import AnchormemError, ConfigError, InvalidInputError
from anchormem.testing import DeterministicEmbedder


@pytest.fixture
def mem(mem_det):
    return mem_det


def test_add_many_progress_is_cumulative_done_and_total(mem):
    log = [f"I visited museum number {i} today." for i in range(7)]
    ticks: list[tuple[int, int]] = []
    got = mem.add_many(log, user_id="ann", batch_size=3, on_progress=lambda done, total: ticks.append((done, total)))
    assert ticks == [(3, 7), (6, 7), (7, 7)]
    assert got["messages"] == 7


def test_add_many_progress_counts_skipped_tool_steps_in_its_total(mem):
    log = ["I bought a red bicycle.", {"role": "tool", "content": "ok"}, "I started learning the violin."]
    ticks: list[tuple[int, int]] = []
    mem.add_many(log, user_id="ann", batch_size=1, on_progress=lambda d, t: ticks.append((d, t)))
    assert ticks[-1] == (3, 3) and [d for d, _ in ticks] == sorted(d for d, _ in ticks)


def test_an_epoch_int_is_seconds_and_a_plausible_one_is_accepted(mem):
    ev = mem.add("I bought a red bicycle.", user_id="ann", timestamp=1_700_000_000)
    assert ev[0].memory.created_at == datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc)


@pytest.mark.parametrize("value", [12345, 0, 631_151_999, 10 ** 11])
def test_an_implausible_epoch_number_is_rejected_naming_the_field(mem, value):
    with pytest.raises(InvalidInputError, match=r"^timestamp: epoch number .* between 1990-01-01 and one day from"):
        mem.add("I bought a red bicycle.", user_id="ann", timestamp=value)
    assert mem.get_all(user_id="ann") == []


def test_an_old_instant_is_still_accepted_as_a_datetime_or_iso_string(mem):
    ev = mem.add("I bought a red bicycle.", user_id="ann", timestamp="1975-06-01T00:00:00Z")
    assert ev[0].memory.created_at.year == 1975


def test_a_message_timestamp_epoch_is_checked_too(mem):
    with pytest.raises(InvalidInputError, match="message 0 timestamp: epoch number 12345"):
        mem.add([{"role": "user", "content": "I bought a red bicycle.", "timestamp": 12345}], user_id="ann")


def test_a_database_in_a_missing_folder_is_a_config_error_and_creates_nothing(tmp_path):
    target = tmp_path / "no" / "such" / "x.db"
    with pytest.raises(ConfigError, match="the folder of the database .* does not exist") as err:
        Memory(str(target), embedder=DeterministicEmbedder(64), llm=None, cache=False)
    assert isinstance(err.value, AnchormemError)
    assert not (tmp_path / "no").exists()


def test_the_cli_db_in_a_missing_folder_is_an_error_and_creates_nothing(tmp_path):
    from typer.testing import CliRunner

    from anchormem.cli import app

    target = tmp_path / "no" / "x.db"
    res = CliRunner().invoke(app, ["--db", str(target), "add", "I like tea", "--user", "u"],
                             env={"ANCHORMEM_EMBEDDER": "hash"})
    assert res.exit_code == 2, res.output
    assert "does not exist" in res.output
    assert not (tmp_path / "no").exists()
