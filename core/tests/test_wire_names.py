"""Wire-safe tool names (`toolscout.wire_names`): valid, unique, order-independent, reversible."""

from __future__ import annotations

import json
import random
import re

import pytest
from toolscout.testing.support import assert_wire_safe, eval_data
from toolscout.wire_names import WireNames, is_wire_safe, wire_names

# BFCL-shaped names: `math.gcd` and `math_gcd` both exist there.
NAMES = [
    "math.gcd",
    "math_gcd",
    "physics.calculate_cone_mass",
    "currency_conversion",
    "currency_conversion.convert",
    "a/b c",
    "a_b_c",
    "x" * 80,
    "x" * 70 + ".y",
]
BFCL = eval_data("bfcl", "tools.jsonl")


def test_valid_names_keep_themselves_and_the_others_get_unique_valid_names() -> None:
    mapping = wire_names(NAMES)
    wire = [mapping.get(name, name) for name in NAMES]
    assert_wire_safe(wire)  # valid, and no two the same
    assert len(wire) == len(NAMES)
    assert "math_gcd" not in mapping and "a_b_c" not in mapping  # already valid
    assert mapping["physics.calculate_cone_mass"] == "physics_calculate_cone_mass"
    assert mapping["math.gcd"].startswith("math_gcd_")  # the plain form is taken


def test_the_mapping_does_not_depend_on_the_order_of_the_names() -> None:
    expected = wire_names(NAMES)
    shuffled = list(NAMES)
    for seed in range(5):
        random.Random(seed).shuffle(shuffled)
        assert wire_names(shuffled) == expected


def test_wire_names_one_at_a_time_reserve_valid_names_and_map_back() -> None:
    names = WireNames()
    names.reserve(["math_gcd"])
    assert names.wire("math.gcd") != "math_gcd"
    assert names.wire("math_gcd") == "math_gcd"
    assert names.name(names.wire("math.gcd")) == "math.gcd"
    assert names.name("unknown") == "unknown"
    # Without a reservation the first comer keeps the plain form, and names never change.
    late = WireNames()
    first = late.wire("math.gcd")
    assert late.wire("math_gcd") != first and late.wire("math.gcd") == first


def test_bfcl_names_all_become_unique_valid_wire_names() -> None:
    if not BFCL.exists():
        pytest.skip(f"no BFCL tools at {BFCL} (set TOOLSCOUT_EVAL_DATA)")
    names = [json.loads(line)["name"] for line in BFCL.read_text().splitlines() if line.strip()]
    mapping = wire_names(names)
    wire = [mapping.get(name, name) for name in names]
    assert len(set(wire)) == len(set(names))
    assert all(is_wire_safe(name) for name in wire)
    # Replacing dots alone would collide: the hashed names are the colliding ones.
    plain = [re.sub(r"[^A-Za-z0-9_-]", "_", name) for name in names]
    assert len(set(plain)) < len(set(names))
