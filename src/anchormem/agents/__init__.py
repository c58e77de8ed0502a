"""Reference agents built on :class:`anchormem.Memory` (docs/agents.md).

- :class:`Mediator` (:mod:`.mediator`, ``anchormem mediate``): a conflict-mediation assistant for disputes over
  several conversations: stages, per-party memories with visibility, commitments raised when they fall due.
- :class:`SupportAgent` (:mod:`.support`, ``anchormem support``): a long-session customer-service assistant:
  working buffer, session summaries, facts with expiry, sensitive changes held for review.
- :mod:`.scenarios`: scripted multi-session scenarios (bundled JSON files) and :func:`run_scenario`.

Both work offline with templated replies (:mod:`.templates`, English and Chinese); with an LLM they rewrite
replies under a grounding check (:func:`.common.grounded_rewrite`). Nothing here does I/O at import.
"""

from __future__ import annotations

from .common import AgentReply
from .mediator import STAGES, Mediator
from .scenarios import bundled_scenarios, load_scenario, run_scenario
from .support import SupportAgent

__all__ = ["AgentReply", "Mediator", "STAGES", "SupportAgent", "bundled_scenarios", "load_scenario",
           "run_scenario"]
