"""Mexican Train (RULES-new-games.md sections 1, 3, 5, 6, 8) as a pure engine over bit sets.

A double-twelve game for 2-8 players. Every seat builds a personal train out of the round's engine
double; the Mexican train is open to all; a seat that cannot play passes and marks its train, which
opens it to everyone until its owner plays on it again; a double must be covered before play goes on
elsewhere. A match is ``rounds`` rounds (engines 12-12 downwards); round points are the pips left in
hand, and the lowest total wins.

Hands are ``int`` bit sets over the canonical double-twelve index, so the tiles that fit a train are
``hand & suit_mask[end]``. ``numpy.random.Generator`` is the only source of randomness (the deal and
the first player by lot), used only when a round starts.

Action ids (section 3.9), relative to the acting seat ``p`` with ``n`` players: ``(n+1)*t + k`` plays
tile ``t`` on slot ``k`` (``0`` = p's own train, ``j`` = seat ``(p+j) mod n``'s train, ``n`` = the
Mexican train); ``91(n+1)`` = draw, ``+1`` = pass (marks the train), ``+2`` = stop (an opening run).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from domino_env.rules.conventions import (
    CachedMoves,
    DealtTiles,
    check_action_id,
    check_choice,
    check_generator,
    check_move_text,
    copy_generator,
    generator_from_state,
    is_int,
    load_match,
    save_match,
)
from domino_env.rules.errors import IllegalActionError
from domino_env.rules.rewards import EPISODES
from domino_env.rules.tiles import iter_bits, tile_set

TILES = tile_set(12)
NUM_TILES = TILES.num_tiles  # 91
SUIT = TILES.suit_mask
PRESETS = ("standard", "cardinal")
ENGINE_SOURCES = ("set_aside", "holder")
FIRST_PLAYERS = ("rotate", "holder")  # by lot then rotating left; the engine's placer
OPENINGS = ("single", "run")
DOUBLE_BONUSES = ("cover", "any")
UNSATISFIABLE = ("lapse", "stand")
BLANK_SCORINGS = ("face", "double_blank_50", "blank_halves_25")
MAX_ROUNDS = 13
SAVE_FORMAT = "domino-env/mexican_train"
SAVE_VERSIONS = (1,)  # what from_json reads; to_json writes the last

# Per-tile tables (canonical index) a batched engine reuses: halves, face pips, and the points a
# tile left in hand costs under each ``blank_scoring`` (row ``BLANK_SCORINGS.index(name)``).
TILE_LOW = np.array(TILES.low, dtype=np.int64)
TILE_HIGH = np.array(TILES.high, dtype=np.int64)
TILE_PIPS = TILE_LOW + TILE_HIGH
SCORE_PIPS = np.stack([
    TILE_PIPS,
    np.where((TILE_LOW == 0) & (TILE_HIGH == 0), 50, TILE_PIPS),
    np.where(TILE_LOW == 0, 25, TILE_LOW) + np.where(TILE_HIGH == 0, 25, TILE_HIGH),
])
DOUBLE_TILE = tuple(TILES.index(v, v) for v in range(13))  # the double of each number

# Section 3.1: hand sizes by player count, as (2-4, 5-6, 7-8), for each named table.
HAND_SIZE_TABLES = {
    "standard": (15, 12, 10), "cardinal": (15, 12, 11), "fundex": (15, 11, 8), "bh": (15, 11, 10),
}
_PRESET_DEFAULTS: dict[str, dict[str, Any]] = {
    "standard": {"hand_size": "standard", "engine_source": "set_aside", "opening": "single",
                 "own_train_first": True, "double_bonus": "cover", "unsatisfiable_double": "lapse",
                 "blank_scoring": "face"},
    "cardinal": {"hand_size": "cardinal", "engine_source": "holder", "opening": "run",
                 "own_train_first": True, "double_bonus": "cover", "unsatisfiable_double": "lapse",
                 "blank_scoring": "face"},
}


def _copied(part: Any) -> Any:
    """A parsed deal's part (a seat, tiles, or lists of tiles) copied: what ``copy.deepcopy`` gives
    for these shapes, several times faster."""
    return [_copied(item) for item in part] if isinstance(part, list) else part


def hand_size_for(table: str, num_players: int) -> int:
    """The hand size of named table ``table`` (``HAND_SIZE_TABLES``) for ``num_players``."""
    return HAND_SIZE_TABLES[table][0 if num_players <= 4 else 1 if num_players <= 6 else 2]


def engine_value(round_index: int) -> int:
    """The engine's number in round ``round_index`` (0-based): 12, 11, ... 0."""
    return 12 - round_index


def tile_text(t: int) -> str:
    """Section 8.12: a tile written low half first (``"3-5"``)."""
    return f"{TILES.low[t]}-{TILES.high[t]}"


@dataclass(frozen=True)
class MexicanTrainConfig:
    """Every option of section 3.1. ``None`` takes the preset's value, so after construction every
    field is concrete and ``MexicanTrainConfig(**asdict(cfg)) == cfg``.

    ``hand_size`` is an integer or a named table (``HAND_SIZE_TABLES``: ``standard`` 15/12/10,
    ``cardinal`` 15/12/11, ``fundex`` 15/11/8, ``bh`` 15/11/10), stored as the integer.
    ``first_player`` follows ``engine_source`` (section 8.8). ``episode`` is ``"match"`` (rounds
    ``first_round`` to ``rounds``) or ``"round"`` (round ``first_round`` only).

    ``first_round`` (not in the contract: practice and training) is the round an episode starts at,
    1 (engine 12-12, the contract's match) to ``rounds``, or ``"random"``: drawn uniformly from
    1..``rounds`` anew for each episode, so that one policy meets every engine of the match.
    """

    num_players: int = 4
    preset: str = "standard"
    hand_size: int | str | None = None
    engine_source: str | None = None
    first_player: str | None = None
    opening: str | None = None
    own_train_first: bool | None = None
    double_bonus: str | None = None
    unsatisfiable_double: str | None = None
    blank_scoring: str | None = None
    rounds: int = MAX_ROUNDS
    first_round: int | str = 1
    episode: str = "match"
    open_hands: bool = False

    def __post_init__(self) -> None:
        check_choice("preset", self.preset, PRESETS)
        check_choice("episode", self.episode, EPISODES)
        if not is_int(self.num_players) or not 2 <= self.num_players <= 8:
            raise ValueError(
                f"Mexican Train is played by 2 to 8 players, got num_players={self.num_players!r}"
            )
        object.__setattr__(self, "num_players", int(self.num_players))
        for name, value in _PRESET_DEFAULTS[self.preset].items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)
        check_choice("engine_source", self.engine_source, ENGINE_SOURCES)
        follows = "rotate" if self.engine_source == "set_aside" else "holder"
        if self.first_player is None:
            object.__setattr__(self, "first_player", follows)
        check_choice("first_player", self.first_player, FIRST_PLAYERS)
        if self.first_player != follows:
            raise ValueError(
                f"first_player={self.first_player!r} does not go with engine_source={self.engine_source!r}: "
                "set_aside goes with 'rotate' (by lot, then the next seat), holder with 'holder' (the placer)"
            )
        check_choice("opening", self.opening, OPENINGS)
        check_choice("double_bonus", self.double_bonus, DOUBLE_BONUSES)
        check_choice("unsatisfiable_double", self.unsatisfiable_double, UNSATISFIABLE)
        check_choice("blank_scoring", self.blank_scoring, BLANK_SCORINGS)
        for flag in ("own_train_first", "open_hands"):
            if type(getattr(self, flag)) is not bool:
                raise ValueError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        self._check_hand_size()
        if not is_int(self.rounds) or not 1 <= self.rounds <= MAX_ROUNDS:
            raise ValueError(
                f"rounds must be an integer 1..{MAX_ROUNDS} (engines 12-12 down), got {self.rounds!r}"
            )
        object.__setattr__(self, "rounds", int(self.rounds))
        if self.first_round != "random":
            if not is_int(self.first_round) or not 1 <= self.first_round <= self.rounds:
                raise ValueError(
                    f"first_round must be an integer 1..rounds={self.rounds} (round 1 has engine 12-12) or "
                    f"'random' (drawn anew each episode), got {self.first_round!r}"
                )
            object.__setattr__(self, "first_round", int(self.first_round))

    def draw_first_round(self, rng: np.random.Generator, size: int | None = None) -> Any:
        """The 0-based index of an episode's first round (``size`` of them as an array); ``rng`` is
        drawn from only when ``first_round="random"``, so fixed starts deal as they always did."""
        if self.first_round == "random":
            return rng.integers(self.rounds, size=size)
        start = self.first_round - 1
        return start if size is None else np.full(size, start, np.int64)

    @property
    def drawable_stock(self) -> int:
        """Tiles of the boneyard a round lets players draw: the set less the hands and the engine set
        aside (a holder's engine comes out of a hand or the boneyard)."""
        return NUM_TILES - (self.engine_source == "set_aside") - self.hand_size * self.num_players

    def _check_hand_size(self) -> None:
        size = self.hand_size
        if isinstance(size, str):
            check_choice("hand_size", size, tuple(HAND_SIZE_TABLES))
            size = hand_size_for(size, self.num_players)
        least = 1 if self.engine_source == "set_aside" else 2  # the holder keeps a tile besides the engine
        if not is_int(size) or size < least:
            raise ValueError(
                f"hand_size must be an integer >= {least} with engine_source={self.engine_source!r}, "
                f"or one of {tuple(HAND_SIZE_TABLES)}, got {size!r}"
            )
        pool = NUM_TILES - (self.engine_source == "set_aside")
        if size * self.num_players > pool:
            raise ValueError(
                f"{self.num_players} hands of {size} need {size * self.num_players} tiles, but "
                f"engine_source={self.engine_source!r} deals from {pool}"
            )
        object.__setattr__(self, "hand_size", int(size))

    @classmethod
    def make(cls, one_round: bool = False, **options: Any) -> MexicanTrainConfig:
        """The config of ``options``, every one checked; ``one_round=True`` plays round 1 only
        (``episode="round"``), as the envs' ``episode="round"`` does."""
        config = cls(**options)
        return replace(config, episode="round") if one_round else config

    @property
    def num_rounds(self) -> int:
        """Most rounds in one episode: 1, or ``rounds - first_round + 1`` for a match (``rounds``
        when the first round is random)."""
        if self.episode == "round":
            return 1
        return self.rounds - (0 if self.first_round == "random" else self.first_round - 1)

    @property
    def first_engine(self) -> int:
        """The engine's number in the episode's first round, for a fixed ``first_round`` (an integer)."""
        if self.first_round == "random":
            raise ValueError("first_round='random' draws the first engine anew each episode; no fixed one")
        return engine_value(self.first_round - 1)

    def last_round(self, round_index: int) -> int:
        """The number (1-based) of the last round of an episode now at round ``round_index`` (0-based):
        ``rounds`` for a match, that round itself for one round."""
        return self.rounds if self.episode == "match" else round_index + 1

    @property
    def num_actions(self) -> int:
        return NUM_TILES * (self.num_players + 1) + 3

    @property
    def max_decisions(self) -> int:
        """Most decisions one dealt round can take (a true bound, rarely approached).

        Plays ``P <= 90`` and draws ``S <= boneyard``. A stop needs a run: at most ``n``. A pass ends a
        turn; a turn is progress (section 3.3) when it plays, draws or newly marks, and markers placed
        are at most ``M = n + P`` (each after the first needs the owner's play), so at most
        ``E = P + S + M`` turns are progress. Between two of them at most ``n - 1`` turns pass without
        progress, and ``n`` end the round, so passes are at most ``E + n(E + 1)``.
        """
        n = self.num_players
        plays = NUM_TILES - 1
        draws = NUM_TILES - (self.engine_source == "set_aside") - n * self.hand_size
        progress = plays + draws + n + plays
        return plays + draws + n + progress + n * (progress + 1)

    @property
    def max_round_points(self) -> int:
        """Most points a seat can score in a round (a bound: the whole set under ``blank_scoring``)."""
        return int(SCORE_PIPS[BLANK_SCORINGS.index(self.blank_scoring)].sum())

    @property
    def max_match_points(self) -> int:
        """Most points a seat can total in an episode."""
        return self.num_rounds * self.max_round_points

    @property
    def num_sides(self) -> int:
        """Scoring sides: every seat is its own."""
        return self.num_players

    def side_of(self, seat: int) -> int:
        return seat


@dataclass(frozen=True)
class MexicanTrainResult:
    """One finished round. ``kind`` is ``"domino"`` (seat ``out`` went out) or ``"blocked"``
    (``out`` is ``None``); ``pips`` are the face pips left in each hand; ``round_points`` what each
    seat scored under ``blank_scoring`` (lower is better)."""

    round_index: int
    engine: int
    first_player: int
    kind: str
    out: int | None
    pips: tuple[int, ...]
    round_points: tuple[int, ...]

    def describe(self) -> str:
        """One line for people."""
        how = f"seat {self.out} went out" if self.kind == "domino" else "blocked"
        return (f"round {self.round_index + 1} (engine {self.engine}-{self.engine}): {how}; "
                f"round points {list(self.round_points)}")


class MexicanTrainView(NamedTuple):
    """What ``seat`` may know (section 5). Train ``i < n`` is seat ``i``'s personal train, train
    ``n`` the Mexican train (absolute indices); each lists ``(tile, seat that played it, end value
    after it)`` in order (seat ``-1``: laid by a scripted deal). ``open_doubles`` lists
    ``(train, value)`` oldest first; ``turn_doubles`` the doubles of this turn not yet open
    (``double_bonus="any"``). ``history`` lists this round's ``(seat, action)`` (a draw never shows
    its tile). ``engine_holder`` is the seat that placed the engine (``None`` when set aside).
    ``hands`` is every hand only with ``open_hands``; otherwise ``None``. Built positionally."""

    config: MexicanTrainConfig
    seat: int
    hand: int
    legal_mask: int
    current_player: int | None
    round_index: int
    engine: int
    engine_holder: int | None
    first_player: int
    trains: tuple[tuple[tuple[int, int, int], ...], ...]
    ends: tuple[int, ...]
    marked: tuple[bool, ...]
    open_doubles: tuple[tuple[int, int], ...]
    turn_doubles: tuple[tuple[int, int], ...]
    first_turn_done: tuple[bool, ...]
    in_run: bool
    drew_this_turn: bool
    hand_sizes: tuple[int, ...]
    boneyard_size: int
    turns_without_progress: int
    history: tuple[tuple[int, int], ...]
    scores: tuple[int, ...]
    round_points: tuple[tuple[int, ...], ...]
    hands: tuple[int, ...] | None = None


_new_tuple = tuple.__new__
_DEAL_KEYS = ("hands", "boneyard", "first_player", "trains", "marked")


class MexicanTrainGame(CachedMoves):
    """A Mexican Train episode (one round or a match) between ``num_players`` seats."""

    _OVER = "episode"

    def __init__(self, config: MexicanTrainConfig, rng: np.random.Generator,
                 deal: Mapping[str, Any] | None = None):
        """Start the episode. ``rng`` (a ``numpy.random.Generator``, else ``TypeError``) deals every
        round, draws the first player by lot (and the first round when ``first_round="random"``).
        ``deal`` sets up the first round exactly: ``hands``, optional
        ``boneyard`` (drawn from the front), ``first_player`` (the round's nominal first seat; by lot
        when absent), and for a mid-round position ``trains`` (``n + 1`` lists of tiles out of the
        engine) and ``marked`` (seats). Tiles a deal leaves out are out of play."""
        check_generator(rng)
        self._setup(config, rng, [0] * config.num_players, [], config.draw_first_round(rng))
        self._start_round(self._random_deal() if deal is None else self._parse_deal(deal))

    def _setup(self, config: MexicanTrainConfig, rng: np.random.Generator, scores: list[int],
               results: list[MexicanTrainResult], round_index: int) -> None:
        """The match state before round ``round_index`` is dealt (a new game, or a save's)."""
        self.config = config
        self.num_players = n = config.num_players
        self.num_actions = config.num_actions
        self.draw_action = NUM_TILES * (n + 1)
        self.pass_action = self.draw_action + 1
        self.stop_action = self.draw_action + 2
        self.rng = rng
        self.scores = scores
        self.results = results
        self.round_index = int(round_index)
        self.nominal_first = -1
        self._terminal = False

    # ----- dealing -----------------------------------------------------------------------------
    def _random_deal(self) -> dict[str, Any]:
        cfg, n = self.config, self.num_players
        engine = DOUBLE_TILE[engine_value(self.round_index)]
        order = self.rng.permutation(NUM_TILES).tolist()
        if cfg.engine_source == "set_aside":
            order.remove(engine)
        k = cfg.hand_size
        first = int(self.rng.integers(n)) if self.nominal_first < 0 else (self.nominal_first + 1) % n
        return {"hands": [order[i * k:(i + 1) * k] for i in range(n)], "boneyard": order[k * n:],
                "first_player": first}

    def _parse_deal(self, deal: Mapping[str, Any]) -> dict[str, Any]:
        """A scripted deal, every part checked; ``ValueError`` naming what is wrong."""
        n = self.num_players
        if not isinstance(deal, Mapping):
            raise ValueError(f"deal must map {', '.join(_DEAL_KEYS)}, not {type(deal).__name__}")
        unknown = set(deal) - set(_DEAL_KEYS)
        if unknown:
            raise ValueError(f"unknown deal keys {sorted(unknown)}; expected some of {list(_DEAL_KEYS)}")
        engine = DOUBLE_TILE[engine_value(self.round_index)]
        set_aside = self.config.engine_source == "set_aside"
        read = DealtTiles(TILES, tile_text, 1 << engine if set_aside else 0, "the set-aside engine")
        hands = deal.get("hands")
        if not isinstance(hands, (list, tuple)) or len(hands) != n:
            raise ValueError(f"deal['hands'] must list {n} hands, got {hands!r}")
        parsed: dict[str, Any] = {"hands": [read(h, f"hand {i}") for i, h in enumerate(hands)]}
        if not all(h and h != [engine] for h in parsed["hands"]):
            raise ValueError("every hand must hold at least one tile besides the engine")
        parsed["boneyard"] = read(deal.get("boneyard", []), "boneyard")
        first = deal.get("first_player")
        if first is None:
            first = int(self.rng.integers(n))
        elif not is_int(first) or not 0 <= first < n:
            raise ValueError(f"deal['first_player'] must be a seat 0..{n - 1}, got {first!r}")
        parsed["first_player"] = int(first)
        self._parse_position(deal, parsed, read)
        return parsed

    def _parse_position(self, deal: Mapping[str, Any], parsed: dict[str, Any], read: DealtTiles) -> None:
        """The optional mid-round part of a scripted deal: ``trains`` and ``marked``."""
        n = self.num_players
        if "trains" in deal:
            trains = deal["trains"]
            if not isinstance(trains, (list, tuple)) or len(trains) != n + 1:
                raise ValueError(f"deal['trains'] must list {n + 1} trains (seats 0..{n - 1}, then Mexican)")
            parsed["trains"] = [read(tr, f"train {i}") for i, tr in enumerate(trains)]
            for i, tr in enumerate(parsed["trains"]):
                self._chain_end(tr, f"train {i}")
        if "marked" in deal:
            marked = deal["marked"]
            if not isinstance(marked, (list, tuple)) or not all(is_int(s) and 0 <= s < n for s in marked):
                raise ValueError(f"deal['marked'] must list seats 0..{n - 1}, got {marked!r}")
            parsed["marked"] = sorted({int(s) for s in marked})

    def _chain_end(self, train: list[int], what: str) -> int:
        """The end value of ``train`` laid out of the engine; ``ValueError`` if a tile does not fit."""
        end = engine_value(self.round_index)
        for t in train:
            if TILES.low[t] != end and TILES.high[t] != end:
                raise ValueError(f"{what}: {tile_text(t)} does not fit the end {end}")
            end = TILES.other_half(t, end)
        return end

    def _start_round(self, deal: dict[str, Any]) -> None:
        n, cfg = self.num_players, self.config
        self._deal = {key: _copied(value) for key, value in deal.items()}  # for saves; a search builds many
        self._actions: list[int] = []
        self._round_start = (list(self.scores), len(self.results))
        self.engine = engine_value(self.round_index)
        self.hands = [sum(1 << t for t in h) for h in deal["hands"]]
        self.boneyard = list(deal["boneyard"])
        self.nominal_first = deal["first_player"]
        self.trains: list[list[tuple[int, int, int]]] = []
        self.ends: list[int] = []
        on_table = 1 << DOUBLE_TILE[self.engine]
        for tr in deal.get("trains", [[]] * (n + 1)):
            end, laid = self.engine, []
            for t in tr:
                end = TILES.other_half(t, end)
                laid.append((t, -1, end))
                on_table |= 1 << t
            self.trains.append(laid)
            self.ends.append(end)
        self.marked = [s in deal.get("marked", ()) for s in range(n)]
        self.first_turn_done = [bool(deal.get("trains"))] * n
        self.open_doubles: list[tuple[int, int]] = []
        self.history: list[tuple[int, int]] = []
        self.no_progress = 0
        self.engine_holder = self._place_engine() if cfg.engine_source == "holder" else None
        in_game = on_table | sum(1 << t for t in self.boneyard)
        for h in self.hands:
            in_game |= h
        self.out_of_play = TILES.full_mask & ~in_game  # only a scripted deal leaves tiles out
        self.first_player = self.nominal_first if self.engine_holder is None else self.engine_holder
        self._begin_turn(self.first_player)

    def _place_engine(self) -> int | None:
        """Section 3.3 step 2: the holder places the engine; if nobody holds it, seats draw in turn from
        the nominal first seat until one draws it (automatic). ``None``: a scripted position left it
        out of the deal (already in the hub)."""
        engine = DOUBLE_TILE[self.engine]
        for s, h in enumerate(self.hands):
            if h >> engine & 1:
                self.hands[s] ^= 1 << engine
                return s
        if engine not in self.boneyard:
            return None
        s = self.nominal_first
        while True:
            t = self.boneyard.pop(0)
            if t == engine:
                return s
            self.hands[s] |= 1 << t
            s = (s + 1) % self.num_players

    def _begin_turn(self, seat: int) -> None:
        self.current = seat
        self.can_draw = True
        self.drew = False
        self.progress = False
        self.in_run = self.config.opening == "run" and not self.first_turn_done[seat]
        self.run_played = False
        self.run_double = -1  # a double played in the run and not yet covered: its value
        self.turn_doubles: list[tuple[int, int]] = []
        self._mask = -1

    # ----- protocol ----------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self._terminal else self.current

    @property
    def is_terminal(self) -> bool:
        return self._terminal

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats with the lowest total (section 3.8): the episode's winners once it is over."""
        low = min(self.scores)
        return tuple(s for s, x in enumerate(self.scores) if x == low)

    def slot_of(self, seat: int, train: int) -> int:
        """The slot (section 3.9) by which ``seat`` names absolute train ``train``."""
        return train if train == self.num_players else (train - seat) % self.num_players

    def train_of(self, seat: int, slot: int) -> int:
        """The absolute train that ``seat``'s slot ``slot`` names."""
        return slot if slot == self.num_players else (seat + slot) % self.num_players

    def _spread(self, tiles: int, seat: int, train: int) -> int:
        stride, slot, out = self.num_players + 1, self.slot_of(seat, train), 0
        for t in iter_bits(tiles):
            out |= 1 << (stride * t + slot)
        return out

    def _run_fit(self, hand: int, seat: int) -> int:
        """Tiles an opening run may play next on ``seat``'s own train: a double only with a cover."""
        if self.run_double >= 0:
            return hand & SUIT[self.run_double]
        end = self.ends[seat]
        fit = hand & SUIT[end]
        double = DOUBLE_TILE[end]
        if fit >> double & 1 and not fit & ~(1 << double):
            fit ^= 1 << double
        return fit

    def _legal(self, seat: int) -> int:
        hand = self.hands[seat]
        n = self.num_players
        if self.in_run:
            mask = self._spread(self._run_fit(hand, seat), seat, seat)
            if self.run_played:
                return mask | (0 if self.run_double >= 0 else 1 << self.stop_action)
        elif self.open_doubles:
            train, value = self.open_doubles[0]
            mask = self._spread(hand & SUIT[value], seat, train)
        else:
            mask = self._spread(hand & SUIT[self.ends[seat]], seat, seat)
            if not self.config.own_train_first or self.trains[seat]:
                for train in range(n + 1):
                    if train == n or (train != seat and self.marked[train]):
                        mask |= self._spread(hand & SUIT[self.ends[train]], seat, train)
        if mask:
            return mask
        if self.can_draw and self.boneyard:
            return 1 << self.draw_action
        return 1 << self.pass_action

    def apply(self, action: int, seat: int | None = None) -> None:
        """Play ``action`` (a Python or numpy integer, never a ``bool``) for the seat to act (checked
        against ``seat`` when given). Raises ``IllegalActionError`` naming the move and the legal
        moves; the state is untouched."""
        if (
            not is_int(action)
            or not 0 <= action < self.num_actions
            or not self.legal_mask() >> int(action) & 1
            or (seat is not None and seat != self.current)
        ):
            raise IllegalActionError(self._illegal_message(action, seat))
        action = int(action)
        p = self.current
        self._mask = -1
        self.history.append((p, action))
        self._actions.append(action)
        if action == self.draw_action:
            self.hands[p] |= 1 << self.boneyard.pop(0)
            self.can_draw = False
            self.drew = self.progress = True
        elif action == self.pass_action:
            if not self.marked[p]:
                self.marked[p] = self.progress = True
            self._end_turn()
        elif action == self.stop_action:
            self._end_turn()
        else:
            stride = self.num_players + 1
            self._play(p, action // stride, self.train_of(p, action % stride))

    def _play(self, p: int, t: int, train: int) -> None:
        end = self.ends[train]
        self.hands[p] ^= 1 << t
        self.ends[train] = TILES.other_half(t, end)
        self.trains[train].append((t, p, self.ends[train]))
        self.progress = True
        if not self.hands[p]:
            self._end_round("domino", p)
            return
        if train == p:
            self.marked[p] = False
        double = TILES.low[t] == TILES.high[t]
        if self.in_run:
            self.run_played = True
            self.run_double = end if double else -1
            if not self._run_fit(self.hands[p], p):
                self._end_turn()
        elif self.open_doubles:  # the play covered the oldest open double
            self.open_doubles.pop(0)
            self._lapse_open_doubles()
            self._end_turn()
        elif double and not self._never_covered(end):
            self.can_draw = True  # a fresh draw allowance for the extra play
            if self.config.double_bonus == "cover":
                self.open_doubles.append((train, end))
            else:
                self.turn_doubles.append((train, end))
        else:
            self.turn_doubles = [d for d in self.turn_doubles if d[0] != train]  # covered this turn
            self._end_turn()

    def _never_covered(self, value: int) -> bool:
        """Under ``lapse``: no tile holding ``value`` but its double is left in a hand or the boneyard,
        so a double of ``value`` can never be covered (section 3.4)."""
        if self.config.unsatisfiable_double != "lapse":
            return False
        left = sum(1 << t for t in self.boneyard)
        for h in self.hands:
            left |= h
        return not left & SUIT[value] & ~(1 << DOUBLE_TILE[value])

    def _lapse_open_doubles(self) -> None:
        """*Decided*: under ``lapse`` an open double that covering another has left uncoverable lapses."""
        self.open_doubles = [d for d in self.open_doubles if not self._never_covered(d[1])]

    def _end_turn(self) -> None:
        p, n = self.current, self.num_players
        if self.turn_doubles:  # double_bonus="any": this turn's uncovered doubles open now
            self.open_doubles += self.turn_doubles
            self._lapse_open_doubles()
        self.first_turn_done[p] = True
        self.no_progress = 0 if self.progress else self.no_progress + 1
        if self.no_progress == n:
            self._end_round("blocked", None)
        else:
            self._begin_turn((p + 1) % n)

    # ----- scoring -----------------------------------------------------------------------------
    def _end_round(self, kind: str, out: int | None) -> None:
        points = SCORE_PIPS[BLANK_SCORINGS.index(self.config.blank_scoring)]
        tiles = [list(iter_bits(h)) for h in self.hands]
        pips = tuple(int(TILE_PIPS[ts].sum()) for ts in tiles)
        round_points = tuple(int(points[ts].sum()) for ts in tiles)
        for s, x in enumerate(round_points):
            self.scores[s] += x
        self.results.append(MexicanTrainResult(
            self.round_index, self.engine, self.first_player, kind, out, pips, round_points))
        self._mask = -1
        if self.round_index + 1 == self.config.last_round(self.round_index):
            self._terminal = True
        else:
            self.round_index += 1
            self._start_round(self._random_deal())

    def auto_move(self) -> int:
        """A fixed simple choice: the heaviest playable tile (ties: lowest action id), else stop, else
        draw, else pass."""
        legal = self.legal_mask()
        if not legal:
            raise IllegalActionError("the episode is over: there is no move to make")
        stride, best, best_pips = self.num_players + 1, -1, -1
        for a in iter_bits(legal & ((1 << self.draw_action) - 1)):
            if TILES.pips[a // stride] > best_pips:
                best, best_pips = a, TILES.pips[a // stride]
        if best >= 0:
            return best
        for a in (self.stop_action, self.draw_action):
            if legal >> a & 1:
                return a
        return self.pass_action

    # ----- text --------------------------------------------------------------------------------
    def _actor(self, seat: int | None) -> int:
        if seat is None:
            return 0 if self._terminal else self.current
        if not is_int(seat) or not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be 0..{self.num_players - 1}, got {seat!r}")
        return int(seat)

    def action_to_text(self, action: int, seat: int | None = None) -> str:
        """Section 6 notation for ``seat``'s move (default: the seat to act; seat 0 once over):
        ``"play 5-12 own"``, ``"play 5-12 mexican"``, ``"play 1-6 p2"`` (another seat's train by its
        absolute seat), ``"draw"``, ``"pass"``, ``"stop"``. ``ValueError`` unless ``action`` is an id."""
        action = check_action_id(action, self.num_actions)
        words = {self.draw_action: "draw", self.pass_action: "pass", self.stop_action: "stop"}
        if action in words:
            return words[action]
        p, n = self._actor(seat), self.num_players
        t, slot = divmod(action, n + 1)
        where = "own" if slot == 0 else "mexican" if slot == n else f"p{self.train_of(p, slot)}"
        return f"play {tile_text(t)} {where}"

    def action_from_text(self, text: str, seat: int | None = None) -> int:
        """Inverse of ``action_to_text`` for ``seat`` (default as there); halves in either order,
        ``p<seat>`` naming the actor means its own train. ``ValueError`` for unreadable text,
        ``TypeError`` for anything but a string."""
        words = check_move_text(text).strip().lower().split()
        named = {"draw": self.draw_action, "pass": self.pass_action, "stop": self.stop_action}
        if len(words) == 1 and words[0] in named:
            return named[words[0]]
        n = self.num_players
        if len(words) == 3 and words[0] == "play":
            t = TILES.parse(words[1])
            where = words[2]
            if where == "own":
                return (n + 1) * t
            if where == "mexican":
                return (n + 1) * t + n
            if where[:1] == "p" and where[1:].isdigit() and int(where[1:]) < n:
                return (n + 1) * t + self.slot_of(self._actor(seat), int(where[1:]))
        raise ValueError(
            f"cannot read move {text!r}: write 'play 5-12 own', 'play 5-12 mexican', 'play 1-6 p2' "
            f"(seats 0..{n - 1}), 'draw', 'pass' or 'stop'"
        )

    def render_text(self, seat: int | None = None) -> str:
        """ANSI/plain text of the table: engine, every train with its marker, the open doubles, the
        boneyard, hands (``seat`` hides the others unless ``open_hands``) and scores."""
        n, cfg = self.num_players, self.config
        last = cfg.last_round(self.round_index)
        lines = [f"Mexican Train ({cfg.preset}), round {self.round_index + 1}/{last}, "
                 f"engine {self.engine}-{self.engine}, scores {self.scores}"]
        for train in range(n + 1):
            name = "mexican" if train == n else f"seat {train}"
            mark = " [marker]" if train < n and self.marked[train] else ""
            chain = " ".join(f"[{TILES.other_half(t, end)}|{end}]" for t, _s, end in self.trains[train])
            lines.append(f"{name}{mark}: ({self.engine}) {chain} -> {self.ends[train]}")
        if self.open_doubles:
            lines.append("open doubles: " + ", ".join(
                f"{v}-{v} on {'mexican' if tr == n else f'seat {tr}'}" for tr, v in self.open_doubles))
        lines.append(f"boneyard {len(self.boneyard)}")
        for s, h in enumerate(self.hands):
            visible = seat is None or seat == s or cfg.open_hands
            shown = " ".join(tile_text(t) for t in iter_bits(h)) if visible else f"{h.bit_count()} tiles"
            lines.append(f"{'>' if s == self.current_player else ' '} seat {s}: {shown}")
        if self.results and (self._terminal or not self.history):
            when = "episode over" if self._terminal else "previous round"
            lines.append(f"{when}: {self.results[-1].describe()}")
        return "\n".join(lines)

    # ----- views -------------------------------------------------------------------------------
    def view(self, seat: int) -> MexicanTrainView:
        """What ``seat`` may know (section 5); nothing else reaches encoders or bots."""
        cfg = self.config
        current = None if self._terminal else self.current
        return _new_tuple(MexicanTrainView, (
            cfg,  # config
            seat,  # seat
            self.hands[seat],  # hand
            self.legal_mask() if seat == current else 0,  # legal_mask
            current,  # current_player
            self.round_index,  # round_index
            self.engine,  # engine
            self.engine_holder,  # engine_holder
            self.first_player,  # first_player
            tuple(map(tuple, self.trains)),  # trains
            tuple(self.ends),  # ends
            tuple(self.marked),  # marked
            tuple(self.open_doubles),  # open_doubles
            tuple(self.turn_doubles),  # turn_doubles
            tuple(self.first_turn_done),  # first_turn_done
            self.in_run,  # in_run
            self.drew,  # drew_this_turn
            tuple(map(int.bit_count, self.hands)),  # hand_sizes
            len(self.boneyard),  # boneyard_size
            self.no_progress,  # turns_without_progress
            tuple(self.history),  # history
            tuple(self.scores),  # scores
            tuple(r.round_points for r in self.results),  # round_points
            tuple(self.hands) if cfg.open_hands else None,  # hands
        ))

    # ----- copies and saved games --------------------------------------------------------------
    @classmethod
    def at_position(cls, view: MexicanTrainView, hands: list[list[int]], boneyard: list[int],
                    rng: np.random.Generator) -> MexicanTrainGame:
        """The engine at ``view``'s position holding ``hands`` and ``boneyard`` (drawn from the front),
        ending with the round: a search's sampled world (``bots.mexican_train.sample_world``), set up
        here because it restores the turn's state fields the engine alone knows."""
        game = cls.__new__(cls)
        game._setup(replace(view.config, episode="round"), rng, [0] * view.config.num_players, [],
                    view.round_index)
        game._start_round({
            "hands": hands, "boneyard": boneyard, "first_player": view.current_player,
            "trains": [[tile for tile, _s, _e in train] for train in view.trains],
            "marked": [s for s, marked in enumerate(view.marked) if marked],
        })
        game.trains = [list(train) for train in view.trains]  # with who laid each tile
        game.engine_holder, game.first_player = view.engine_holder, view.first_player
        game.first_turn_done = list(view.first_turn_done)
        game.open_doubles, game.turn_doubles = list(view.open_doubles), list(view.turn_doubles)
        game.no_progress, game.history = view.turns_without_progress, list(view.history)
        game.in_run, game.drew = view.in_run, view.drew_this_turn
        turn = []  # the current turn so far: the tail of the history by the seat to act
        for s, action in reversed(view.history):
            if s != view.current_player:
                break
            turn.append(action)
        for action in reversed(turn):
            game.progress = True  # the turn has played or drawn
            if action == game.draw_action:
                game.can_draw = False
            elif view.in_run:
                tile = action // (view.config.num_players + 1)
                game.run_played = True
                game.run_double = TILES.low[tile] if TILES.is_double(tile) else -1
            else:
                game.can_draw = True  # a play that did not end the turn was a double: a fresh allowance
        game._mask = -1
        return game

    def clone(self) -> MexicanTrainGame:
        """An independent copy (its own generator state too)."""
        new = copy.copy(self)
        for name in ("hands", "boneyard", "ends", "marked", "first_turn_done", "open_doubles", "history",
                     "scores", "results", "_actions", "turn_doubles"):
            setattr(new, name, list(getattr(self, name)))
        new.trains = [list(tr) for tr in self.trains]
        new.rng = copy_generator(self.rng)
        return new

    def to_json(self) -> str:
        """The episode as JSON: rules, generator state, finished rounds, this round's deal and moves."""
        return save_match(self, SAVE_FORMAT, SAVE_VERSIONS, "round_index", self._round_start)

    @classmethod
    def from_json(cls, text: str) -> MexicanTrainGame:
        """Restore ``to_json`` output by replaying the round's moves. Anything else raises
        ``ValueError``: malformed input, another format, or a version not in ``SAVE_VERSIONS``."""
        return load_match(text, SAVE_FORMAT, SAVE_VERSIONS, "round_index", cls._round_from_save,
                          "Mexican Train")

    @classmethod
    def _round_from_save(cls, data: dict) -> MexicanTrainGame:
        """The saved round as dealt, after the saved match so far (a save is untrusted: all is checked)."""
        config = MexicanTrainConfig(**data["config"])
        n = config.num_players
        scores, results, round_index = data["scores"], data["results"], data["round_index"]
        if not (is_int(round_index) and 0 <= round_index < config.rounds):
            raise ValueError(f"'round_index' must be 0..{config.rounds - 1}")
        if not (isinstance(scores, list) and len(scores) == n and all(is_int(x) and x >= 0 for x in scores)):
            raise ValueError(f"'scores' must list {n} non-negative integers")
        first = round_index - len(results) if isinstance(results, list) else -1
        if first < 0 or (config.first_round != "random" and first != config.first_round - 1) or (
                config.episode == "round" and results):
            raise ValueError("'results' must list the finished rounds of the episode, one per round from "
                             "its first round (first_round) to before 'round_index'")
        read = [cls._read_result(first + i, r, n) for i, r in enumerate(results)]
        if [sum(r.round_points[s] for r in read) for s in range(n)] != scores:
            raise ValueError("'scores' are not the sum of the saved round results")
        deal = data["deal"]
        if not isinstance(deal, dict) or not is_int(deal.get("first_player")):
            raise ValueError("the saved deal must name its first_player")
        game = cls.__new__(cls)
        game._setup(config, generator_from_state(data["rng"]), list(scores), read, round_index)
        game._start_round(game._parse_deal(deal))
        return game

    @staticmethod
    def _read_result(index: int, saved: Any, n: int) -> MexicanTrainResult:
        """Saved result of round ``index`` (0-based) with every field checked (a save is untrusted input)."""

        def per_seat(x: Any) -> bool:
            return isinstance(x, list) and len(x) == n and all(is_int(v) and v >= 0 for v in x)

        if not (
            isinstance(saved, dict)
            and set(saved) == set(MexicanTrainResult.__dataclass_fields__)
            and is_int(saved["round_index"]) and saved["round_index"] == index
            and is_int(saved["engine"]) and saved["engine"] == engine_value(index)
            and is_int(saved["first_player"]) and 0 <= saved["first_player"] < n
            and (saved["kind"], saved["out"] is None) in (("domino", False), ("blocked", True))
            and (saved["out"] is None or (is_int(saved["out"]) and 0 <= saved["out"] < n))
            and per_seat(saved["pips"]) and per_seat(saved["round_points"])
        ):
            raise ValueError(
                f"saved round result {index} is not a round result "
                "(round_index, engine, first_player, kind, out, pips, round_points)"
            )
        return MexicanTrainResult(index, engine_value(index), int(saved["first_player"]), saved["kind"],
                                  saved["out"], tuple(saved["pips"]), tuple(saved["round_points"]))
