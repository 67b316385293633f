"""Play dominoes (Block, Draw, Texas 42) in the terminal against bots; ``--help`` lists the options.

    scripts/play.py --game block --bots greedy
    scripts/play.py --game draw --preset boardpan --teams --bots search,greedy,random
    scripts/play.py --game texas42 --you 0,2 --bots heuristic
"""

from __future__ import annotations

import sys

from domino_env.play import main

if __name__ == "__main__":
    sys.exit(main())
