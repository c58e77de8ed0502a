"""Compatibility module: the grounded answer lives in :mod:`anchormem.answering`."""

from __future__ import annotations

from .answering import NO_RECORD, NO_RECORD_ZH, AnswerConfig, EvidenceScorer, extractive_answer, llm_answer

__all__ = ["AnswerConfig", "EvidenceScorer", "extractive_answer", "llm_answer", "NO_RECORD", "NO_RECORD_ZH"]
