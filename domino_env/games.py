"""The game registry: one record per game, read by every piece that needs to know about games.

A ``Game`` says everything the rest of the package asks about a game: how its options become the
rules engine's config, the engine, the PettingZoo module and id, the encoders and bots (as module
paths, imported on first use), the batched engine and which configs it plays, the scoring sides of
the seats, the number of tiles, how an episode's outcome is read off a finished engine, and what the
play front ends (terminal and browser tables) need: the names they offer, how a person's table options
become a config, what to say when a round ends, the module of the browser's messages.
Evaluation, training, the play front ends, the wrappers and the encoders look the record up by name
(``get_game("texas42")``) or by config (``game_of_config(config)``) instead of testing strings.

Adding a game: write its rules engine (``rules/``), encoders (``encoders/``), bots (``bots/``) and
PettingZoo module, then ``register_game`` one record here; the generic test suite
(``tests/test_registry_suite.py``) runs every registered game through the same checks. See
docs/architecture.md for the checklist.

This module imports only the pure rules engines; everything else is named by module path.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from domino_env.rules.conventions import check_choice
from domino_env.rules.fives import NUM_TILES as FIVES_TILES
from domino_env.rules.fives import VARIANTS as FIVES_VARIANTS
from domino_env.rules.fives import FivesConfig, FivesGame
from domino_env.rules.line import VARIANTS, LineConfig, LineGame
from domino_env.rules.mexican_train import DOUBLE_TILE, MexicanTrainConfig, MexicanTrainGame
from domino_env.rules.rewards import EPISODES, REWARDS, TEXAS42_REWARDS
from domino_env.rules.texas42 import BID, Texas42Config, Texas42Game


def _import(path: str) -> Any:
    """``"package.module:attribute"`` -> the attribute; ``"package.module"`` -> the module."""
    module, _, attribute = path.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


@dataclass(frozen=True)
class Outcome:
    """How an episode ended, per scoring side: points (line games) or marks (42), rounds or hands
    scored, and the winning side (``None``: nobody won, e.g. a blocked round with equal counts)."""

    side_scores: list[float]
    rounds: int
    winner: int | None


@dataclass(frozen=True)
class PlayOptions:
    """What a person asks of a table in the play front ends (the terminal's command line, the web
    lobby); ``None`` leaves the choice to the game (``Game.play_config``)."""

    players: int | None = None
    teams: bool = False
    preset: str | None = None
    target: int | None = None
    """points (line games) or marks (42) to win the match or game"""
    one_round: bool = False
    """a single round (42: one hand) instead of a match (a game)"""
    turn_seconds: float | None = None
    """the turn timer (docs/rules.md 2.5): seconds before the automatic move, 0 for none"""
    options: Mapping[str, Any] = field(default_factory=dict)
    """any other rules options, given to the config unchanged"""


@dataclass(frozen=True)
class Game:
    """Everything the package needs to know about one game (module docstring)."""

    name: str
    """the one name of the game: ``make_bot(name, ...)``, ``get_encoder(name, ...)``, configs"""
    title: str
    config_from_options: Callable[[Mapping[str, Any]], Any]
    """game options (rules, ``episode``, ``reward``: what the env and the batched engine take
    besides their adapter options) -> the engine's validated rules config"""
    config_type: type
    """the engine's rules config class (``game_of_config`` finds a record by it)"""
    engine: type
    """the pure rules engine: ``engine(config, rng, deal=None)``"""
    num_tiles: Callable[[Any], int]
    """``num_tiles(config)``: tiles in the set (the width of one hand as a 0/1 vector)"""
    env_module: str
    """the PettingZoo entry module (``env()``, ``raw_env()``, ``ENV_ID``)"""
    env_id: str
    episodes: tuple[str, str]
    """the ``episode`` option for one round or hand, and for a whole match or game"""
    rewards: tuple[str, ...]
    """the ``reward`` option's choices (the first is the default)"""
    encoder_modules: tuple[str, ...]
    """modules whose import registers the game's observation encoders"""
    bot_modules: tuple[str, ...]
    """modules whose import registers the game's own bots (``random`` and ``checkpoint`` play every
    game: ``domino_env.bots.base``)"""
    default_bot: str
    """the strongest cheap scripted bot: the default opponent of play, training's harness and docs"""
    score_unit: str
    """what one episode's margin is counted in (evaluation tables)"""
    outcome: Callable[[Any, bool], Outcome]
    """``outcome(finished_engine, whole_match)``"""
    hidden_tiles: Callable[[Any], str | None]
    """``hidden_tiles(config)``: what the tiles in no hand are (the full-information state's
    ``hidden`` slot), or ``None`` when every tile is in a hand"""
    hidden_mask: Callable[[Any], int]
    """``hidden_mask(engine)``: the bit set of the tiles in no hand now"""
    table_mask: Callable[[Any], int] = lambda engine: 0
    """``table_mask(engine)``: the bit set of the tiles face up on the table now, in no hand and not
    hidden (Mexican Train's engine double is there from the deal); every tile is in one hand, in
    ``hidden_mask`` or here"""
    examples: tuple[Mapping[str, Any], ...] = ({},)
    """representative option sets, one per form of the game worth telling apart: the generic test
    suite (``tests/test_registry_suite.py``) runs every check on each"""
    vector_engine: str | None = None
    """``module:Class`` of the batched engine, if any"""
    torch_engine: str | None = None
    """``module:Class`` of the torch batched engine (any device, same API and results), if any"""
    vector_plays: Callable[[Any], bool] = lambda config: False
    """whether the batched engine plays a config (it may cover only some forms of the game)"""
    batched_bots: Mapping[str, str] = field(default_factory=dict)
    """name -> ``module:Class`` of the scripted bots that act on the batched engine's compact
    observations (``Class(options)(obs, mask, rng) -> actions``; ``random`` plays every game): the
    trainer's pool and the vector environments seat them (``domino_env.bots.batched``)"""
    torch_plays: Callable[[Any], bool] | None = None
    """whether the torch batched engine plays a config (``None``: what ``vector_plays`` plays)"""
    trainable: Callable[[Any], str | None] = lambda config: None
    """why the self-play trainer cannot train a config (``None``: it can)"""
    renderer: str | None = None
    """``module:function`` drawing a seat's view as an ``H x W x 3`` uint8 frame of one size per
    config (``render_mode="rgb_array"``: ``domino_env.frontends.render``)"""
    play_names: tuple[str, ...] = ()
    """what the play front ends' game choice (``--game``, the web lobby) takes for this game: the line
    games one name per variant, 42 its own name (``()``: the front ends do not offer the game; otherwise
    every ``play_`` field below is set)"""
    play_config: Callable[[str, PlayOptions], tuple[Any, float]] | None = None
    """``play_config(choice, options)``: a table of ``choice`` (one of ``play_names``) -> the rules
    config and the turn timer's seconds (0: off); raises ``ValueError`` saying which option to change"""
    play_intro: Callable[[Any], str] | None = None
    """``play_intro(config)``: the rules and the goal of a table, in words"""
    play_progress: Callable[[Any], tuple[int, ...]] | None = None
    """``play_progress(engine)``: changes exactly when a round or hand ends (or a 42 hand is reshaken),
    the moments ``play_report`` tells"""
    play_report: Callable[[Any, Sequence[str]], str] | None = None
    """``play_report(engine, seat_names)``: the round or hand that just ended (or the reshake), in words"""
    play_final: Callable[[Any, Sequence[str]], str] | None = None
    """``play_final(finished_engine, seat_names)``: how the episode ended, in words"""
    web_module: str | None = None
    """the browser front end's module of the game's messages (``domino_env.frontends.web.protocol``
    reads it): ``tile_table(config)``, ``seat_message(view, action_text)``, ``apply(engine, action)``
    (the move, and the public record of the round or hand it ended) and ``match_facts(engine)``"""

    # ----- rules ----------------------------------------------------------------------------------
    def config(self, **options: Any) -> Any:
        """The rules config of these game options (validated; raises ``ValueError``)."""
        return self.config_from_options(options)

    def episode_config(self, options: Mapping[str, Any], whole_match: bool) -> Any:
        """The config of ``options`` for one round/hand, or for a whole match/game."""
        return self.config_from_options({**options, "episode": self.episodes[whole_match]})

    def new_engine(self, config: Any, rng: np.random.Generator, deal: Any = None) -> Any:
        return self.engine(config, rng, deal=deal)

    @staticmethod
    def sides(config: Any) -> tuple[int, ...]:
        """The scoring side of every seat (a team, or the seat itself)."""
        return tuple(config.side_of(seat) for seat in range(config.num_players))

    # ----- adapters, imported on first use ---------------------------------------------------------
    def env(self, **kwargs: Any) -> Any:
        """The PettingZoo AEC env (order-enforcing wrapper) with ``kwargs``."""
        return _import(self.env_module).env(**kwargs)

    def raw_env(self, **kwargs: Any) -> Any:
        """The bare PettingZoo AEC env with ``kwargs`` (what trainers use)."""
        return _import(self.env_module).raw_env(**kwargs)

    def env_options(self) -> list[str]:
        """The keyword options of the environment (``raw_env``): what adapters may pass through."""
        return list(inspect.signature(_import(self.env_module).raw_env).parameters)

    def checked_raw_env(self, **kwargs: Any) -> Any:
        """``raw_env(**kwargs)``, but an unknown option raises ``ValueError`` naming it and the known
        ones (``raw_env`` itself would raise a bare ``TypeError``)."""
        unknown = sorted(set(kwargs) - set(self.env_options()))
        if unknown:
            raise ValueError(f"unknown {self.name} option(s) {unknown}; known: {self.env_options()}")
        return self.raw_env(**kwargs)

    def batched_bot_class(self, name: str) -> type:
        """The class of batched scripted bot ``name`` (a key of ``batched_bots``)."""
        return _import(self.batched_bots[name])

    def vector_class(self, config: Any) -> type | None:
        """The batched engine class when it plays ``config``, else ``None``."""
        if self.vector_engine is None or not self.vector_plays(config):
            return None
        return _import(self.vector_engine)

    def torch_class(self, config: Any) -> type | None:
        """The torch batched engine class (any device) when it plays ``config``, else ``None``
        (``torch_plays``, by default what the numpy engine plays: ``vector_plays``)."""
        if self.torch_engine is None or not (self.torch_plays or self.vector_plays)(config):
            return None
        return _import(self.torch_engine)

    def draw_view(self, view: Any) -> np.ndarray:
        """The picture of what ``view``'s seat may know (``renderer``)."""
        if self.renderer is None:
            raise ValueError(f"game {self.name!r} has no renderer")
        return _import(self.renderer)(view)

    def web_messages(self) -> Any:
        """The module of the browser front end's messages for this game (``web_module``)."""
        if self.web_module is None:
            raise ValueError(f"game {self.name!r} has no web front end")
        return _import(self.web_module)

    def load_encoders(self) -> None:
        for module in self.encoder_modules:
            importlib.import_module(module)

    def load_bots(self) -> None:
        for module in self.bot_modules:
            importlib.import_module(module)


_GAMES: dict[str, Game] = {}


def register_game(game: Game) -> Game:
    """Add ``game`` to the registry (a name may be registered once)."""
    if game.name in _GAMES:
        raise ValueError(f"game {game.name!r} is already registered")
    _GAMES[game.name] = game
    return game


def available_games() -> list[str]:
    return sorted(_GAMES)


def get_game(name: str) -> Game:
    """The record of the game called ``name``; an unknown name raises ``ValueError`` listing the known."""
    try:
        return _GAMES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown game {name!r}; known games: {available_games()}") from None


def game_of_config(config: Any) -> Game:
    """The record of the game whose rules config ``config`` is."""
    for game in _GAMES.values():
        if isinstance(config, game.config_type):
            return game
    raise ValueError(f"no registered game has a config of type {type(config).__name__}")


# ----- the line games (Block and Draw) ----------------------------------------------------------------
_LINE_OPTIONS = frozenset(LineConfig.__dataclass_fields__) | {"episode", "reward"}


def _line_config(options: Mapping[str, Any]) -> LineConfig:
    """docs/rules.md 2.1's options plus ``episode`` (``round``: one round; ``match``: to ``target_score``)."""
    unknown = set(options) - _LINE_OPTIONS
    if unknown:
        raise ValueError(f"unknown line-game option(s) {sorted(unknown)}; known: {sorted(_LINE_OPTIONS)}")
    rules = dict(options)
    episode = rules.pop("episode", EPISODES[0])
    check_choice("episode", episode, EPISODES)
    check_choice("reward", rules.pop("reward", REWARDS[0]), REWARDS)
    if episode == "match" and rules.get("target_score", "preset") is None:
        raise ValueError("a match episode needs a target_score")
    return LineConfig.make(one_round=episode == "round", **rules)


def _line_outcome(engine: LineGame, whole_match: bool) -> Outcome:
    """Side totals of the match (or of its one round); the winner of the match, or of the round."""
    config = engine.config
    first_seat = {config.side_of(s): s for s in reversed(range(config.num_players))}
    scores = [float(engine.scores[first_seat[k]]) for k in range(config.num_sides)]
    if whole_match:
        winner: int | None = max(range(config.num_sides), key=scores.__getitem__)
    else:
        winners = engine.results[-1].winners
        winner = config.side_of(winners[0]) if winners else None
    return Outcome(scores, len(engine.results), winner)


# ----- the play front ends (terminal and browser tables) ----------------------------------------------
BOARDPAN_TURN_SECONDS = 60.0
"""The boardpan turn timer (docs/rules.md 2.5): the play front ends' default under that preset."""


def _team(seat: int, num_players: int = 4) -> str:
    """A partnership (every other seat of four, or of six in Texas 88) named by one of its seats."""
    team = seat % 2
    return f"team {team} (seats {'+'.join(str(s) for s in range(team, num_players, 2))})"


def _with_table_flags(table: PlayOptions, **flags: Any) -> dict[str, Any]:
    """``table.options`` plus what the game choice and the table's flags decide, refusing an option
    given twice (``-o variant=draw`` beside ``--game block``) with one clear error."""
    repeated = sorted(set(table.options) & set(flags))
    if repeated:
        raise ValueError(f"option {', '.join(repeated)} is set by the game choice and the table's flags "
                         "(--game, --players, --teams, --preset): drop it from the options")
    return {**table.options, **flags}


def _line_table(variant: str, table: PlayOptions) -> tuple[LineConfig, float]:
    """A match (or one round) of ``variant``: two players unless told (four with teams); the turn
    timer runs under boardpan unless told."""
    teams = table.teams
    players = 4 if teams and table.players is None else table.players or 2
    if teams and players != 4:
        raise ValueError(f"a team game needs all four seats filled (people and bots in any mix), "
                         f"not {players}: use --players 4")
    options = _with_table_flags(table, variant=variant, num_players=players, teams=teams,
                                preset=table.preset or "pagat")
    if table.target is not None:
        options["target_score"] = table.target
    options["episode"] = "round" if table.one_round else "match"
    config = DOMINOES.config(**options)
    turn_seconds = table.turn_seconds
    if turn_seconds is None:
        turn_seconds = BOARDPAN_TURN_SECONDS if config.preset == "boardpan" else 0.0
    return config, turn_seconds


def _line_intro(config: LineConfig) -> str:
    rules = f"{config.variant.title()} ({config.preset}), {config.num_players} players"
    rules += ", teams: seats 0+2 against 1+3" if config.teams else ""
    goal = "one round" if config.target_score is None else f"first to {config.target_score} points"
    return f"{rules}; {goal}"


def _line_side(config: LineConfig, seat_names: Sequence[str], seat: int) -> str:
    return _team(seat) if config.teams else seat_names[seat]


def _line_report(engine: LineGame, seat_names: Sequence[str]) -> str:
    """How the round ended, the pips left, who scores and the scores."""
    config, r = engine.config, engine.results[-1]
    how = "dominoed (went out)" if r.kind == "domino" else "the game blocked"
    pips = ", ".join(f"seat {s} {p}" for s, p in enumerate(r.pips))
    if r.winners:
        won = f"{_line_side(config, seat_names, r.winners[0]).capitalize()} scores {max(r.round_points)}"
    else:
        won = "A tie for the lowest count: nobody scores"
    if config.teams:
        scores = f"Scores: team 0 {engine.scores[0]}, team 1 {engine.scores[1]}."
    else:
        scores = "Scores: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(engine.scores)) + "."
    return f"Round {len(engine.results)} over, {how}. Pips left: {pips}. {won}. {scores}"


def _line_final(engine: LineGame, seat_names: Sequence[str]) -> str:
    if engine.config.target_score is None:
        return "The round is over."
    best = max(range(engine.num_players), key=lambda s: engine.scores[s])
    winner = _line_side(engine.config, seat_names, best)
    return f"Match over: {winner} wins with {engine.scores[best]} points."


DOMINOES = register_game(Game(
    name="dominoes",
    title="Block and Draw dominoes (docs/rules.md 2)",
    config_from_options=_line_config,
    config_type=LineConfig,
    engine=LineGame,
    num_tiles=lambda config: config.tiles.num_tiles,
    env_module="domino_env.dominoes_v0",
    env_id="domino_env/Dominoes-v0",
    episodes=("round", "match"),
    rewards=REWARDS,
    encoder_modules=("domino_env.encoders.line", "domino_env.encoders.line_compact",
                     "domino_env.encoders.line_history"),
    bot_modules=("domino_env.bots.line",),
    default_bot="greedy",
    score_unit="points per round",
    outcome=_line_outcome,
    hidden_tiles=lambda config: "tiles in the stock (Draw) or out of play (Block)",
    hidden_mask=lambda engine: sum(1 << t for t in engine.stock) | engine.out_of_play,
    examples=(
        {"variant": "block"},
        {"variant": "draw", "num_players": 3, "preset": "boardpan"},
        {"variant": "block", "num_players": 4, "teams": True, "preset": "boardpan", "episode": "match",
         "target_score": 50},
        {"variant": "draw", "max_pips": 9, "draw_policy": "when_stuck", "reward": "points"},
    ),
    vector_engine="domino_env.vector.line:VectorLineGame",
    batched_bots={"greedy": "domino_env.bots.batched:BatchedLineGreedy"},
    torch_engine="domino_env.vector.line_torch:TorchLineGame",
    vector_plays=lambda config: True,
    renderer="domino_env.frontends.render:draw_line_view",
    play_names=VARIANTS,
    play_config=_line_table,
    play_intro=_line_intro,
    play_progress=lambda engine: (len(engine.results),),
    play_report=_line_report,
    play_final=_line_final,
    web_module="domino_env.frontends.web.line",
))


# ----- Texas 42 and its variants -----------------------------------------------------------------------
def _texas42_config(options: Mapping[str, Any]) -> Texas42Config:
    """docs/rules.md 3.1's options (``Texas42Config.make``; ``episode``: ``hand`` or ``game``) plus
    ``reward``."""
    rules = dict(options)
    check_choice("reward", rules.pop("reward", TEXAS42_REWARDS[0]), TEXAS42_REWARDS)
    return Texas42Config.make(**rules)


def _texas42_outcome(engine: Texas42Game, whole_match: bool) -> Outcome:
    """Marks per side; the side with the most marks wins (a hand always has a winner)."""
    marks = [float(m) for m in engine.marks]
    return Outcome(marks, engine.hands_scored, max(range(len(marks)), key=marks.__getitem__))


def _texas42_table(name: str, table: PlayOptions) -> tuple[Texas42Config, float]:
    """A game (or one hand) of 42: four players in two teams unless told; ``--players 3`` (or
    ``-o num_players=3``) is three-player 42, ``--preset texas88`` Texas 88 (six in two teams). The
    form of the game fixes the sides, so ``--teams`` is refused; no turn timer."""
    if table.teams:
        raise ValueError("42 fixes its own sides (four or six players: two teams; three: each for "
                         "themselves): drop --teams")
    if table.turn_seconds:
        raise ValueError("Texas 42 has no automatic move (docs/rules.md 2.5 is a line-game rule): "
                         "use --turn-seconds 0")
    options = dict(table.options)
    preset = table.preset or "standard"
    if table.players is not None:
        if table.players not in ((6,) if preset == "texas88" else (3, 4)):
            raise ValueError(f"42 is four players in two teams or three each for themselves (--players 3); "
                             f"Texas 88 (--preset texas88) is six: not --players {table.players}")
        if options.setdefault("num_players", table.players) != table.players:
            raise ValueError(f"--players {table.players} and -o num_players={options['num_players']} "
                             "disagree: give one of them")
    if table.target is not None:
        options["target_marks"] = table.target
    options["episode"] = "hand" if table.one_round else options.get("episode", "game")
    return TEXAS42.config(preset=preset, **options), 0.0


def _texas42_intro(config: Texas42Config) -> str:
    """The form of 42, its sides, its bids (and Texas 88's kitty) and the goal."""
    v, n = config.variant, config.num_players
    if v.lone_bidder:
        sides, holder = "each for themselves: the bid winner plays alone against the other two", "player"
    else:
        teams = " against ".join("+".join(str(s) for s in range(k, n, 2)) for k in range(2))
        sides, holder = f"teams: seats {teams}", "team"
    rules = f"{v.name} ({config.preset}), {sides}"
    if n != 4:  # the bids and the tiles differ from four-player 42's
        rules += (f"; {v.hand_size} tiles each, bids of {v.point_bids[0]} to {v.point_bids[-1]} points or "
                  f"of marks (1 mark is {v.points_per_hand} points)")
    if v.kitty_size:
        rules += f"; the bid winner takes the kitty of {v.kitty_size} tiles and discards {v.kitty_size}"
    goal = f"first {holder} to {config.target_marks} marks" if config.episode == "game" else "one hand"
    return f"{rules}; {goal}"


def _texas42_marks(engine: Texas42Game) -> str:
    """The marks of every side: the two teams, or each of three players."""
    if engine.variant.lone_bidder:
        return "Marks: " + ", ".join(f"seat {s} {m}" for s, m in enumerate(engine.marks)) + "."
    return f"Marks: team 0 {engine.marks[0]}, team 1 {engine.marks[1]}."


def _texas42_report(engine: Texas42Game, seat_names: Sequence[str]) -> str:
    """The contract of the hand just scored, the points taken and the marks; or the reshake."""
    result, n = engine.last_result, engine.num_players
    if result is None:
        return f"Everyone passed: the hand is reshaken; seat {engine.shaker} shakes."
    contract, points = result["contract"], result["points_taken"]
    bidder = contract["bidder"]
    outcome = "made" if contract["made"] else "set"
    scorers = [s for s in range(n) if result["hand_marks"][s]]
    gained = result["hand_marks"][scorers[0]]
    if engine.variant.lone_bidder:
        taken = f"{seat_names[bidder]} {points[bidder]}, the other two {points[(bidder + 1) % n]}"
        who = " and ".join(seat_names[s] for s in scorers)
        scores = f"{who.capitalize()} {'scores' if len(scorers) == 1 else 'each score'}"
    else:
        taken = f"team 0 {points[0]}, team 1 {points[1]}"
        scores = f"{_team(scorers[0], n).capitalize()} scores"
    return (f"Hand over: {seat_names[bidder]}, {contract['bid']}, {contract['declaration']}: {outcome} "
            f"(points taken: {taken}). {scores} {gained} mark(s). {_texas42_marks(engine)}")


def _texas42_final(engine: Texas42Game, seat_names: Sequence[str]) -> str:
    if engine.config.episode == "hand":
        return "The hand is over."
    marks = engine.marks
    if engine.variant.lone_bidder:  # both opponents of a set bidder score: they may tie
        top = max(marks)
        winners = " and ".join(seat_names[s] for s, m in enumerate(marks) if m == top)
        verb = "wins" if marks.count(top) == 1 else "win"
        return f"Game over: {winners} {verb} with {top} marks. {_texas42_marks(engine)}"
    winner = 0 if marks[0] > marks[1] else 1
    return (f"Game over: {_team(winner, engine.num_players)} wins, {marks[winner]} marks to "
            f"{marks[1 - winner]}.")


TEXAS42 = register_game(Game(
    name="texas42",
    title="Texas 42 and its variants (docs/rules.md 3)",
    config_from_options=_texas42_config,
    config_type=Texas42Config,
    engine=Texas42Game,
    num_tiles=lambda config: config.variant.num_tiles,
    env_module="domino_env.texas42_v0",
    env_id="domino_env/Texas42-v0",
    episodes=("hand", "game"),
    rewards=TEXAS42_REWARDS,
    encoder_modules=("domino_env.encoders.texas42", "domino_env.encoders.texas42_compact",
                     "domino_env.encoders.texas42_history"),
    bot_modules=("domino_env.bots.texas42",),
    default_bot="heuristic",
    score_unit="marks per hand",
    outcome=_texas42_outcome,
    hidden_tiles=lambda config: (
        "the kitty until the bid winner takes it, then the discards" if config.variant.kitty_size else None
    ),
    hidden_mask=lambda engine: (
        engine.kitty if engine.phase == BID else sum(1 << t for t in engine.discards)
    ),
    examples=(
        {},
        {"preset": "n42pa"},
        {"nello": "low", "plunge": True, "sevens": True, "forced_bid": True, "follow_me_doubles": "own_suit",
         "episode": "game", "target_marks": 2, "reward": "marks"},
        {"num_players": 3},
        {"preset": "texas88"},
    ),
    vector_engine="domino_env.vector.texas42:VectorTexas42Game",
    batched_bots={"heuristic": "domino_env.bots.batched:BatchedTexas42Heuristic"},
    torch_engine="domino_env.vector.texas42_torch:TorchTexas42Game",
    vector_plays=lambda config: True,  # four-player 42, three-player 42 and Texas 88
    torch_plays=lambda config: config.num_players == 4,  # the torch twin: four-player 42 only
    renderer="domino_env.frontends.render:draw_texas42_view",
    play_names=("texas42",),
    play_config=_texas42_table,
    play_intro=_texas42_intro,
    play_progress=lambda engine: (engine.deals, engine.hands_scored),
    play_report=_texas42_report,
    play_final=_texas42_final,
    web_module="domino_env.frontends.web.texas42",
))


# ----- All Fives and Fives and Threes ------------------------------------------------------------------
_FIVES_OPTIONS = frozenset(FivesConfig.__dataclass_fields__) | {"episode", "reward"}
_FIVES_EPISODES = ("hand", "match")
_FIVES_TITLES = {"all_fives": "All Fives", "fives_and_threes": "Fives and Threes"}


def _fives_config(options: Mapping[str, Any]) -> FivesConfig:
    """RULES-new-games.md 2.1 / 4.1's options (``variant`` picks All Fives or Fives and Threes) plus
    ``episode`` (``hand``: one hand; ``match``, the default: to ``target_score``) and ``reward``."""
    unknown = set(options) - _FIVES_OPTIONS
    if unknown:
        raise ValueError(f"unknown fives option(s) {sorted(unknown)}; known: {sorted(_FIVES_OPTIONS)}")
    rules = dict(options)
    episode = rules.pop("episode", "match")
    check_choice("episode", episode, _FIVES_EPISODES)
    check_choice("reward", rules.pop("reward", REWARDS[0]), REWARDS)
    if episode == "match" and "target_score" in rules and rules["target_score"] is None:
        raise ValueError("a match episode needs a target_score (episode='hand' plays one hand)")
    return FivesConfig.make(one_round=episode == "hand", **rules)


def _fives_first_seats(config: FivesConfig) -> list[int]:
    """The first seat of every side, in side order (partners' scores are equal)."""
    sides = [config.side_of(s) for s in range(config.num_players)]
    return [sides.index(k) for k in range(config.num_sides)]


def _fives_outcome(engine: FivesGame, whole_match: bool) -> Outcome:
    """Side totals of the match (or of its one hand); the side with the strictly highest total (of
    the match, or of the last hand's points) wins, nobody on a tie."""
    seats = _fives_first_seats(engine.config)
    scores = [float(engine.scores[s]) for s in seats]
    ranked = scores if whole_match else [float(engine.results[-1].points[s]) for s in seats]
    top = max(ranked)
    winner = ranked.index(top) if ranked.count(top) == 1 else None
    return Outcome(scores, len(engine.results), winner)


def _fives_table(choice: str, table: PlayOptions) -> tuple[FivesConfig, float]:
    """A match (or one hand) of ``choice``: two players unless told (four with teams); no timer
    unless told."""
    players = 4 if table.teams and table.players is None else table.players or 2
    options = _with_table_flags(table, variant=choice, num_players=players)
    if table.target is not None:
        options["target_score"] = table.target
    options["episode"] = "hand" if table.one_round else "match"
    if table.preset is not None:
        options["preset"] = table.preset
    if players == 4:
        options.setdefault("teams", table.teams)
    elif table.teams:
        raise ValueError(f"a team game needs all four seats filled, not {players}: use --players 4")
    config = FIVES.config(**options)
    return config, float(table.turn_seconds or 0.0)


def _fives_intro(config: FivesConfig) -> str:
    rules = f"{_FIVES_TITLES[config.variant]} ({config.preset}), {config.num_players} players"
    rules += ", teams: seats 0+2 against 1+3" if config.teams else ""
    if config.target_score is None:
        goal = "one hand"
    else:
        unit = "fives" if config.score_unit == "fives" else "points"
        goal = f"first to {'exactly ' if config.exact_target else ''}{config.target_score} {unit}"
    scoring = ("a play scores when the open ends add up to a multiple of 5" if config.is_all_fives
               else "a play scores the count's fives plus its threes")
    return f"{rules}; {scoring}; {goal}"


def _fives_side(config: FivesConfig, seat_names: Sequence[str], seat: int) -> str:
    return _team(seat) if config.teams else seat_names[seat]


def _fives_scores(engine: FivesGame) -> str:
    if engine.config.teams:
        return f"Scores: team 0 {engine.scores[0]}, team 1 {engine.scores[1]}."
    return "Scores: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(engine.scores)) + "."


def _fives_report(engine: FivesGame, seat_names: Sequence[str]) -> str:
    """How the hand ended, the pips left, the points of the hand and the scores."""
    config, r = engine.config, engine.results[-1]
    won = [f"{_fives_side(config, seat_names, s)} {r.points[s]}" for s in _fives_first_seats(config)]
    return (f"Hand {len(engine.results)} over: {r.describe()}. Points this hand: {', '.join(won)}. "
            f"{_fives_scores(engine)}")


def _fives_final(engine: FivesGame, seat_names: Sequence[str]) -> str:
    outcome = _fives_outcome(engine, True)
    if outcome.winner is None:
        return f"Over: a tie. {_fives_scores(engine)}"
    seat = _fives_first_seats(engine.config)[outcome.winner]
    winner = _fives_side(engine.config, seat_names, seat)
    what = "Match over" if engine.config.target_score is not None else "The hand is over"
    return f"{what}: {winner} wins with {engine.scores[seat]}. {_fives_scores(engine)}"


FIVES = register_game(Game(
    name="fives",
    title="All Fives (Muggins) and Fives and Threes (docs/rules_fives.md)",
    config_from_options=_fives_config,
    config_type=FivesConfig,
    engine=FivesGame,
    num_tiles=lambda config: FIVES_TILES,
    env_module="domino_env.fives_v0",
    env_id="domino_env/Fives-v0",
    episodes=_FIVES_EPISODES,
    rewards=REWARDS,
    encoder_modules=("domino_env.encoders.fives", "domino_env.encoders.fives_compact",
                     "domino_env.encoders.fives_history"),
    bot_modules=("domino_env.bots.fives",),
    default_bot="greedy",
    score_unit="points per hand",
    outcome=_fives_outcome,
    hidden_tiles=lambda config: "tiles in the stock (All Fives) or out of play (Fives and Threes)",
    hidden_mask=lambda engine: sum(1 << t for t in engine.stock) | engine.out_of_play,
    table_mask=lambda engine: engine.table,
    examples=(
        {"episode": "hand"},
        {"num_players": 4, "target_score": 60},
        {"preset": "classic", "num_players": 3, "draw_policy": "may_draw", "draw_reserve": 2,
         "lead_rule": "highest_double", "blocked_scoring": "others_minus_own", "episode": "hand"},
        {"variant": "fives_and_threes", "reward": "points"},
        {"variant": "fives_and_threes", "num_players": 4, "target_score": "exact_61", "reward": "win_loss"},
    ),
    vector_engine="domino_env.vector.fives:VectorFivesGame",
    batched_bots={"greedy": "domino_env.bots.batched:BatchedFivesGreedy"},
    vector_plays=lambda config: True,
    renderer="domino_env.frontends.render:draw_fives_view",
    play_names=FIVES_VARIANTS,
    play_config=_fives_table,
    play_intro=_fives_intro,
    play_progress=lambda engine: (len(engine.results),),
    play_report=_fives_report,
    play_final=_fives_final,
    web_module="domino_env.frontends.web.fives",
))


# ----- Mexican Train ----------------------------------------------------------------------------------
MEXICAN_TRAIN_REWARDS = ("zero_sum", "penalty", "win_loss")
"""Mexican Train's ``reward`` choices: round points are penalties, so ``zero_sum`` pays
``-(p_i - mean of the others' p)``, ``penalty`` pays ``-p_i``, ``win_loss`` the zero-sum share of
having the lowest total."""
_MEXICAN_TRAIN_OPTIONS = frozenset(MexicanTrainConfig.__dataclass_fields__) | {"reward"}


def _mexican_train_config(options: Mapping[str, Any]) -> MexicanTrainConfig:
    """RULES-new-games.md 3.1's options plus ``episode`` (``round``, the default here as in every
    game's env: round 1 only; ``match``: ``rounds`` rounds) and ``reward``."""
    unknown = set(options) - _MEXICAN_TRAIN_OPTIONS
    if unknown:
        raise ValueError(f"unknown mexican_train option(s) {sorted(unknown)}; known: "
                         f"{sorted(_MEXICAN_TRAIN_OPTIONS)}")
    rules = dict(options)
    check_choice("reward", rules.pop("reward", MEXICAN_TRAIN_REWARDS[0]), MEXICAN_TRAIN_REWARDS)
    return MexicanTrainConfig.make(**{"episode": EPISODES[0], **rules})


def _lowest(points: Sequence[int]) -> int | None:
    """The one seat with the fewest points, ``None`` on a tie."""
    low = min(points)
    return points.index(low) if list(points).count(low) == 1 else None


def _mexican_train_outcome(engine: MexicanTrainGame, whole_match: bool) -> Outcome:
    """Side scores are the *negated* totals, so that higher is better as evaluation reads them (a
    margin of +5 is five points fewer than the others' mean); the winner has the lowest total (of
    the match, or of the last round), ``None`` on a tie."""
    points = engine.scores if whole_match else engine.results[-1].round_points
    return Outcome([-float(s) for s in engine.scores], len(engine.results), _lowest(list(points)))


def _mexican_train_table_mask(engine: MexicanTrainGame) -> int:
    """The engine double and every tile of every train: face up, in no hand and not hidden."""
    mask = 1 << DOUBLE_TILE[engine.engine]
    for train in engine.trains:
        for tile, _seat, _end in train:
            mask |= 1 << tile
    return mask


def _mexican_train_table(name: str, table: PlayOptions) -> tuple[MexicanTrainConfig, float]:
    """A match (or one round) of 2-8 players, four unless told; no teams, no turn timer unless told."""
    if table.teams:
        raise ValueError("Mexican Train has no teams: drop --teams")
    if table.target is not None:
        raise ValueError("Mexican Train plays a number of rounds, not to a target: use -o rounds=N "
                         "instead of --target")
    options = _with_table_flags(table, num_players=table.players or 4, preset=table.preset or "standard")
    config = MEXICAN_TRAIN.config(**options, episode="round" if table.one_round else "match")
    return config, table.turn_seconds or 0.0


def _mexican_train_intro(config: MexicanTrainConfig) -> str:
    goal = "one round" if config.num_rounds == 1 else f"{config.num_rounds} rounds"
    if config.first_round == "random":
        start = "from a random round's engine down"
    else:
        start = f"engines from {config.first_engine}-{config.first_engine} down"
    return (f"Mexican Train ({config.preset}), {config.num_players} players, {config.hand_size} tiles "
            f"each; {goal}, {start}; the fewest points wins")


def _mexican_train_report(engine: MexicanTrainGame, seat_names: Sequence[str]) -> str:
    """How the round ended, what each seat scored and the totals."""
    r = engine.results[-1]
    how = f"{seat_names[r.out]} went out" if r.kind == "domino" else "the game blocked"
    points = ", ".join(f"{seat_names[s]} {p}" for s, p in enumerate(r.round_points))
    totals = ", ".join(f"{seat_names[s]} {p}" for s, p in enumerate(engine.scores))
    return (f"Round {len(engine.results)} over (engine {r.engine}-{r.engine}), {how}. "
            f"Points: {points}. Totals: {totals}.")


def _mexican_train_final(engine: MexicanTrainGame, seat_names: Sequence[str]) -> str:
    names = " and ".join(seat_names[s] for s in engine.winners)
    what = "The round" if engine.config.num_rounds == 1 else "The match"
    return f"{what} is over: {names} won with {min(engine.scores)} points (the fewest)."


MEXICAN_TRAIN = register_game(Game(
    name="mexican_train",
    title="Mexican Train (RULES-new-games.md 3)",
    config_from_options=_mexican_train_config,
    config_type=MexicanTrainConfig,
    engine=MexicanTrainGame,
    num_tiles=lambda config: DOUBLE_TILE[-1] + 1,
    env_module="domino_env.mexican_train_v0",
    env_id="domino_env/MexicanTrain-v0",
    episodes=("round", "match"),
    rewards=MEXICAN_TRAIN_REWARDS,
    encoder_modules=("domino_env.encoders.mexican_train", "domino_env.encoders.mexican_train_compact",
                     "domino_env.encoders.mexican_train_history"),
    bot_modules=("domino_env.bots.mexican_train",),
    default_bot="greedy",
    score_unit="points per round (negated: fewer is better)",
    outcome=_mexican_train_outcome,
    hidden_tiles=lambda config: "tiles in the boneyard or out of play",
    hidden_mask=lambda engine: sum(1 << t for t in engine.boneyard) | engine.out_of_play,
    table_mask=_mexican_train_table_mask,
    examples=(
        {"num_players": 2},
        {},
        {"num_players": 6, "preset": "cardinal", "opening": "single"},  # runs: slow to redeal (no_leak)
        {"num_players": 8},
        {"num_players": 3, "episode": "match", "rounds": 2, "reward": "penalty"},
        {"num_players": 3, "episode": "match", "rounds": 4, "first_round": 3},
    ),
    vector_engine="domino_env.vector.mexican_train:VectorMexicanTrainGame",
    batched_bots={"greedy": "domino_env.bots.batched:BatchedMexicanTrainGreedy"},
    vector_plays=lambda config: config.double_bonus == "cover",  # one open double at a time
    renderer="domino_env.frontends.render:draw_mexican_train_view",
    play_names=("mexican_train",),
    play_config=_mexican_train_table,
    play_intro=_mexican_train_intro,
    play_progress=lambda engine: (len(engine.results),),
    play_report=_mexican_train_report,
    play_final=_mexican_train_final,
    web_module="domino_env.frontends.web.mexican_train",
))
