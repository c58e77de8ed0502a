"""Bridges to the agent frameworks people already use, each behind its own extra and imported only on demand:

- :mod:`anchormem.integrations.langgraph`: :class:`AnchormemStore`, a LangGraph ``BaseStore`` (long-term store
  for graphs: ``put`` / ``get`` / ``search`` / ``delete`` / ``list_namespaces``), search through anchormem's
  search. ``pip install 'anchormem[langgraph]'``.
- :mod:`anchormem.integrations.openai_agents`: :class:`AnchormemSession`, an OpenAI Agents SDK ``Session``
  whose turns also become long-term memories, with ``recall`` for the agent's instructions.
  ``pip install 'anchormem[openai-agents]'``.
- :mod:`anchormem.integrations.llamaindex`: :class:`AnchormemMemoryBlock`, a LlamaIndex memory block
  (``llama_index.core.memory.Memory(memory_blocks=[...])``). ``pip install 'anchormem[llamaindex]'``.

Importing one of them without its framework raises ConfigError naming the extra. See docs/integrations.md.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError

__all__ = ["require"]


def require(module: str, extra: str) -> Any:
    """Import ``module`` or raise ConfigError naming ``pip install 'anchormem[extra]'``."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"this integration needs {module.split('.')[0]}: pip install 'anchormem[{extra}]' "
                          f"(from a checkout: pip install -e '.[{extra}]')") from exc
