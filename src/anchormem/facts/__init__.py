"""Facts as entity-attribute-value slots: the model, offline rules, LLM extraction and the grounding check.

- :class:`Fact` (``slot`` = (entity, attribute); polarity +1/-1; confidence; sensitive; source_span)
- :func:`extract_facts_rules(turns) -> list[Fact]`: deterministic, offline, English and Chinese
- :func:`extract_facts_llm(llm, turns, language_hint=None, embedder=None) -> ExtractionResult`
- :func:`check_support(fact_or_text, source_text, embedder=None) -> Support`
"""

from __future__ import annotations

from .grounding import Support, check_support
from .llm_extract import ExtractionResult, Rejected, extract_facts_llm
from .model import Fact, detect_language, is_sensitive, normalize_attribute
from .offline import extract_facts_rules

__all__ = ["Fact", "normalize_attribute", "detect_language", "is_sensitive", "extract_facts_rules",
           "extract_facts_llm", "ExtractionResult", "Rejected", "check_support", "Support"]
