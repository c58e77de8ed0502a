"""Recipe specs of the bench scripts (anchormem.retrieval.config.parse_recipe_spec): both spellings, strict yes/no
values, and a ConfigError for every malformed spec."""

from __future__ import annotations

import pytest

from anchormem.errors import AnchormemError, ConfigError
from anchormem.retrieval.config import RECIPES, SearchConfig, parse_recipe_spec


def test_a_bare_name_is_the_recipe_itself():
    assert parse_recipe_spec("anchored") is RECIPES["anchored"]
    assert parse_recipe_spec("  bm25 ") is RECIPES["bm25"]


@pytest.mark.parametrize("spec", ["anchored+hops=1+anchor_weight=0.6", "anchored:hops=1:anchor_weight=0.6",
                                  "anchored+hops=1:anchor_weight=0.6", "anchored + hops = 1 + anchor_weight = 0.6"])
def test_both_spellings_change_the_same_fields(spec):
    cfg = parse_recipe_spec(spec)
    assert isinstance(cfg, SearchConfig) and cfg.name == spec.strip()
    assert cfg.model_dump() == {**RECIPES["anchored"].model_dump(), "hops": 1, "anchor_weight": 0.6,
                                "name": spec.strip()}
    assert RECIPES["anchored"].hops == 0  # the shared recipe is not changed


def test_values_take_their_field_types():
    cfg = parse_recipe_spec("hybrid_rrf+rrf_k=1e+3+fusion=minmax+candidates=50")
    assert (cfg.rrf_k, cfg.fusion, cfg.candidates) == (1000.0, "minmax", 50)
    assert type(cfg.candidates) is int
    assert parse_recipe_spec('anchored:source_weights={"summary": 0.5, "utterance": 1}').source_weights == \
        {"summary": 0.5, "utterance": 1.0}


@pytest.mark.parametrize("text,value", [("true", True), ("True", True), ("yes", True), ("on", True), ("1", True),
                                        ("false", False), ("FALSE", False), ("no", False), ("off", False),
                                        ("0", False)])
def test_yes_no_fields_parse_strictly(text, value):
    assert parse_recipe_spec(f"anchored+anchor={text}").anchor is value
    assert parse_recipe_spec(f"hybrid_rrf:fusion_adapt={text}").fusion_adapt is value


@pytest.mark.parametrize("spec,says", [
    ("", "empty recipe spec"),
    ("   ", "empty recipe spec"),
    ("nope", "unknown recipe 'nope'"),
    ("nope+hops=1", "unknown recipe 'nope'"),
    ("anchored+hops", "unknown recipe 'anchored+hops'"),  # a change without "="
    ("anchored+anchor=maybe", "valid boolean"),
    ("anchored+anchor=", "valid boolean"),
    ("anchored+anchor=2", "valid boolean"),
    ("anchored+hops=1.5", "valid integer"),
    ("anchored+hops=9", "less than or equal to 1"),
    ("anchored+anchor_weight=heavy", "valid number"),
    ("anchored+fusion=best", "'rrf', 'minmax' or 'weighted'"),
    ("anchored+no_such_field=1", "'no_such_field' is not a SearchConfig field"),
    ("anchored+name=other", "'name' is not a SearchConfig field"),
    ("anchored+hops=1:hops=0", "sets hops twice"),
    ("anchored+source_weights=summary", "source_weights takes JSON"),
])
def test_malformed_specs_raise_config_error(spec, says):
    with pytest.raises(ConfigError) as info:
        parse_recipe_spec(spec)
    assert says in str(info.value)
    assert isinstance(info.value, AnchormemError)


def test_a_spec_that_is_not_a_string_raises():
    with pytest.raises(ConfigError):
        parse_recipe_spec(None)  # type: ignore[arg-type]
