"""The relative change reader's decisions as they are logged (``relative CHANGE …`` at DEBUG on
``anchormem.facts.relative``), collected for benchmarks that list what a store's writes retired."""

from __future__ import annotations

import logging

__all__ = ["ChangeLog"]


class ChangeLog(logging.Handler):
    """A logging handler keeping the text of each ``relative CHANGE`` record in ``rows`` (in order)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.rows: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if msg.startswith("relative CHANGE"):
            self.rows.append(msg[len("relative CHANGE "):])
