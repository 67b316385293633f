"""Play in the terminal: people on some seats, bots on the others (docs/rules.md 2.5, 2.6, 3.9).

The front end drives a rules engine directly. Each human turn shows the table from that seat
(``render_text(seat)``: doubles stand crosswise, other hands as counts), lists the legal moves in
the move notation and reads a number from the list or the notation itself, re-prompting on
anything else. A turn timer (the boardpan rule) makes the engine's automatic move when it runs
out. Input comes through a ``LineReader`` so tests can script it; ``FdLineReader`` reads stdin
with ``select`` (POSIX), pipes included.
"""

from __future__ import annotations

import argparse
import os
import select
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from domino_env.bots import Agent, available_bots, make_bot
from domino_env.frontends.web.protocol import public_move_text
from domino_env.games import Game, PlayOptions, available_games, game_of_config, get_game

if TYPE_CHECKING:
    from domino_env.frontends.recording import GameRecorder

GAMES = tuple(choice for name in available_games() for choice in get_game(name).play_names)
"""What ``--game`` takes: every game's ``play_names`` (a line-game variant, or ``texas42``)."""

# read_line(timeout_seconds or None) -> the line, or None when the time ran out; EOFError when
# the input is closed.
LineReader = Callable[[float | None], str | None]


class Quit(Exception):
    """The person left (``quit`` or end of input)."""


class FdLineReader:
    """Whole lines from a file descriptor with an optional timeout, via ``select``.

    It keeps its own buffer: a buffered text stream may already hold the next lines that ``select``
    on the descriptor cannot see, so reading a pipe through ``sys.stdin`` would stall the timer.
    """

    def __init__(self, fd: int):
        self.fd = fd
        self._buffer = b""

    def __call__(self, timeout: float | None) -> str | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self.fd], [], [], wait)[0]:
                return None
            chunk = os.read(self.fd, 4096)
            if not chunk:
                if not self._buffer:
                    raise EOFError
                self._buffer += b"\n"  # a last line without its newline
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace")


@dataclass(frozen=True)
class Setup:
    """A validated table: the engine, who sits where and the turn timer (0: off)."""

    game: Any  # the rules engine (``Game.engine``)
    agents: tuple[Agent | None, ...]  # None: a person
    names: tuple[str, ...]
    turn_seconds: float
    bot_rng: np.random.Generator  # the bots' only randomness (the engine deals from its own)


def build_setup(
    game: str = "block",
    *,
    humans: Sequence[int] = (0,),
    bots: Sequence[str] = (),
    players: int | None = None,
    teams: bool = False,
    preset: str | None = None,
    target: int | None = None,
    one_round: bool = False,
    turn_seconds: float | None = None,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
) -> Setup:
    """Check the seating (docs/rules.md 2.6) and options; raise ``ValueError`` saying what to change.

    ``bots`` names one bot for every seat without a person, or one name per such seat in seat
    order; empty means the default bot. ``turn_seconds=None`` means 60 in boardpan line games
    (docs/rules.md 2.5) and off otherwise. ``options`` go to the rules config unchanged.
    """
    record = game_of_choice(game)
    table = PlayOptions(players, teams, preset, target, one_round, turn_seconds, dict(options or {}))
    deal_seed, bot_seed = np.random.SeedSequence(seed).spawn(2)
    config, turn_seconds = record.play_config(game, table)
    if turn_seconds < 0:
        raise ValueError(f"--turn-seconds must be 0 (off) or positive, got {turn_seconds}")
    engine = record.new_engine(config, np.random.default_rng(deal_seed))
    agents, names = _seat(record, engine.num_players, humans, bots)
    return Setup(engine, agents, names, float(turn_seconds), np.random.default_rng(bot_seed))


def game_of_choice(choice: str) -> Game:
    """The record of the game that ``--game choice`` plays (``Game.play_names``)."""
    for name in available_games():
        if choice in get_game(name).play_names:
            return get_game(name)
    raise ValueError(f"game must be one of {GAMES}, got {choice!r}")


def _seat(
    record: Game, n: int, humans: Sequence[int], bots: Sequence[str]
) -> tuple[tuple[Agent | None, ...], tuple[str, ...]]:
    """Every seat's agent (``None``: a person) and name, from the people's seats and the bot specs."""
    if not humans or len(set(humans)) != len(humans) or not all(0 <= s < n for s in humans):
        raise ValueError(f"people sit on distinct seats among 0..{n - 1}, got {list(humans)}")
    bot_seats = [s for s in range(n) if s not in humans]
    names = list(bots) or [record.default_bot]
    if len(names) == 1:
        names *= len(bot_seats)
    if len(names) != len(bot_seats):
        raise ValueError(f"{len(bot_seats)} seats {bot_seats} need bots: give one bot name for all of "
                         f"them or one per seat, got {list(bots)}")
    agents: list[Agent | None] = [None] * n
    labels = ["you" if len(humans) == 1 else f"person {i + 1}" for i in range(len(humans))]
    seat_names = [""] * n
    for seat, label in zip(humans, labels, strict=True):
        seat_names[seat] = f"seat {seat} ({label})"
    for seat, spec in zip(bot_seats, names, strict=True):
        agents[seat] = make_bot_spec(record.name, spec)
        seat_names[seat] = f"seat {seat} ({spec.split(':')[0]})"
    return tuple(agents), tuple(seat_names)


def make_bot_spec(family: str, spec: str) -> Agent:
    """A bot from ``NAME[:KEY=VALUE...]``, e.g. ``search:budget=20`` or ``checkpoint:path=run/last.pt``."""
    name, *pairs = spec.split(":")
    if name not in available_bots(family):
        raise ValueError(f"unknown bot {name!r}; {family} bots: {', '.join(available_bots(family))}")
    try:
        return make_bot(family, name, **dict(parse_option(p) for p in pairs))
    except (TypeError, ValueError, OSError, argparse.ArgumentTypeError) as err:
        raise ValueError(f"cannot build bot {spec!r}: {err}") from None


class Session:
    """Runs one match of a ``Setup``, writing to ``out`` and reading people's moves via ``read_line``."""

    def __init__(self, setup: Setup, read_line: LineReader, out: TextIO,
                 recorder: GameRecorder | None = None):
        self.setup, self.game = setup, setup.game
        self.record = game_of_config(setup.game.config)
        self.read_line, self.out = read_line, out
        self.recorder = recorder  # frames for --save-gif: the deal, then the table after each move

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def run(self) -> None:
        """Play to the end of the match; ``Quit`` ends it early with a message."""
        game = self.game
        self.say(self._intro())
        if self.recorder is not None:
            self.recorder.start(game)
        try:
            while not game.is_terminal:
                seat = game.current_player
                before = self._progress()
                agent = self.setup.agents[seat]
                if agent is None:
                    action = self._human_move(seat)
                else:
                    action = agent.act(game.view(seat), self.setup.bot_rng)
                move = public_move_text(game, action)  # a Texas 88 discard without its tile
                self.say(f"{self.setup.names[seat]}: {move}")
                game.apply(action)
                if self.recorder is not None:
                    self.recorder.move(game, seat, move)
                if self._progress() != before:
                    self.say(self._report())
        except Quit:
            self.say("You left the game.")
            return
        finally:
            self.out.flush()
        self.say(self._final())

    # ----- a person's turn --------------------------------------------------------------------
    def _human_move(self, seat: int) -> int:
        game = self.game
        legal = game.legal_actions()
        self.say()
        self.say(game.render_text(seat))
        self.say(f"Your move, {self.setup.names[seat]}:")
        self.say(self._menu(legal))
        seconds = self.setup.turn_seconds
        deadline = time.monotonic() + seconds if seconds else None
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            timer = "" if left is None else f" [{left:.0f} s left]"
            self.out.write(f"move (number or notation, 'help', 'quit'){timer}: ")
            self.out.flush()
            try:
                line = self.read_line(left)
            except EOFError:
                raise Quit from None
            if line is None:
                action = game.auto_move()
                self.say(f"\nTime is up: automatic move {game.action_to_text(action)}.")
                return action
            choice, problem = self._parse(line.strip(), legal)
            if choice is not None:
                return choice
            self.say(problem)

    def _menu(self, legal: list[int]) -> str:
        return "\n".join(f"  {i}. {self.game.action_to_text(a)}" for i, a in enumerate(legal, 1))

    def _parse(self, text: str, legal: list[int]) -> tuple[int | None, str]:
        """The chosen legal action, or ``None`` and what to tell the person."""
        if text.lower() in ("quit", "exit", "q"):
            raise Quit
        if text.lower() in ("help", "?", ""):
            return None, "Type the number of a move or the move itself, e.g. " \
                         f"{self.game.action_to_text(legal[0])!r}. Legal moves:\n{self._menu(legal)}"
        if text.isdigit():
            if 1 <= int(text) <= len(legal):
                return legal[int(text) - 1], ""
            return None, f"{text} is not on the list: choose 1 to {len(legal)}."
        try:
            action = self.game.action_from_text(text)
        except ValueError as err:
            return None, f"{err}. Choose a number 1 to {len(legal)} or type a move from the list."
        if action not in legal:
            return None, f"{self.game.action_to_text(action)!r} is not legal now. Legal moves:\n" \
                         f"{self._menu(legal)}"
        return action, ""

    # ----- reports ----------------------------------------------------------------------------
    def _intro(self) -> str:
        seats = ", ".join(self.setup.names)
        timer = f"; {self.setup.turn_seconds:g} s per turn, then the automatic move" \
            if self.setup.turn_seconds else ""
        return f"{self.record.play_intro(self.game.config)}{timer}.\nSeats: {seats}."

    def _progress(self) -> tuple[int, ...]:
        """Changes when a round/hand ends or a 42 hand is reshaken."""
        return self.record.play_progress(self.game)

    def _report(self) -> str:
        return self.record.play_report(self.game, self.setup.names)

    def _final(self) -> str:
        return self.record.play_final(self.game, self.setup.names)


def parse_option(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` from the command line: integers, true/false and none are converted."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"options are KEY=VALUE, got {text!r}")
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return key, lowered == "true"
    if lowered == "none":
        return key, None
    try:
        return key, int(raw)
    except ValueError:
        return key, raw


def main(argv: Sequence[str] | None = None, read_line: LineReader | None = None,
         out: TextIO | None = None) -> int:
    """Command-line entry (``domino-play``). Returns the exit status: 0, or 130 after Ctrl-C."""
    parser = argparse.ArgumentParser(description="Play dominoes in the terminal against bots.")
    parser.add_argument("--game", choices=GAMES, default="block")
    parser.add_argument("--players", type=int, help="line games: 2, 3 or 4 (default 2; 4 with --teams); "
                        "texas42: 4, or 3 for three-player 42 (Texas 88 is six: --preset texas88)")
    parser.add_argument("--teams", action="store_true", help="line games, 4 players: seats 0+2 vs 1+3")
    parser.add_argument("--preset", help="pagat or boardpan (line games); standard, n42pa or texas88 "
                        "(texas42; texas88: Texas 88, six players)")
    parser.add_argument("--you", default="0", help="your seat, or seats separated by commas (default 0)")
    parser.add_argument("--bots", default="", help="bot for the other seats, or one per seat, by commas; "
                        "NAME[:KEY=VALUE...], e.g. search:budget=20 (default greedy; heuristic in texas42)")
    parser.add_argument("--target", type=int, help="points (line games) or marks (texas42) to win")
    parser.add_argument("--one-round", action="store_true", help="play a single round (42: one hand)")
    parser.add_argument("--turn-seconds", type=float, help="seconds per turn before the automatic move; "
                        "0 turns the timer off (default: 60 under boardpan, else off)")
    parser.add_argument("--seed", type=int, help="seed for the deals and the bots")
    parser.add_argument("-o", "--option", type=parse_option, action="append", default=[],
                        metavar="KEY=VALUE", help="any other rules option, e.g. -o draw_policy=any")
    parser.add_argument("--save-gif", type=Path, metavar="PATH", help="save the game as an animated GIF "
                        "seen from your (first) seat: the deal, then the table after every move")
    parser.add_argument("--gif-seconds", type=float, default=1.0, help="seconds per GIF frame (default 1)")
    args = parser.parse_args(argv)
    if args.save_gif is not None and not args.save_gif.parent.is_dir():
        parser.error(f"argument --save-gif: folder {str(args.save_gif.parent)!r} does not exist")
    if not args.gif_seconds > 0:
        parser.error(f"argument --gif-seconds: must be positive, got {args.gif_seconds}")
    try:
        humans = [int(s) for s in args.you.split(",")]
        setup = build_setup(
            args.game, humans=humans,
            bots=[b for b in args.bots.split(",") if b], players=args.players, teams=args.teams,
            preset=args.preset, target=args.target, one_round=args.one_round,
            turn_seconds=args.turn_seconds, seed=args.seed, options=dict(args.option),
        )
    except ValueError as err:
        parser.error(str(err))
    recorder = None
    if args.save_gif is not None:
        from domino_env.frontends.recording import GameRecorder  # Pillow drawing, only when asked for

        recorder = GameRecorder(seat=humans[0], names=setup.names)
    session = Session(setup, read_line or FdLineReader(sys.stdin.fileno()), out or sys.stdout, recorder)
    status = 0
    try:
        session.run()
    except KeyboardInterrupt:  # Ctrl-C: leave as 'quit' does, without a traceback
        session.say("\nInterrupted: you left the game.")
        status = 130  # 128 + SIGINT, the shell's convention
    if recorder is not None:  # the game so far, also when it was left early
        frames = recorder.save_gif(args.save_gif, args.gif_seconds)
        session.say(f"saved {frames} frames to {args.save_gif}")
    return status
