"""Refresh the web inspector's screenshots in docs/ui/*.png (referenced by docs/ui.md).

    python scripts/ui_screenshots.py [--out DIR]

Runs ``tests/api/test_ui.py::test_screens_for_the_docs`` (a real API server on loopback, headless Debian chromium
through Playwright, 1100×640 viewport) with ``ANCHORMEM_UI_DOCS_SHOTS`` set to ``DIR`` (default: docs/ui of this
checkout) and ``ANCHORMEM_REQUIRE_BROWSER=1``, so a missing browser fails instead of skipping. The test suite itself
writes these screens to test-artifacts/ui/docs/ (gitignored) and never touches docs/. Needs ``chromium`` (or
``$ANCHORMEM_CHROMIUM``), the playwright package (``pip install -e '.[dev]'``) and a CJK font
(``fonts-wqy-zenhei``) for the Chinese rows. Exits with pytest's status; lists the files written.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("start", "memories", "search", "detail", "review", "export-forget")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "ui"), help="folder of the PNGs (default: docs/ui)")
    args = ap.parse_args(argv)
    out = Path(args.out).resolve()
    env = {**os.environ, "ANCHORMEM_UI_DOCS_SHOTS": str(out), "ANCHORMEM_REQUIRE_BROWSER": "1"}
    rc = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "tests/api/test_ui.py::test_screens_for_the_docs"], cwd=ROOT, env=env)
    if rc == 0:
        for name in NAMES:
            path = out / f"{name}.png"
            print(f"{path} ({path.stat().st_size:,} bytes)")
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
