"""Play dominoes in the browser against bots, and replay games: http://127.0.0.1:8000 by default.

    scripts/serve.py                     # then open http://127.0.0.1:8000/
    scripts/serve.py --host 0.0.0.0 --port 8080 --bot-delay 0.3

Needs the ``web`` extra (``pip install -e ".[web]"``); see docs/web.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domino_env.web.server import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
