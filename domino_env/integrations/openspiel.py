"""Every registered game as an OpenSpiel Python game (``pyspiel.load_game("python_domino_env_<name>")``).

Importing this module registers one OpenSpiel game per record of ``domino_env.games`` (short name
``python_domino_env_`` + the record's name: ``python_domino_env_dominoes``,
``python_domino_env_texas42``). The state wraps the project's rules engine; OpenSpiel sees:

- **One round (line games) or one hand (Texas 42) per episode.** The rules config's fields are the
  game parameters, except the match options (``episode``, ``target_score``, ``target_marks``): a
  match re-deals inside the engine from its own generator, which OpenSpiel cannot see as chance.
  A Texas 42 all-pass reshake stays inside the episode, dealt again by chance nodes (the rules set
  no limit on reshakes; ``max_game_length`` counts ``MAX_RESHAKES`` of them).
- **The deal as chance nodes**, one tile at a time: ``hand_size`` tiles to seat 0, then to seat 1,
  and so on (outcome = tile id, uniform over the tiles not yet dealt); with the game parameter
  ``deal_whole_hands=True`` one chance node per hand instead (outcome = the hand's rank among the
  set's ``hand_size``-tile subsets, ``hand_rank``), so a tree algorithm does not meet every hand once
  per order of its tiles (``hand_size!`` times); in Draw then every stock tile in drawing order;
  the tiles left over (Block's out-of-play tiles, Texas 88's kitty) need no chance node. A lot for
  the first leader (line games with ``first_leader="random"``) or the first shaker (Texas 42) is
  one more chance node whose outcome is the seat.
- **Parameters**: a ``None`` default becomes ``-1`` for an integer option and ``""`` for a string
  option, and either value passed back means ``None`` (the preset's value, or Nello off); a
  ``bool | None`` option (All Fives' ``teams``) is an integer: ``-1`` for ``None``, ``0`` or ``1``.
- **Returns**: the environments' ``zero_sum`` reward per seat (its side's points or marks minus the
  mean of the other sides'), paid at the end.
- **Observations**: ``observation_tensor`` is the game's ``default`` encoder,
  ``information_state_tensor`` the ``default`` encoder followed by the ``history`` encoder (the
  public move record); both are zeros while the deal is under way. The information-state string is
  the seat plus that tensor's non-zero entries, so it depends only on what the seat knows. Not quite
  perfect recall: in Draw it holds the current hand, not which tile came with which draw, and after
  a reshake the void deal is forgotten (neither bears on the rest of the episode).
- ``resample_from_infostate`` draws a deal from ``domino_env.search.beliefs`` and replays the public
  history on it, so OpenSpiel's information-set MCTS can play.
- ``OpenSpielAgent`` (bot ``"openspiel"``) seats any OpenSpiel bot in the evaluation harness.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from domino_env.encoders.base import get_encoder
from domino_env.games import Game, available_games, get_game
from domino_env.rules.fives import FivesConfig
from domino_env.rules.line import LineConfig
from domino_env.rules.mexican_train import DOUBLE_TILE, MexicanTrainConfig
from domino_env.rules.mexican_train import TILES as MEXICAN_TRAIN_TILES
from domino_env.rules.rewards import zero_sum
from domino_env.rules.texas42 import Texas42Config
from domino_env.rules.tiles import DOUBLE_SIX
from domino_env.search import beliefs

PREFIX = "python_domino_env_"
MATCH_OPTIONS = frozenset({"episode", "target_score", "target_marks"})
"""config fields OpenSpiel does not see: its episode is one round or hand"""
_NONE_INT, _NONE_STR = -1, ""
DEAL_WHOLE_HANDS = "deal_whole_hands"
"""the one game parameter that is not a config field: deal each hand in one chance node"""
MAX_RESHAKES = 8
"""all-pass reshakes in a row that Texas 42's ``max_game_length`` counts: the rules set no limit, so
a longer run (each all-pass deal is rare in play) goes on past the declared bound"""


@dataclasses.dataclass(frozen=True)
class _Dealing:
    """How one game's deal becomes chance nodes and the engine's ``deal`` (module docstring)."""

    hand_size: Callable[[Any], int]
    ordered_rest: Callable[[Any], bool]
    """whether the tiles left after the hands are dealt in order (a stock to draw from)"""
    lot: Callable[[Any, int], bool]
    """``lot(config, deal_number)``: whether a chance node picks the first seat (leader or shaker)"""
    make_deal: Callable[[Any, list[list[int]], list[int], int | None], dict]
    redeal_seat: Callable[[Any, int], int | None]
    """``redeal_seat(engine, deals_before)``: the new shaker when the engine re-dealt inside the episode"""
    max_utility: Callable[[Any], float]
    players: tuple[int, int]
    tile_name: Callable[[Any, int], str]
    max_redeals: Callable[[Any], int] = lambda config: 0
    """re-deals inside one episode that ``max_game_length`` allows for (module docstring)"""
    set_aside: Callable[[Any], frozenset[int]] = lambda config: frozenset()
    """tiles no chance node deals (Mexican Train's engine double under ``set_aside``)"""


def _line_deal(config: LineConfig, hands: list[list[int]], rest: list[int], seat: int | None) -> dict:
    deal: dict[str, Any] = {"hands": hands, "leader": seat}
    if config.variant == "draw":
        deal["stock"] = rest
    return deal


def _fives_deal(config: FivesConfig, hands: list[list[int]], rest: list[int], seat: int | None) -> dict:
    deal: dict[str, Any] = {"hands": hands, "leader": seat}
    if config.is_all_fives:
        deal["stock"] = rest
    return deal


def _mexican_train_deal(
    config: MexicanTrainConfig, hands: list[list[int]], rest: list[int], seat: int | None
) -> dict:
    return {"hands": hands, "boneyard": rest, "first_player": seat}


def _texas42_deal(config: Texas42Config, hands: list[list[int]], rest: list[int], seat: int | None) -> dict:
    deal: dict[str, Any] = {"hands": hands, "shaker": seat}
    if config.variant.kitty_size:
        deal["kitty"] = rest
    return deal


_DEALINGS: dict[type, _Dealing] = {
    LineConfig: _Dealing(
        hand_size=lambda config: config.hand_size,
        ordered_rest=lambda config: config.variant == "draw",
        lot=lambda config, deal_number: config.first_leader == "random",
        make_deal=_line_deal,
        redeal_seat=lambda engine, deals_before: None,
        max_utility=lambda config: float(config.max_round_points),
        players=(2, 4),
        tile_name=lambda config, t: config.tiles.name(t),
    ),
    FivesConfig: _Dealing(
        hand_size=lambda config: config.hand_size,
        ordered_rest=lambda config: config.is_all_fives,
        lot=lambda config, deal_number: not config.is_all_fives or config.lead_rule == "lot_any",
        make_deal=_fives_deal,
        redeal_seat=lambda engine, deals_before: None,
        max_utility=lambda config: float(config.max_round_points),
        players=(2, 4),
        tile_name=lambda config, t: DOUBLE_SIX.name(t),
    ),
    MexicanTrainConfig: _Dealing(
        hand_size=lambda config: config.hand_size,
        ordered_rest=lambda config: True,
        lot=lambda config, deal_number: True,
        make_deal=_mexican_train_deal,
        redeal_seat=lambda engine, deals_before: None,
        max_utility=lambda config: float(config.max_round_points),
        players=(2, 8),
        tile_name=lambda config, t: MEXICAN_TRAIN_TILES.name(t),
        set_aside=lambda config: (  # the engine of the round OpenSpiel deals (first_round)
            frozenset({DOUBLE_TILE[config.first_engine]})
            if config.engine_source == "set_aside" else frozenset()
        ),
    ),
    Texas42Config: _Dealing(
        hand_size=lambda config: config.variant.hand_size,
        ordered_rest=lambda config: False,
        lot=lambda config, deal_number: deal_number == 0,
        make_deal=_texas42_deal,
        redeal_seat=lambda engine, deals_before: engine.shaker if engine.deals > deals_before else None,
        max_utility=lambda config: float(config.max_hand_marks),
        players=(3, 6),
        tile_name=lambda config, t: config.variant.tile_names(1 << t)[0],
        max_redeals=lambda config: MAX_RESHAKES if config.all_pass == "reshake" else 0,
    ),
}


# ----- whole hands as one outcome ------------------------------------------------------------------
def hand_rank(tiles: tuple[int, ...] | list[int]) -> int:
    """The rank of a hand (distinct tile ids) among all hands of its size, in colexicographic order:
    ``sum(comb(t_i, i + 1))`` over its tiles in increasing order, below ``comb(num_tiles, size)``."""
    return sum(math.comb(t, i + 1) for i, t in enumerate(sorted(tiles)))


def hand_of_rank(rank: int, size: int) -> list[int]:
    """The ``size`` tiles of the hand ranked ``rank`` (``hand_rank``'s inverse), in increasing order."""
    tiles = []
    for i in range(size, 0, -1):
        t = i - 1
        while math.comb(t + 1, i) <= rank:
            t += 1
        tiles.append(t)
        rank -= math.comb(t, i)
    return tiles[::-1]


# ----- parameters ------------------------------------------------------------------------------------
def _option_fields(record: Game) -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(record.config_type) if f.name not in MATCH_OPTIONS]


def _tri_state(field: dataclasses.Field) -> bool:
    """A ``bool | None`` option (``None``: the preset decides): an OpenSpiel parameter has one type,
    so it travels as an integer, ``-1`` for ``None`` and ``0``/``1`` for ``False``/``True``."""
    return str(field.type).replace(" ", "") in ("bool|None", "None|bool")


def parameter_defaults(record: Game) -> dict[str, int | str | bool]:
    """The OpenSpiel parameters of ``record``: its config fields and defaults, ``None`` mapped."""
    defaults: dict[str, int | str | bool] = {}
    for f in _option_fields(record):
        value = f.default
        if value is None:
            value = _NONE_INT if "int" in str(f.type) or _tri_state(f) else _NONE_STR
        defaults[f.name] = value
    return defaults


def parameters(game: str, /, **options: Any) -> dict[str, int | str | bool]:
    """The OpenSpiel parameters of the environment options ``options`` (``record.config``'s, so
    aliases such as ``forced_bid`` work; the match options and ``reward`` are dropped, since OpenSpiel
    plays one round or hand and pays the zero-sum return)."""
    record = get_game(game)
    if options.get("first_round") == "random":
        raise ValueError("OpenSpiel deals one round of a fixed engine: first_round must be an integer "
                         "(1: engine 12-12) here, not 'random'")
    return _parameters_of_config(record, record.config(**{k: v for k, v in options.items() if k != "reward"}))


def _parameters_of_config(record: Game, config: Any) -> dict[str, int | str | bool]:
    tri_states = {f.name for f in _option_fields(record) if _tri_state(f)}
    out = {}
    for name, default in parameter_defaults(record).items():
        value = getattr(config, name)
        out[name] = _none_value(default) if value is None else int(value) if name in tri_states else value
    return out


def _none_value(default: int | str | bool) -> int | str:
    return _NONE_INT if isinstance(default, int) and not isinstance(default, bool) else _NONE_STR


def config_of(record: Game, params: dict[str, Any]) -> Any:
    """The one-episode rules config of OpenSpiel ``params`` (``ValueError`` from the record when bad)."""
    defaults = parameter_defaults(record)
    params = {k: v for k, v in params.items() if k != DEAL_WHOLE_HANDS}  # how to deal, not a rule
    unknown = set(params) - set(defaults)
    if unknown:
        raise ValueError(f"unknown {record.name} parameter(s) {sorted(unknown)}; known: {sorted(defaults)}")
    tri_states = {f.name for f in _option_fields(record) if _tri_state(f)}
    options = {}
    for name, default in defaults.items():
        value = params.get(name, default)
        if value == _none_value(default) and not isinstance(value, bool):
            value = None
        elif name in tri_states and value in (0, 1):
            value = bool(value)
        options[name] = value
    return record.config(**options, episode=record.episodes[0])


# ----- the game -----------------------------------------------------------------------------------
def _game_type(record: Game) -> pyspiel.GameType:
    dealing = _DEALINGS[record.config_type]
    return pyspiel.GameType(
        short_name=PREFIX + record.name,
        long_name=f"domino-env {record.title} (one {record.episodes[0]} per episode)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=dealing.players[1],
        min_num_players=dealing.players[0],
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={**parameter_defaults(record), DEAL_WHOLE_HANDS: False},
    )


@dataclasses.dataclass(frozen=True)
class _Setup:
    """What a state reads of its game, found from the game's parameters (OpenSpiel may hand a state
    a game object whose ``__init__`` attributes are missing, so nothing is stored on the game)."""

    record: Game
    config: Any
    dealing: _Dealing
    num_tiles: int
    sides: tuple[int, ...]
    whole_hands: bool
    params: tuple[tuple[str, Any], ...]
    """the game parameters it was found from, sorted: what a pickle of a state stores"""

    def __deepcopy__(self, memo: dict) -> _Setup:
        return self  # immutable and shared: OpenSpiel clones a state with deepcopy

    def __reduce__(self) -> tuple[Callable[..., _Setup], tuple[str, dict[str, Any]]]:
        # Pickled (OpenSpiel serializes a Python state with pickle) as the game's name and
        # parameters: the record and the dealing hold functions that pickle cannot store.
        return _setup_of_parameters, (self.record.name, dict(self.params))


_SETUPS: dict[tuple[str, str], _Setup] = {}


def _setup_of_parameters(name: str, params: dict[str, Any]) -> _Setup:
    key = (name, repr(sorted(params.items())))
    if key not in _SETUPS:
        record = get_game(name)
        config = config_of(record, params)
        _SETUPS[key] = _Setup(record, config, _DEALINGS[record.config_type], record.num_tiles(config),
                              record.sides(config), bool(params.get(DEAL_WHOLE_HANDS, False)),
                              tuple(sorted(params.items())))
    return _SETUPS[key]


def _setup_of(game: DominoEnvGame) -> _Setup:
    return _setup_of_parameters(game.record.name, game.get_parameters())


class DominoEnvGame(pyspiel.Game):
    """One registered game, with the parameters of one rules config (module docstring)."""

    record: Game  # set by the subclass registered for each record

    def __init__(self, params: dict[str, Any] | None = None):
        record = self.record
        config = config_of(record, dict(params or {}))
        dealing = _DEALINGS[record.config_type]
        num_tiles = record.num_tiles(config)
        one_deal = num_tiles + 1 + config.max_decisions
        max_utility = dealing.max_utility(config)
        hands = math.comb(num_tiles, dealing.hand_size(config)) if (params or {}).get(DEAL_WHOLE_HANDS) else 0
        info = pyspiel.GameInfo(
            num_distinct_actions=config.num_actions,
            max_chance_outcomes=max(num_tiles, config.num_players, hands),
            num_players=config.num_players,
            min_utility=-max_utility,
            max_utility=max_utility,
            utility_sum=0.0,
            max_game_length=one_deal * (1 + dealing.max_redeals(config)),
        )
        super().__init__(_game_type(record), info, dict(params or {}))

    def new_initial_state(self) -> DominoEnvState:
        return DominoEnvState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> EncoderObserver:
        obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        return EncoderObserver(_setup_of(self), obs_type, params)


class _Held:
    """Holds the engine so that OpenSpiel's clone (a deepcopy of the state's attributes) uses the
    engine's own ``clone()``: a deepcopy would also copy its config's tables, 40 times slower."""

    __slots__ = ("engine",)

    def __init__(self, engine: Any):
        self.engine = engine

    def __deepcopy__(self, memo: dict) -> _Held:
        return _Held(None if self.engine is None else self.engine.clone())


class DominoEnvState(pyspiel.State):
    """The deal under way (chance nodes), then the project's engine."""

    def __init__(self, game: DominoEnvGame):
        super().__init__(game)
        self._game = _setup_of(game)
        self._held = _Held(None)
        self._deals = 0
        self._seat: int | None = None  # the shaker of a reshake, fixed by the rules
        self._start_deal(None)

    @property
    def _engine(self) -> Any:
        """The rules engine, ``None`` while the deal is under way."""
        return self._held.engine

    @_engine.setter
    def _engine(self, engine: Any) -> None:
        self._held.engine = engine

    def _start_deal(self, seat: int | None) -> None:
        self._hands: list[list[int]] = [[] for _ in range(self._game.config.num_players)]
        self._rest: list[int] = []
        self._seat = seat
        self._engine = None

    # ----- chance ---------------------------------------------------------------------------------
    def _undealt(self) -> list[int]:
        taken = {t for hand in self._hands for t in hand} | set(self._rest)
        taken |= self._game.dealing.set_aside(self._game.config)
        return [t for t in range(self._game.num_tiles) if t not in taken]

    def _dealing_to(self) -> str:
        """``"hand"``, ``"rest"`` or ``"lot"``: what the next chance outcome deals."""
        game = self._game
        size = game.dealing.hand_size(game.config)
        if len(self._hands[-1]) < size:
            return "hand"
        if game.dealing.ordered_rest(game.config) and self._undealt():
            return "rest"
        return "lot"

    def current_player(self) -> int:
        if self._engine is None:
            return pyspiel.PlayerId.CHANCE
        if self._engine.is_terminal:
            return pyspiel.PlayerId.TERMINAL
        return self._engine.current_player

    def chance_outcomes(self) -> list[tuple[int, float]]:
        to = self._dealing_to()
        if to == "lot":
            n = self._game.config.num_players
            return [(seat, 1.0 / n) for seat in range(n)]
        undealt = self._undealt()
        if to == "hand" and self._game.whole_hands:
            size = self._game.dealing.hand_size(self._game.config)
            ranks = sorted(hand_rank(hand) for hand in itertools.combinations(undealt, size))
            return [(r, 1.0 / len(ranks)) for r in ranks]
        return [(t, 1.0 / len(undealt)) for t in undealt]

    def _apply_chance(self, outcome: int) -> None:
        to = self._dealing_to()
        if to == "hand":
            size = self._game.dealing.hand_size(self._game.config)
            hand = next(hand for hand in self._hands if len(hand) < size)
            hand.extend(hand_of_rank(outcome, size) if self._game.whole_hands else [outcome])
        elif to == "rest":
            self._rest.append(outcome)
        else:
            self._seat = outcome
        if self._deal_complete():
            self._finish_deal()

    def _deal_complete(self) -> bool:
        game = self._game
        if len(self._hands[-1]) < game.dealing.hand_size(game.config):
            return False
        if game.dealing.ordered_rest(game.config) and self._undealt():
            return False
        return self._seat is not None or not game.dealing.lot(game.config, self._deals)

    def _finish_deal(self) -> None:
        game = self._game
        if not game.dealing.ordered_rest(game.config):
            self._rest = self._undealt()
        deal = game.dealing.make_deal(game.config, self._hands, self._rest, self._seat)
        self._engine = game.record.new_engine(game.config, np.random.default_rng(0), deal=deal)
        self._deals += 1

    # ----- play -----------------------------------------------------------------------------------
    def _legal_actions(self, player: int) -> list[int]:
        return self._engine.legal_actions()

    def _apply_action(self, action: int) -> None:
        if self._engine is None:
            self._apply_chance(action)
            return
        engine = self._engine
        deals_before = getattr(engine, "deals", 0)
        engine.apply(action)
        reshaker = self._game.dealing.redeal_seat(engine, deals_before)
        if reshaker is not None:  # a void hand: deal again by chance, the rules fix the shaker
            self._start_deal(reshaker)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            to = self._dealing_to() if self._engine is None else "rest"
            if to == "lot":
                return f"first seat {action}"
            size = self._game.dealing.hand_size(self._game.config)
            tiles = hand_of_rank(action, size) if to == "hand" and self._game.whole_hands else [action]
            return "deal " + " ".join(self._game.dealing.tile_name(self._game.config, t) for t in tiles)
        if self._engine is None:
            return f"action {action}"
        return self._engine.action_to_text(action)

    def is_terminal(self) -> bool:
        return self._engine is not None and self._engine.is_terminal

    def returns(self) -> list[float]:
        game = self._game
        if not self.is_terminal():
            return [0.0] * game.config.num_players
        outcome = game.record.outcome(self._engine, False)
        return [float(r) for r in zero_sum(outcome.side_scores, game.sides)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> DominoEnvState:
        """A state ``player_id`` cannot tell from this one, drawn by ``domino_env.search.beliefs``; the
        generator is seeded from ``probability_sampler()``, a uniform number in [0, 1) (OpenSpiel's
        ``UniformProbabilitySampler``, or any such callable)."""
        if self._engine is None:
            raise ValueError("resample_from_infostate needs a dealt state: the deal is under way")
        seed = int(probability_sampler() * 2**63)
        rng = np.random.default_rng(seed)
        view = self._engine.view(player_id)
        deal = beliefs.sample_consistent_deal(view, rng)
        other = self.clone()
        other._engine = beliefs.rebuild(view, deal, np.random.default_rng(0))
        return other

    def __str__(self) -> str:
        if self._engine is None:
            names = [
                " ".join(self._game.dealing.tile_name(self._game.config, t) for t in hand)
                for hand in self._hands
            ]
            return "dealing: " + " | ".join(names)
        return self._engine.render_text()


class EncoderObserver:
    """The project's encoders as an OpenSpiel Python observer: the ``default`` encoder for
    observations; for information states (``perfect_recall``) the ``default`` encoder followed by
    the ``history`` encoder (the public move record, which the default encoder summarizes)."""

    def __init__(self, game: _Setup, iig_obs_type: Any, params: Any):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("only the single-player observation and information state are provided")
        self.perfect_recall = iig_obs_type.perfect_recall
        names = ("default", "history") if self.perfect_recall else ("default",)
        self.encoders = [get_encoder(game.record.name, name) for name in names]
        sizes = [encoder.size(game.config) for encoder in self.encoders]
        self.tensor = np.zeros(sum(sizes), np.float32)
        ends = np.cumsum(sizes)
        pieces = zip(names, sizes, ends, strict=True)
        self.dict = {name: self.tensor[end - size : end] for name, size, end in pieces}
        self._parts = list(zip(self.encoders, self.dict.values(), strict=True))

    def set_from(self, state: DominoEnvState, player: int) -> None:
        if state._engine is None:
            self.tensor.fill(0)
            return
        view = state._engine.view(player)
        for encoder, part in self._parts:
            part[:] = encoder.encode(view)

    def string_from(self, state: DominoEnvState, player: int) -> str:
        if state._engine is None:
            name = state._game.dealing.tile_name
            mine = " ".join(name(state._game.config, t) for t in state._hands[player])
            return f"p{player} deal {state._deals} dealt {sum(map(len, state._hands))}: {mine}"
        if not self.perfect_recall:
            return state._engine.render_text(player)
        self.set_from(state, player)
        nonzero = np.flatnonzero(self.tensor)
        return f"p{player} " + " ".join(f"{i}:{self.tensor[i]:g}" for i in nonzero)


# ----- an OpenSpiel bot as a domino_env agent -------------------------------------------------------
def one_episode(record: Game, config: Any) -> bool:
    """Whether ``config`` plays one round or hand, the episode the OpenSpiel games have."""
    options = {f.name: getattr(config, f.name) for f in dataclasses.fields(config) if f.name != "episode"}
    return record.episode_config(options, False) == config


def _ismcts(game: pyspiel.Game, seed: int, simulations: int = 100, uct_c: float = 2.0) -> pyspiel.Bot:
    from open_spiel.python.algorithms import ismcts, mcts

    random_state = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(1, random_state)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c, simulations, random_state=random_state)
    # OpenSpiel's own resampler draws from an unseeded sampler: seed it for reproducible games
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, random_state.uniform))
    return bot


class OpenSpielAgent:
    """An OpenSpiel bot in the project's agent interface (``act(view, rng)``), so the evaluation
    harness can seat it: ``make_bot(game, "openspiel", bot="ismcts", simulations=100)``.

    ``bot`` is ``"ismcts"`` (OpenSpiel's information-set MCTS with random rollouts; keywords
    ``simulations`` and ``uct_c``) or ``"module:function"``, a factory ``function(game, seed, **kwargs)``
    returning any ``pyspiel.Bot``. Each move builds the OpenSpiel state of the view, with the hidden
    tiles drawn from the seat's beliefs (``beliefs.determinize``: the bot sees only the seat's
    information state), and a fresh bot seeded from ``rng``, so games are reproducible. One round or
    hand per episode only (``GameSetup(match=False)``), like the OpenSpiel games.
    """

    def __init__(self, game: str, bot: str = "ismcts", **kwargs: Any):
        self.record = get_game(game)
        if bot == "ismcts":
            self.factory: Callable[..., pyspiel.Bot] = _ismcts
        elif ":" in bot:
            module, _, name = bot.partition(":")
            self.factory = getattr(importlib.import_module(module), name)
        else:
            raise ValueError(f"bot must be 'ismcts' or 'module:function' (a pyspiel.Bot factory), "
                             f"got {bot!r}")
        self.kwargs = kwargs
        self._games: dict[Any, pyspiel.Game] = {}

    def _game_of(self, config: Any) -> pyspiel.Game:
        if config not in self._games:
            if not one_episode(self.record, config):
                raise ValueError("an OpenSpiel game is one round or hand: evaluate with match=False")
            params = _parameters_of_config(self.record, config)
            self._games[config] = pyspiel.load_game(PREFIX + self.record.name, params)
        return self._games[config]

    def act(self, view: Any, rng: np.random.Generator) -> int:
        game = self._game_of(view.config)
        state = game.new_initial_state()
        state._engine = beliefs.determinize(view, rng)
        bot = self.factory(game, int(rng.integers(2**31)), **self.kwargs)
        return int(bot.step(state))


def _register(record: Game) -> None:
    game_class = type(f"{record.name.title()}OpenSpielGame", (DominoEnvGame,), {"record": record})
    globals()[game_class.__name__] = game_class  # found by name: pickle stores a game as its class
    pyspiel.register_game(_game_type(record), game_class)


def short_name(game: str) -> str:
    """The OpenSpiel short name of a registered game: ``short_name("texas42")``."""
    return PREFIX + get_game(game).name


for _name in available_games():
    if get_game(_name).config_type not in _DEALINGS:
        raise NotImplementedError(f"no OpenSpiel dealing for game {_name!r}: add one to _DEALINGS")
    _register(get_game(_name))
