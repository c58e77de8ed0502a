"""Grounded answers for :meth:`anchormem.Memory.ask`: cite memories that really answer, or abstain.

- :mod:`.question`: the question as the evidence test reads it (names, weighted key terms, paraphrase groups);
- :mod:`.evidence`: the evidence test (:class:`EvidenceScorer`, :class:`AnswerConfig`, :func:`select`);
- :mod:`.slot_evidence`: a question about one of the user's slots, in either language, cites its current claim;
- :mod:`.extractive`: the offline answer (verbatim quotes with speaker and date);
- :mod:`.llm_answer`: the LLM answer over the compressed evidence, checked, with the extractive fallback;
- :mod:`.pending`: changes held for review, said beside the value they would change;
- :mod:`.slot_questions`: a question about one of the asker's slots reaches its current value.
"""

from .evidence import AnswerConfig, EvidenceScorer, QuestionInfo, Scored, analyze_question, select
from .extractive import NO_RECORD, NO_RECORD_ZH, extractive_answer, quote
from .llm_answer import llm_answer
from .pending import with_pending
from .slot_questions import slot_answer

__all__ = ["AnswerConfig", "EvidenceScorer", "QuestionInfo", "Scored", "analyze_question", "select", "NO_RECORD",
           "NO_RECORD_ZH", "extractive_answer", "quote", "llm_answer", "with_pending", "slot_answer"]
