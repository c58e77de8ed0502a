"""The ``anchormem`` command line: a thin layer over :class:`anchormem.Memory`, one module per responsibility.

Global options come before the command: ``anchormem [--db PATH] [--json] COMMAND ...`` (``--json`` also after
it). Every command prints a readable rich layout, or with ``--json`` one JSON document on stdout. Errors raised by
anchormem print one red line on stderr and exit with code 2 (never a traceback).
"""

from . import memory_cmds as _memory_cmds  # noqa: F401  (importing a module registers its commands)
from . import demo as _demo  # noqa: F401
from . import eval_cmds as _eval_cmds  # noqa: F401
from . import server_cmds as _server_cmds  # noqa: F401
from . import review_cmds as _review_cmds  # noqa: F401
from . import commitments_cmds as _commitments_cmds  # noqa: F401
from . import mcp_cmd as _mcp_cmd  # noqa: F401
from . import lifecycle_cmds as _lifecycle_cmds  # noqa: F401
from . import agent_cmds as _agent_cmds  # noqa: F401
from . import encryption_cmds as _encryption_cmds  # noqa: F401
from .common import app, console_main as main
from .demo import DEMO_FILES, load_demo, run_demo

__all__ = ["app", "main", "DEMO_FILES", "load_demo", "run_demo"]
