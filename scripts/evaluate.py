"""Compare agents on duplicate deals and write JSON, Markdown and a PNG heatmap.

    python scripts/evaluate.py --game dominoes --option variant=draw --option num_players=3 \
        --agents greedy random "search:budget=60" --deals 100 --workers 2 --out runs/eval_draw3

Agents are ``bot``, ``bot:key=value,...`` or ``label=bot:key=value`` (``make_bot`` names; a
trained policy: ``ppo=checkpoint:path=runs/x/checkpoint.pt``). ``--option key=value`` sets a rule
option (values read as JSON when they parse). See ``domino_env/evaluation.py`` for the method.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domino_env.evaluation import GameSetup, evaluate  # noqa: E402


def _option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"--option takes key=value, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="dominoes", choices=("dominoes", "texas42"))
    parser.add_argument("--option", type=_option, action="append", default=[], help="rule option key=value")
    parser.add_argument("--match", action="store_true", help="play whole matches / games, not rounds / hands")
    parser.add_argument("--agents", nargs="+", required=True)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, help="folder for results.json, results.md, crossplay.png")
    args = parser.parse_args(argv)
    setup = GameSetup(args.game, dict(args.option), match=args.match)
    result = evaluate(setup, args.agents, args.deals, seed=args.seed, workers=args.workers, progress=True)
    print(result.to_markdown())
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "results.json").write_text(result.to_json())
        (args.out / "results.md").write_text(result.to_markdown())
        result.save_heatmap(args.out / "crossplay.png")
        print(f"wrote {args.out}/results.json, results.md, crossplay.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
