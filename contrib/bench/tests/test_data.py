"""The benchmark's inputs: data sets from a folder, joined, cut and grown to a size."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolscout import ToolReference
from toolscout_bench.data import (
    DATA_ENV,
    Dataset,
    abstention_split,
    find_data_dir,
    joined_catalog,
    load_datasets,
    quick_subset,
    sized_catalog,
)


def names(tools: list[ToolReference]) -> list[str]:
    return [tool.name for tool in tools]


def test_load_datasets_reads_every_folder_with_tools_and_queries_sorted(data_dir: Path) -> None:
    (data_dir / "notes").mkdir()  # no tools.jsonl: not a data set
    datasets = load_datasets(data_dir)
    assert [d.name for d in datasets] == ["alpha", "beta"]
    assert len(datasets[0].tools) == 10 and len(datasets[0].queries) == 10


def test_load_datasets_names_the_available_sets_when_one_is_missing(data_dir: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"gamma not in .*available: alpha, beta"):
        load_datasets(data_dir, ["alpha", "gamma"])


def test_find_data_dir_prefers_the_environment_variable(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DATA_ENV, str(data_dir))
    assert find_data_dir() == data_dir


def test_find_data_dir_looks_for_shared_eval_beside_a_parent_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(DATA_ENV, raising=False)
    (tmp_path / "shared" / "eval").mkdir(parents=True)
    project = tmp_path / "main" / "docs"
    project.mkdir(parents=True)
    assert find_data_dir(project) == tmp_path / "shared" / "eval"


def test_joining_data_sets_renames_a_duplicate_name_with_its_data_set(data_dir: Path) -> None:
    joined = joined_catalog(load_datasets(data_dir))
    assert len(joined) == 16
    assert len(set(names(joined))) == 16
    assert "get_weather" in names(joined) and "get_weather_beta" in names(joined)
    renamed = next(t for t in joined if t.name == "get_weather_beta")
    assert renamed.description == "Weather forecast for the next days."


def test_joining_numbers_a_renamed_duplicate_that_is_taken_too() -> None:
    sets = [
        Dataset("a", [ToolReference("x", "1"), ToolReference("x_b", "2")], []),
        Dataset("b", [ToolReference("x", "3")], []),
    ]
    assert names(joined_catalog(sets)) == ["x", "x_b", "x_b_2"]


def test_a_catalog_larger_than_the_data_reaches_the_size_with_renamed_copies() -> None:
    base = [ToolReference(f"tool{i}", f"does {i}") for i in range(7)]
    grown = sized_catalog(base, 20)
    assert len(grown) == 20
    assert len(set(names(grown))) == 20
    assert names(grown)[:7] == names(base)
    assert "tool0_copy2" in names(grown) and "tool5_copy3" in names(grown)
    copy = next(t for t in grown if t.name == "tool3_copy2")
    assert copy.description == "does 3"


def test_a_catalog_smaller_than_the_data_is_a_repeatable_sample() -> None:
    base = [ToolReference(f"tool{i}", "") for i in range(50)]
    first = sized_catalog(base, 10)
    assert len(first) == 10
    assert set(names(first)) <= set(names(base))
    assert names(first) == names(sized_catalog(base, 10))


def test_sized_catalog_refuses_a_size_below_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        sized_catalog([ToolReference("a", "")], 0)


def test_quick_subset_keeps_the_relevant_tools_of_its_queries(data_dir: Path) -> None:
    alpha = load_datasets(data_dir, ["alpha"])[0]
    small = quick_subset(alpha, queries=4, tools=6)
    assert len(small.queries) == 4
    kept = set(names(small.tools))
    assert all(kept.issuperset(q.relevant) for q in small.queries)
    assert len(small.tools) == 6


def test_abstention_split_removes_the_tools_of_the_unanswerable_queries(data_dir: Path) -> None:
    alpha = load_datasets(data_dir, ["alpha"])[0]
    split = abstention_split(alpha, unanswerable=3, answerable=5)
    left = set(names(split.tools))
    assert len(split.unanswerable) == 3
    assert all(left.isdisjoint(q.relevant) for q in split.unanswerable)
    assert split.answerable and all(left.issuperset(q.relevant) for q in split.answerable)
    assert len(split.answerable) <= 5
