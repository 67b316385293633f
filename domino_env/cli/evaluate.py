"""Compare agents on duplicate deals and write JSON, Markdown and a PNG heatmap.

    domino-evaluate --game dominoes --option variant=draw --option num_players=3 \
        --agents greedy random "search:budget=60" --deals 100 --workers 2 --out runs/eval_draw3

Agents are ``bot``, ``bot:key=value,...`` or ``label=bot:key=value`` (``make_bot`` names; a
trained policy: ``ppo=checkpoint:path=runs/x/checkpoint.pt``). ``--option key=value`` sets a rule
option (values read as JSON when they parse). See ``domino_env/evaluation/harness.py`` for the method.
Bad arguments (agents included) stop the command before any game with one ``error:`` line, exit 2;
an agent that refuses the rules only at its first move (a checkpoint trained on other rules) stops
it there with the same one line.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from domino_env.evaluation import AgentError, GameSetup, evaluate, record_deals
from domino_env.frontends.recording import GameRecorder
from domino_env.games import available_games


def _int_at_least(minimum: int, what: str) -> Callable[[str], int]:
    """An argparse type: an integer ``>= minimum``, else an error saying it must be ``what``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
        return value

    return parse


def rule_option(text: str) -> tuple[str, object]:
    """``--option key=value``: the value read as JSON when it parses, else as text."""
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
    parser.add_argument("--game", default="dominoes", choices=available_games())
    parser.add_argument("--option", type=rule_option, action="append", default=[], help="rule option k=v")
    parser.add_argument("--match", action="store_true", help="play whole matches / games, not rounds / hands")
    parser.add_argument("--agents", nargs="+", required=True)
    parser.add_argument("--deals", type=_int_at_least(1, "a positive integer"), default=100)
    parser.add_argument("--seed", type=_int_at_least(0, "a non-negative integer"), default=0)
    parser.add_argument("--workers", type=_int_at_least(1, "a positive integer"), default=2)
    parser.add_argument("--lockstep", action="store_true", help="play many deals together, each agent "
                        "answering all its games at once (same results; faster for networks and search)")
    parser.add_argument("--out", type=Path, help="folder for results.json, results.md, crossplay.png")
    parser.add_argument("--save-gif", type=Path, metavar="PATH", help="save the games of the first "
                        "lineup on the first --gif-deals deals as one animated GIF, seen from seat 0")
    parser.add_argument("--gif-deals", type=_int_at_least(1, "a positive integer"), default=1)
    parser.add_argument("--gif-seconds", type=float, default=1.0, help="seconds per GIF frame (default 1)")
    args = parser.parse_args(argv)
    if args.save_gif is not None and not args.save_gif.parent.is_dir():
        parser.error(f"argument --save-gif: folder {str(args.save_gif.parent)!r} does not exist")
    if args.save_gif is not None and args.gif_deals > args.deals:
        parser.error(f"argument --gif-deals: at most --deals ({args.deals}), got {args.gif_deals}")
    if not args.gif_seconds > 0:
        parser.error(f"argument --gif-seconds: must be positive, got {args.gif_seconds}")
    repeated = sorted(key for key, n in Counter(key for key, _ in args.option).items() if n > 1)
    if repeated:
        parser.error(f"argument --option: each key once, got {repeated} more than once")
    try:
        setup = GameSetup(args.game, dict(args.option), match=args.match)
    except (TypeError, ValueError) as err:
        parser.error(f"argument --option: {err}")
    if args.out:  # checked now, not after the games
        try:
            args.out.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=args.out):
                pass
        except OSError as err:
            parser.error(f"argument --out: {str(args.out)!r} is not a folder it can write: {err.strerror}")
    try:
        result = evaluate(setup, args.agents, args.deals, seed=args.seed, workers=args.workers, progress=True,
                          lockstep=args.lockstep)
    except AgentError as err:
        parser.error(f"argument --agents: {err}")
    print(result.to_markdown())
    if args.out:
        (args.out / "results.json").write_text(result.to_json())
        (args.out / "results.md").write_text(result.to_markdown())
        result.save_heatmap(args.out / "crossplay.png")
        print(f"wrote {args.out}/results.json, results.md, crossplay.png")
    if args.save_gif is not None:
        recorder = GameRecorder(seat=0)
        record_deals(setup, args.agents, args.gif_deals, args.seed, recorder)
        frames = recorder.save_gif(args.save_gif, args.gif_seconds)
        print(f"wrote {args.save_gif}: {frames} frames, {args.gif_deals} deal(s), first lineup")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
