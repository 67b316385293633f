"""All Fives (Muggins) and Fives and Threes (RULES-new-games.md sections 2, 4, 5, 6, 8) as one pure engine.

Both games lay double-six tiles on a layout whose open ends are added up after every play (the
**count**) and score at once when the count is a multiple of five (All Fives) or of three or five
(Fives and Threes). All Fives adds a **spinner** (the first double, built on from four sides), a
stock to draw from and end-of-hand points; Fives and Threes is a Block game with a chip-out bonus.

The layout is kept as a **centre** (the spinner once there is one, else the lead tile) and four
**arms** W, E, N, S (index 0..3) listed from the centre outward. Hands and the tiles on the table
are ``int`` bit sets over the canonical tile index, as in ``rules/line.py``.

Action ids: All Fives ``4*t + e`` (tile ``t`` on end ``e``: 0 W, 1 E, 2 N, 3 S), 112 draw, 113 pass
(114 actions); Fives and Threes ``2*t + e`` (0 left/W, 1 right/E), 56 draw (never legal), 57 pass
(58 actions). The per-tile and per-action tables below are numpy arrays a batched engine can reuse.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from typing import Any, NamedTuple

import numpy as np

from domino_env.rules.conventions import (
    CachedMoves,
    check_action_id,
    check_choice,
    check_generator,
    check_move_text,
    copy_generator,
    is_int,
    load_match,
    parse_hands_stock_leader,
    save_match,
)
from domino_env.rules.errors import IllegalActionError
from domino_env.rules.line import game_from_save, highest_double_holder, lead_rank
from domino_env.rules.tiles import DOUBLE_SIX, iter_bits

VARIANTS = ("all_fives", "fives_and_threes")
PRESETS = ("standard", "classic")
SPINNERS = ("first_double", "none")
DRAW_POLICIES = ("must_play", "may_draw")
LEAD_RULES = ("lot_any", "highest_double")
NEXT_LEADERS = ("winner", "rotate")
DOUBLE_COUNTS = ("both_halves", "one_half")
HAND_ROUNDINGS = ("nearest5", "exact")
BLOCKED_SCORINGS = ("others", "others_minus_own")
SCORE_UNITS = ("points", "fives")
TARGET_CHECKS = ("immediate", "end_of_hand")
END_NAMES = ("west", "east", "north", "south")
LINE_END_NAMES = ("left", "right")  # Fives and Threes writes these; both games read either
EXACT_61 = "exact_61"
MAX_TARGET_SCORE = 1000
SAVE_FORMAT = "domino-env/fives"
SAVE_VERSIONS = (1,)
_PRESET_TARGET = "preset"

# ----- tables a batched engine can reuse (double-six, canonical index) ------------------------------
NUM_TILES = DOUBLE_SIX.num_tiles
TILE_LOW = np.array(DOUBLE_SIX.low, dtype=np.int8)
TILE_HIGH = np.array(DOUBLE_SIX.high, dtype=np.int8)
TILE_PIPS = np.array(DOUBLE_SIX.pips, dtype=np.int16)
TILE_IS_DOUBLE = TILE_LOW == TILE_HIGH
END_STRIDE = {"all_fives": 4, "fives_and_threes": 2}  # play actions per tile
NUM_ACTIONS = {variant: stride * NUM_TILES + 2 for variant, stride in END_STRIDE.items()}  # 114, 58
ACTION_TILE = {g: np.arange(s * NUM_TILES, dtype=np.int16) // s for g, s in END_STRIDE.items()}
ACTION_END = {g: np.arange(s * NUM_TILES, dtype=np.int16) % s for g, s in END_STRIDE.items()}
# Largest count a layout can show: All Fives 12 + 10 + 8 + 6 (three doubles at arm ends, the spinner
# covered, a 6 at the fourth end); Fives and Threes 12 + 10 (two ends). The tables run to 48 (4 * 12).
MAX_COUNT = {"all_fives": 36, "fives_and_threes": 22}
_COUNTS = np.arange(49)
# Points a count scores (in points; score_unit="fives" divides All Fives' by 5).
COUNT_POINTS = {
    "all_fives": np.where((_COUNTS > 0) & (_COUNTS % 5 == 0), _COUNTS, 0).astype(np.int16),
    "fives_and_threes": (np.where(_COUNTS % 5 == 0, _COUNTS // 5, 0)
                         + np.where(_COUNTS % 3 == 0, _COUNTS // 3, 0)).astype(np.int16),
}
_POINTS = {g: tuple(a.tolist()) for g, a in COUNT_POINTS.items()}
_LOW, _HIGH, _PIPS = DOUBLE_SIX.low, DOUBLE_SIX.high, DOUBLE_SIX.pips
_SUIT = DOUBLE_SIX.suit_mask
# _SPREAD_BYTES[stride][i][b]: the end-0 play actions of the tiles 8i..8i+7 set in byte value b, so a
# tile set's actions on an end are four lookups (the legal mask is rebuilt after every move).
_SPREAD_BYTES = {
    stride: tuple(
        tuple(sum(1 << stride * (8 * i + k) for k in range(8) if b >> k & 1) for b in range(256))
        for i in range(4)
    )
    for stride in set(END_STRIDE.values())
}

# Hand sizes by (variant/preset, players): RULES-new-games.md 2.1 and 4.1.
_HAND_SIZE = {
    "standard": {2: 9, 3: 7, 4: 5},
    "classic": {2: 7, 3: 5, 4: 5},
    "fives_and_threes": {2: 7, 3: 5, 4: 5},
}
_ALL_FIVES_DEFAULTS: dict[str, Any] = {
    "spinner": "first_double", "draw_policy": "must_play", "draw_reserve": 0, "lead_rule": "lot_any",
    "next_leader": "winner", "double_count": "both_halves", "hand_rounding": "nearest5",
    "blocked_scoring": "others", "score_unit": "points", "target_check": "immediate",
}
_FIVES_THREES_DEFAULTS: dict[str, Any] = {"chip_out_bonus": 1, "exact_target": False}
_CHOICES = {
    "spinner": SPINNERS, "draw_policy": DRAW_POLICIES, "lead_rule": LEAD_RULES, "next_leader": NEXT_LEADERS,
    "double_count": DOUBLE_COUNTS, "hand_rounding": HAND_ROUNDINGS, "blocked_scoring": BLOCKED_SCORINGS,
    "score_unit": SCORE_UNITS, "target_check": TARGET_CHECKS,
}


@dataclass(frozen=True)
class FivesConfig:
    """Every option of RULES-new-games.md 2.1 (All Fives) and 4.1 (Fives and Threes).

    ``None`` takes the preset's (or variant's) default; options of the other game must stay ``None``
    and stay ``None`` after construction, so ``FivesConfig(**asdict(cfg)) == cfg``. ``teams=None``
    means partnerships with four players (both games' default; ``classic`` plays four alone).
    ``target_score="exact_61"`` (Fives and Threes) is ``target_score=61, exact_target=True``;
    ``None`` plays a single hand. With ``score_unit="fives"`` the target is counted in fives.
    """

    variant: str = "all_fives"
    num_players: int = 2
    teams: bool | None = None
    preset: str = "standard"
    hand_size: int | None = None
    spinner: str | None = None
    draw_policy: str | None = None
    draw_reserve: int | None = None
    lead_rule: str | None = None
    next_leader: str | None = None
    double_count: str | None = None
    hand_rounding: str | None = None
    blocked_scoring: str | None = None
    score_unit: str | None = None
    target_score: int | str | None = _PRESET_TARGET
    target_check: str | None = None
    chip_out_bonus: int | None = None
    exact_target: bool | None = None
    open_hands: bool = False

    def __post_init__(self) -> None:
        check_choice("variant", self.variant, VARIANTS)
        check_choice("preset", self.preset, PRESETS)
        if not is_int(self.num_players) or self.num_players not in (2, 3, 4):
            raise ValueError(f"num_players must be 2, 3 or 4, got {self.num_players!r}")
        object.__setattr__(self, "num_players", int(self.num_players))
        if self.teams is None:
            object.__setattr__(self, "teams", self.num_players == 4 and self.preset == "standard")
        for flag in ("teams", "open_hands"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        if self.teams and self.num_players != 4:
            raise ValueError(f"teams need exactly 4 players, got num_players={self.num_players}")
        five_and_three = self.variant == "fives_and_threes"
        self._fill_defaults(five_and_three)
        if not is_int(self.hand_size) or self.hand_size < 1:
            raise ValueError(f"hand_size must be a positive integer, got {self.hand_size!r}")
        dealt = self.hand_size * self.num_players
        if dealt > NUM_TILES:
            raise ValueError(
                f"{self.num_players} hands of {self.hand_size} need {dealt} tiles but the double-six set "
                f"holds {NUM_TILES} (n * hand_size <= 28)"
            )
        target = self.target_score
        if target is not None and (not is_int(target) or not 1 <= target <= MAX_TARGET_SCORE):
            extra = ", 'exact_61'" if five_and_three else ""
            raise ValueError(
                f"target_score must be an integer 1..{MAX_TARGET_SCORE}{extra} or None (one hand), "
                f"got {target!r}"
            )
        if five_and_three:
            self._check_fives_and_threes()
        else:
            self._check_all_fives(dealt)
        for name in ("hand_size", "draw_reserve", "target_score", "chip_out_bonus"):
            if is_int(getattr(self, name)):
                object.__setattr__(self, name, int(getattr(self, name)))

    def _fill_defaults(self, five_and_three: bool) -> None:
        """Refuse the other game's options, then give every unset option its default."""
        if five_and_three:
            self._check_unset(_ALL_FIVES_DEFAULTS, "Fives and Threes", "all_fives")
            if self.preset != "standard":
                raise ValueError(f"Fives and Threes has only the preset 'standard', got {self.preset!r}")
            if self.target_score == EXACT_61:
                if self.exact_target is not None:
                    raise ValueError("target_score='exact_61' sets exact_target already; leave it unset")
                object.__setattr__(self, "target_score", 61)
                object.__setattr__(self, "exact_target", True)
            defaults = dict(_FIVES_THREES_DEFAULTS)
            sizes = _HAND_SIZE["fives_and_threes"]
        else:
            self._check_unset(_FIVES_THREES_DEFAULTS, "All Fives", "fives_and_threes")
            defaults = dict(_ALL_FIVES_DEFAULTS)
            sizes = _HAND_SIZE[self.preset]
        defaults["hand_size"] = sizes[self.num_players]
        for name, value in defaults.items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)
        if self.target_score == _PRESET_TARGET:
            object.__setattr__(self, "target_score", 61 if five_and_three else 100)
        if not five_and_three:
            for name, allowed in _CHOICES.items():
                check_choice(name, getattr(self, name), allowed)

    def _check_unset(self, options: Mapping[str, Any], title: str, other: str) -> None:
        for name in options:
            if getattr(self, name) is not None:
                raise ValueError(f"{name} is an option of variant={other!r}, not of {title}; leave it None")

    def _check_all_fives(self, dealt: int) -> None:
        reserve, stock = self.draw_reserve, NUM_TILES - dealt
        if not is_int(reserve) or reserve < 0:
            raise ValueError(f"draw_reserve must be a non-negative integer, got {reserve!r}")
        if reserve > 0 and reserve >= stock:
            raise ValueError(
                f"draw_reserve={reserve} must be 0 or smaller than the stock of {stock} tiles "
                f"({self.num_players} hands of {self.hand_size})"
            )
        if self.score_unit == "fives" and self.hand_rounding == "exact":
            raise ValueError(
                "score_unit='fives' needs hand_rounding='nearest5' (exact hand counts are not whole fives)"
            )

    def _check_fives_and_threes(self) -> None:
        if not is_int(self.chip_out_bonus) or self.chip_out_bonus not in (0, 1):
            raise ValueError(f"chip_out_bonus must be 0 or 1, got {self.chip_out_bonus!r}")
        if not isinstance(self.exact_target, bool):
            raise ValueError(f"exact_target must be True or False, got {self.exact_target!r}")
        if self.exact_target and self.target_score is None:
            raise ValueError("exact_target needs a target_score (it cannot apply to a single hand)")

    @classmethod
    def make(cls, one_round: bool = False, **options: Any) -> FivesConfig:
        """The config of ``options``, every one checked; ``one_round=True`` then plays a single hand
        (``target_score=None``, and no exact target), as the envs' ``episode="round"`` does."""
        config = cls(**options)
        if not one_round:
            return config
        exact = False if config.variant == "fives_and_threes" else None
        return replace(config, target_score=None, exact_target=exact)

    @property
    def is_all_fives(self) -> bool:
        return self.variant == "all_fives"

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS[self.variant]

    @property
    def drawable_stock(self) -> int:
        """Tiles a dealt hand lets players draw (All Fives: the stock less the reserve; else 0)."""
        if not self.is_all_fives:
            return 0
        return NUM_TILES - self.hand_size * self.num_players - self.draw_reserve

    @property
    def max_decisions(self) -> int:
        """Most decisions one dealt hand can take (a bound). Plays: at most ``P`` = dealt + drawable
        tiles; draws at most the drawable stock ``S``; passes at most ``n - 1`` between two plays and
        ``n`` after the last, so ``P(n - 1) + 1``. In all ``nP + S + 1``."""
        drawable = self.drawable_stock
        plays = self.hand_size * self.num_players + drawable
        return self.num_players * plays + drawable + 1

    @property
    def max_play_points(self) -> int:
        """Most one play can score (the largest entry of the count table, in the score unit)."""
        top = int(COUNT_POINTS[self.variant][:MAX_COUNT[self.variant] + 1].max())
        return top // 5 if self.score_unit == "fives" else top

    @property
    def max_round_points(self) -> int:
        """Most points one side can score in a hand (a bound): every play at the top of the count
        table, plus the end-of-hand points (All Fives: every pip rounded up; F&T: the bonus)."""
        dealt = self.hand_size * self.num_players
        plays = dealt + self.drawable_stock
        if self.is_all_fives:
            hand = _round5(DOUBLE_SIX.total_pips)
            hand = hand // 5 if self.score_unit == "fives" else hand
        else:
            hand = self.chip_out_bonus
        return plays * self.max_play_points + hand

    @property
    def num_sides(self) -> int:
        """Scoring sides: two teams, or one per player."""
        return 2 if self.teams else self.num_players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.teams else seat


def _round5(x: int) -> int:
    """The multiple of five nearest to ``x`` (remainders 1-2 down, 3-4 up)."""
    return 5 * ((x + 2) // 5)


@dataclass(frozen=True)
class FivesResult:
    """How a hand ended. ``kind`` is ``"domino"`` (a player went out; with F&T teams the second
    partner), ``"blocked"``, or ``"target"`` (the match ended during play at the target, the hand
    abandoned). Per-seat tuples give what seat ``i``'s side scored (partners alike)."""

    leader: int
    kind: str
    winners: tuple[int, ...]  # seats credited with the end-of-hand win; () when none
    pips: tuple[int, ...]  # pips left in each hand
    play_points: tuple[int, ...]  # scored during play (the count)
    hand_points: tuple[int, ...]  # scored at the end (All Fives hand counts, F&T chip-out bonus)

    @property
    def points(self) -> tuple[int, ...]:
        return tuple(a + b for a, b in zip(self.play_points, self.hand_points, strict=True))

    def describe(self) -> str:
        """One line for people: how the hand ended, pips left and points per seat."""
        seats = ", ".join(str(s) for s in self.winners)
        how = {
            "domino": f"seat {seats} went out" if self.winners else "a player went out",
            "blocked": f"blocked, fewest pips: seat {seats}" if self.winners else "blocked, nobody scores",
            "target": "the target was reached during play",
        }[self.kind]
        return f"{how}; pips left {list(self.pips)}; hand points {list(self.points)}"


class FivesView(NamedTuple):
    """What seat ``seat`` may know (RULES-new-games.md 5). Hands are bit sets.

    ``centre`` and the entries of ``arms`` (W, E, N, S, each from the centre outward) are records
    ``(tile, seat, when, inner, outer)``: who played the tile, its play number in the hand and the
    halves facing the centre and away from it (the centre: its W and E halves). ``spinner`` is the
    spinner's tile (-1 if none) and ``spinner_sides`` how many of its W/E sides hold a tile.
    ``open_ends`` gives each end's value, -1 when it is not open. ``history`` lists this hand's
    events ``(seat, action, points, open_ends)`` with the ends *before* the event; a draw is the
    draw action, never the tile. ``hands`` is every hand only with ``open_hands``.
    """

    config: FivesConfig
    seat: int
    team: int | None
    hand: int
    legal_mask: int
    current_player: int | None
    leader: int
    hand_index: int
    centre: tuple[int, int, int, int, int] | None
    arms: tuple[tuple[tuple[int, int, int, int, int], ...], ...]
    spinner: int
    spinner_sides: int
    open_ends: tuple[int, int, int, int]
    count: int
    hand_sizes: tuple[int, ...]
    stock_size: int
    drawable: int
    reserve: int
    out_of_play: int
    passes_in_row: int
    history: tuple[tuple[int, int, int, tuple[int, int, int, int]], ...]
    scores: tuple[int, ...]
    hands: tuple[int, ...] | None = None


_new_tuple = tuple.__new__
_LIST_FIELDS = (
    "hands", "stock", "ends", "end_double", "history", "scores", "play_points", "results", "_actions",
)


class FivesGame(CachedMoves):
    """An All Fives or Fives and Threes match (one or more hands) between ``num_players`` seats."""

    def __init__(self, config: FivesConfig, rng: np.random.Generator, deal: Mapping[str, Any] | None = None):
        """Start a match. ``rng`` (a ``numpy.random.Generator``, else ``TypeError``) is the only source
        of randomness. ``deal`` (``hands``, optional ``stock`` drawn from the front (All Fives),
        optional ``leader``) sets up the first hand exactly; later hands are shuffled from ``rng``."""
        self.config = config
        self.num_players = config.num_players
        self.num_actions = config.num_actions
        self.stride = END_STRIDE[config.variant]
        self.draw_action = self.stride * NUM_TILES
        self.pass_action = self.draw_action + 1
        self._points = _POINTS[config.variant]
        self.rng = check_generator(rng)
        self.scores = [0] * self.num_players
        self.results: list[FivesResult] = []
        self.hand_index = 0
        self._terminal = False
        if deal is None:
            hands, stock = self._random_deal()
            self._start_hand(hands, stock, None)
        else:
            self._start_hand(*self._parse_deal(deal))

    # ----- dealing -----------------------------------------------------------------------------
    def _random_deal(self) -> tuple[list[int], list[int]]:
        order = self.rng.permutation(NUM_TILES).tolist()
        k = self.config.hand_size
        hands = [order[i * k:(i + 1) * k] for i in range(self.num_players)]
        return hands, order[k * self.num_players:] if self.config.is_all_fives else []

    def _parse_deal(self, deal: Mapping[str, Any]) -> tuple[list[list[int]], list[int], int | None]:
        no_stock = "Fives and Threes has no stock (undealt tiles are out of play): omit 'stock'"
        return parse_hands_stock_leader(deal, DOUBLE_SIX, self.num_players,
                                        None if self.config.is_all_fives else no_stock)

    def _next_leader(self) -> int:
        """2.4 / 4.1: the first hand by ``lead_rule``; later hands by ``next_leader`` (F&T rotates)."""
        cfg, n = self.config, self.num_players
        if not self.results:
            if cfg.lead_rule == "highest_double":
                return highest_double_holder(DOUBLE_SIX, self.hands)
            return int(self.rng.integers(n))
        last = self.results[-1]
        if cfg.is_all_fives and cfg.next_leader == "winner":
            return last.winners[0] if last.kind == "domino" else int(self.rng.integers(n))
        return (self.leader + 1) % n

    def _start_hand(self, hands: list[list[int]], stock: list[int], leader: int | None) -> None:
        self.hands = [sum(1 << t for t in h) for h in hands]
        self.stock = list(stock)
        in_hands = 0
        for h in self.hands:
            in_hands |= h
        self.out_of_play = DOUBLE_SIX.full_mask & ~in_hands & ~sum(1 << t for t in self.stock)
        if leader is None:
            leader = self._next_leader()
        self.leader = self.current = leader
        self.table = 0  # bit set of the tiles on the table
        self.plays = 0
        self.centre: tuple[int, int, int, int, int] | None = None
        self.arms: list[list[tuple[int, int, int, int, int]]] = [[], [], [], []]
        self.spinner = -1
        self.ends = [-1, -1, -1, -1]
        self.end_double = [False] * 4  # the outermost tile of that end is a double (not the spinner)
        self.count = 0
        self.passes = 0
        self.history: list[tuple[int, int, int, tuple[int, int, int, int]]] = []
        self.play_points = [0] * self.num_players
        self._mask = -1
        self._deal = {"hands": [list(h) for h in hands], "stock": list(self.stock), "leader": leader}
        self._actions: list[int] = []
        self._hand_start = (list(self.scores), len(self.results))

    # ----- protocol ----------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self._terminal else self.current

    @property
    def is_terminal(self) -> bool:
        return self._terminal

    @property
    def drawable(self) -> int:
        """Stock tiles players may still draw (the reserve is never drawn)."""
        if not self.stock or not self.config.is_all_fives:
            return 0
        return max(0, len(self.stock) - self.config.draw_reserve)

    @property
    def spinner_sides(self) -> int:
        """How many of the spinner's W/E sides hold a tile (0 without a spinner)."""
        return (bool(self.arms[0]) + bool(self.arms[1])) if self.spinner >= 0 else 0

    def open_ends(self) -> tuple[int, int, int, int]:
        """Each end's value where a tile may be placed, -1 where none may (2.2)."""
        if not self.table:
            return (-1, -1, -1, -1)
        e = self.ends
        if self.spinner >= 0 and self.arms[0] and self.arms[1]:
            return (e[0], e[1], e[2], e[3])
        return (e[0], e[1], -1, -1)

    def _layout_count(self) -> int:
        """2.3 (and 4.2): the count of the layout now; 0 on an empty table. Kept in ``count``, which
        only a play changes, because every view reads it."""
        if self.plays <= 1:
            return _PIPS[self.centre[0]] if self.centre else 0
        both = self.config.double_count != "one_half"
        total = 0
        for e in range(4):
            if self.spinner < 0 and e > 1:
                break
            if self.spinner >= 0 and not self.arms[e]:
                continue
            total += self.ends[e] * (2 if self.end_double[e] and both else 1)
        if self.spinner >= 0 and not (self.arms[0] and self.arms[1]):
            total += 2 * _LOW[self.spinner]
        return total

    def _forced_lead(self, seat: int) -> int:
        """The tile the first hand's leader must lead under ``highest_double`` (2.4, 8.5); else -1."""
        if self.config.lead_rule != "highest_double" or self.results or self.hand_index:
            return -1
        return max(iter_bits(self.hands[seat]), key=lambda t: lead_rank(DOUBLE_SIX, t))

    def _spread(self, tiles: int, end: int) -> int:
        """The play actions of every tile in ``tiles`` on ``end``."""
        first, second, third, fourth = _SPREAD_BYTES[self.stride]
        return (first[tiles & 255] | second[tiles >> 8 & 255] | third[tiles >> 16 & 255]
                | fourth[tiles >> 24]) << end

    def _legal(self, seat: int) -> int:
        hand = self.hands[seat]
        if not self.table:
            forced = self._forced_lead(seat)
            return self._spread(1 << forced if forced >= 0 else hand, 0)
        mask = playable = 0
        for e, v in enumerate(self.open_ends()):
            if v >= 0:
                fit = hand & _SUIT[v]
                if fit:
                    playable |= fit
                    mask |= self._spread(fit, e)
        if (not playable or self.config.draw_policy == "may_draw") and self.drawable:
            mask |= 1 << self.draw_action
        elif not playable:
            mask |= 1 << self.pass_action
        return mask

    def apply(self, action: int, seat: int | None = None) -> None:
        """Play ``action`` (a Python or numpy integer, never a ``bool``) for the seat to act (checked
        against ``seat`` when given). Raises ``IllegalActionError`` naming the move and the legal
        moves; the state is untouched."""
        if type(action) is not int:
            if not is_int(action):
                raise IllegalActionError(self._illegal_message(action, seat))
            action = int(action)
        if (
            not 0 <= action < self.num_actions
            or not self.legal_mask() >> action & 1
            or (seat is not None and seat != self.current)
        ):
            raise IllegalActionError(self._illegal_message(action, seat))
        s = self.current
        self._mask = -1
        self._actions.append(action)
        ends_before = self.open_ends()
        if action == self.draw_action:
            self.history.append((s, action, 0, ends_before))
            self.hands[s] |= 1 << self.stock.pop(0)
            return
        if action == self.pass_action:
            self.history.append((s, action, 0, ends_before))
            self.passes += 1
            if self.passes >= sum(1 for h in self.hands if h):
                self._end_hand("blocked", s)
            else:
                self.current = self._next_seat(s)
            return
        t, e = divmod(action, self.stride)
        self._place(t, e, s)
        self.count = self._layout_count()
        self.hands[s] ^= 1 << t
        self.passes = 0
        points = self._award(s, self._points[self.count], self.play_points)
        self.history.append((s, action, points, ends_before))
        if self._terminal:
            self._finish("target", ())
        elif not self.hands[s] and self._hand_over(s):
            self._end_hand("domino", s)
        else:
            self.current = self._next_seat(s)

    def _next_seat(self, s: int) -> int:
        """The next seat still holding tiles (F&T teams skip a partner who chipped out)."""
        n = self.num_players
        for k in range(1, n + 1):
            if self.hands[(s + k) % n]:
                return (s + k) % n
        return s

    def _hand_over(self, s: int) -> bool:
        """Whether ``s`` going out ends the hand: always, except in F&T teams until both partners are out."""
        cfg = self.config
        return cfg.is_all_fives or not cfg.teams or not self.hands[(s + 2) % 4]

    def _place(self, t: int, e: int, s: int) -> None:
        """Lay tile ``t`` on end ``e`` (2.2): the lead, a new spinner, or a tile at the end of an arm."""
        low, high = _LOW[t], _HIGH[t]
        when = self.plays
        self.plays += 1
        self.table |= 1 << t
        spins = self.config.spinner == "first_double" and low == high and self.spinner < 0
        if self.centre is None:
            self.centre = (t, s, when, low, high)
            if spins:
                self.spinner = t
                self.ends = [low] * 4
            else:
                self.ends = [low, high, -1, -1]
                self.end_double = [low == high, low == high, False, False]
            return
        if spins:  # the line so far becomes the arm on the spinner's covered side
            other = 1 - e
            c = self.centre
            centre = c if e == 0 else (c[0], c[1], c[2], c[4], c[3])
            flipped = [(r[0], r[1], r[2], r[4], r[3]) for r in reversed(self.arms[e])]
            self.arms[other] = [*flipped, centre, *self.arms[other]]
            self.arms[e] = []
            self.centre = (t, s, when, low, high)
            self.spinner = t
            self.ends[e] = self.ends[2] = self.ends[3] = low
            self.end_double[e] = False
            return
        v = self.ends[e]
        outer = high if low == v else low
        self.arms[e].append((t, s, when, v, outer))
        self.ends[e] = outer
        self.end_double[e] = low == high

    def _award(self, seat: int, points: int, ledger: list[int]) -> int:
        """Credit ``points`` (in points) to ``seat``'s side, in the score unit; returns what was
        credited. Ends the match when the side reaches the target (2.7 immediate; F&T always)."""
        cfg = self.config
        if cfg.score_unit == "fives":
            points //= 5
        if not points:
            return 0
        target = cfg.target_score
        if cfg.exact_target and self.scores[seat] + points > target:
            return 0  # 4.3 F4: a score passing an exact 61 is not counted
        side = cfg.side_of(seat)
        for i in range(self.num_players):
            if cfg.side_of(i) == side:
                self.scores[i] += points
                ledger[i] += points
        if target is not None and cfg.target_check != "end_of_hand" and self.scores[seat] >= target:
            self._terminal = True
        return points

    def _end_hand(self, kind: str, last_seat: int) -> None:
        """2.5 / 4.2: end-of-hand points, then the match check and the next hand."""
        cfg = self.config
        hand_points = [0] * self.num_players
        winners: tuple[int, ...] = (last_seat,) if kind == "domino" else ()
        if not cfg.is_all_fives:  # the chip-out bonus; a blocked hand scores nothing
            if winners:
                self._award(last_seat, cfg.chip_out_bonus, hand_points)
            self._finish(kind, winners, hand_points)
            return
        pips = [DOUBLE_SIX.mask_pips(h) for h in self.hands]
        if kind == "blocked":  # the strictly lowest hand, or partners sharing it
            low = min(pips)
            winners = tuple(s for s, p in enumerate(pips) if p == low)
            if len({cfg.side_of(s) for s in winners}) > 1:
                winners = ()
        if winners:
            side = cfg.side_of(winners[0])
            won = sum(p for s, p in enumerate(pips) if cfg.side_of(s) != side)  # the partner's hand: not
            if kind == "blocked" and cfg.blocked_scoring == "others_minus_own":
                won -= pips[winners[0]]
            self._award(winners[0], _round5(won) if cfg.hand_rounding == "nearest5" else won, hand_points)
        self._finish(kind, winners, hand_points)

    def _finish(self, kind: str, winners: tuple[int, ...], hand_points: list[int] | None = None) -> None:
        """Record the hand; end the match or deal the next hand."""
        cfg = self.config
        pips = tuple(DOUBLE_SIX.mask_pips(h) for h in self.hands)
        hand = tuple(hand_points) if hand_points else (0,) * self.num_players
        self.results.append(FivesResult(self.leader, kind, winners, pips, tuple(self.play_points), hand))
        target = cfg.target_score
        if not self._terminal:
            if target is None:
                self._terminal = True
            elif cfg.target_check == "end_of_hand" and max(self.scores) >= target:
                top = max(self.scores)
                leaders = {cfg.side_of(s) for s in range(self.num_players) if self.scores[s] == top}
                self._terminal = len(leaders) == 1  # 2.7: a shared top total plays another hand
        if not self._terminal:
            self.hand_index += 1
            hands, stock = self._random_deal()
            self._start_hand(hands, stock, None)

    def auto_move(self) -> int:
        """A default move (as ``LineGame.auto_move``): the heaviest playable tile (ties: lowest action
        id) on its first legal end, else draw if allowed, else pass."""
        legal = self.legal_mask()
        if not legal:
            raise IllegalActionError("the match is over: there is no move to make")
        best, best_pips = -1, -1
        for a in iter_bits(legal & ((1 << self.draw_action) - 1)):
            if _PIPS[a // self.stride] > best_pips:
                best, best_pips = a, _PIPS[a // self.stride]
        if best >= 0:
            return best
        return self.draw_action if legal >> self.draw_action & 1 else self.pass_action

    # ----- text --------------------------------------------------------------------------------
    @property
    def _end_names(self) -> tuple[str, ...]:
        return END_NAMES if self.config.is_all_fives else LINE_END_NAMES

    def action_to_text(self, action: int) -> str:
        """Section 6 notation (a tile low half first, 8.12): ``"play 3-5 east"`` (All Fives),
        ``"play 3-6 left"`` (Fives and Threes), ``"draw"``, ``"pass"``; ``ValueError`` unless
        ``action`` is an action id (a Python or numpy integer, not a ``bool``)."""
        action = check_action_id(action, self.num_actions)
        if action == self.draw_action:
            return "draw"
        if action == self.pass_action:
            return "pass"
        t, e = divmod(action, self.stride)
        return f"play {_LOW[t]}-{_HIGH[t]} {self._end_names[e]}"

    def action_from_text(self, text: str) -> int:
        """Inverse of ``action_to_text``; halves in either order, ``left``/``right`` or ``west``/``east``
        in both games. Unreadable text raises ``ValueError``, anything but a string ``TypeError``."""
        words = check_move_text(text).strip().lower().split()
        if words == ["draw"]:
            return self.draw_action
        if words == ["pass"]:
            return self.pass_action
        if len(words) == 3 and words[0] == "play":
            end = words[2]
            ends = END_NAMES[:self.stride]
            e = ends.index(end) if end in ends else LINE_END_NAMES.index(end) if end in LINE_END_NAMES else -1
            if e >= 0:
                return self.stride * DOUBLE_SIX.parse(words[1]) + e
        names = "west/east/north/south" if self.stride == 4 else "left/right"
        raise ValueError(f"cannot read move {text!r}: write 'play 5-3 <end>' ({names}), 'draw' or 'pass'")

    def render_text(self, seat: int | None = None) -> str:
        """Plain text of the table: the centre (the spinner in braces) and its arms, the open ends,
        the count and the scores. ``seat`` hides the other hands."""
        cfg = self.config

        def cells(records: list[tuple[int, int, int, int, int]], reverse: bool) -> str:
            shown = [f"[{o}|{i}]" if reverse else f"[{i}|{o}]" for _t, _s, _w, i, o in records]
            return "".join(shown[::-1] if reverse else shown)

        target = cfg.target_score
        lines = [
            f"{cfg.variant} ({cfg.preset}), hand {self.hand_index + 1}, leader seat {self.leader}, "
            f"scores {self.scores}"
            + (f" (target {target}{' exactly' if cfg.exact_target else ''})" if target else "")
        ]
        if self.centre is not None:
            t, _s, _w, a, b = self.centre
            middle = f"{{{a}|{b}}}" if t == self.spinner else f"({a}|{b})"
            lines.append(f"W {cells(self.arms[0], True)}{middle}{cells(self.arms[1], False)} E")
            if self.spinner >= 0:
                lines.append(f"N {cells(self.arms[2], False) or '-'}")
                lines.append(f"S {cells(self.arms[3], False) or '-'}")
            shown = ", ".join(f"{self._end_names[e]} {v}" for e, v in enumerate(self.open_ends()) if v >= 0)
            lines.append(f"open ends: {shown}; count {self.count}")
        if cfg.is_all_fives:
            lines.append(f"stock {len(self.stock)} (drawable {self.drawable})")
        else:
            lines.append(f"out of play {self.out_of_play.bit_count()}")
        for s, h in enumerate(self.hands):
            visible = seat is None or seat == s or cfg.open_hands
            tiles = " ".join(f"{_LOW[t]}-{_HIGH[t]}" for t in iter_bits(h))
            shown = tiles if visible else f"{h.bit_count()} tiles"
            marker = ">" if s == self.current_player else " "
            lines.append(f"{marker} seat {s}: {shown}")
        if self._terminal:
            lines.append(f"match over; last hand: {self.results[-1].describe()}")
        elif self.results and not self.table:
            lines.append(f"previous hand: {self.results[-1].describe()}")
        return "\n".join(lines)

    # ----- views -------------------------------------------------------------------------------
    def view(self, seat: int) -> FivesView:
        """What ``seat`` may know (section 5); nothing else of the state reaches encoders or bots."""
        cfg = self.config
        current = None if self._terminal else self.current
        stock_size, drawable = len(self.stock), self.drawable
        return _new_tuple(FivesView, (
            cfg,  # config
            seat,  # seat
            seat % 2 if cfg.teams else None,  # team
            self.hands[seat],  # hand
            self.legal_mask() if seat == current else 0,  # legal_mask
            current,  # current_player
            self.leader,  # leader
            self.hand_index,  # hand_index
            self.centre,  # centre
            tuple(map(tuple, self.arms)),  # arms
            self.spinner,  # spinner
            self.spinner_sides,  # spinner_sides
            self.open_ends(),  # open_ends
            self.count,  # count
            tuple(map(int.bit_count, self.hands)),  # hand_sizes
            stock_size,  # stock_size
            drawable,  # drawable
            stock_size - drawable,  # reserve
            self.out_of_play.bit_count(),  # out_of_play
            self.passes,  # passes_in_row
            tuple(self.history),  # history
            tuple(self.scores),  # scores
            tuple(self.hands) if cfg.open_hands else None,  # hands
        ))

    # ----- copies and saved games --------------------------------------------------------------
    def clone(self) -> FivesGame:
        """An independent copy (its own generator state too)."""
        new = copy.copy(self)
        for name in _LIST_FIELDS:
            setattr(new, name, list(getattr(self, name)))
        new.arms = [list(a) for a in self.arms]
        new.rng = copy_generator(self.rng)
        return new

    def to_json(self) -> str:
        """The match as JSON: rules, generator state, the current hand's deal and its moves."""
        return save_match(self, SAVE_FORMAT, SAVE_VERSIONS, "hand_index", self._hand_start)

    @classmethod
    def from_json(cls, text: str) -> FivesGame:
        """Restore ``to_json`` output by replaying the hand's moves. Anything else raises
        ``ValueError``: malformed input, another format, or a version not in ``SAVE_VERSIONS``."""
        restore = partial(game_from_save, cls, FivesConfig, "hand_index")
        return load_match(text, SAVE_FORMAT, SAVE_VERSIONS, "hand_index", restore, "fives")

    def _restore_match(self, scores: Any, results: Any, hand_index: Any) -> None:
        n, cfg = self.num_players, self.config
        if not (isinstance(scores, list) and len(scores) == n and all(is_int(x) and x >= 0 for x in scores)):
            raise ValueError(f"'scores' must list {n} non-negative integers")
        if cfg.teams and any(scores[s] != scores[s + 2] for s in range(2)):
            raise ValueError("partners must have equal scores")
        if not isinstance(results, list) or (cfg.target_score is None and results):
            raise ValueError("'results' must list the finished hands (none in one-hand play)")
        self.results = [self._read_result(i, r) for i, r in enumerate(results)]
        if [sum(r.points[s] for r in self.results) for s in range(n)] != scores:
            raise ValueError("'scores' are not the sum of the saved hand results")
        if any(r.kind == "target" for r in self.results):
            raise ValueError("a saved hand ended the match at the target: no hand can follow it")
        immediate = cfg.target_check != "end_of_hand"
        if cfg.target_score is not None and immediate and max(scores) >= cfg.target_score:
            raise ValueError("the saved scores already reach the target: the match ended before this hand")
        if hand_index != len(self.results):
            raise ValueError("'hand_index' must equal the number of finished hands")
        self.scores = list(scores)
        self.hand_index = hand_index
        self._hand_start = (list(scores), len(self.results))

    def _read_result(self, index: int, saved: Any) -> FivesResult:
        """Saved hand result ``index`` with every field checked (a save is untrusted input)."""
        n = self.num_players

        def per_seat(x: Any) -> bool:
            return isinstance(x, list) and len(x) == n and all(is_int(v) and v >= 0 for v in x)

        if not (
            isinstance(saved, dict)
            and set(saved) == set(FivesResult.__dataclass_fields__)
            and is_int(saved["leader"]) and 0 <= saved["leader"] < n
            and saved["kind"] in ("domino", "blocked", "target")
            and isinstance(saved["winners"], list)
            and all(is_int(s) and 0 <= s < n for s in saved["winners"])
            and all(per_seat(saved[k]) for k in ("pips", "play_points", "hand_points"))
        ):
            raise ValueError(
                f"saved hand result {index} is not a hand result "
                "(leader, kind, winners, pips, play_points, hand_points)"
            )
        return FivesResult(saved["leader"], saved["kind"], tuple(saved["winners"]), tuple(saved["pips"]),
                           tuple(saved["play_points"]), tuple(saved["hand_points"]))


# ----- the layout as a player models it (bots and encoders look ahead on it) ---------------------------
class Layout(NamedTuple):
    """What the count and the open ends depend on: the tiles down, the spinner's number (-1: none),
    and per end W, E, N, S its number, whether its outermost tile is a double, whether its arm holds
    a tile. ``place`` follows ``FivesGame._place`` and ``count`` ``FivesGame.count`` (a test checks
    both against the engine), so a bot can look two plays ahead without the hidden hands."""

    plays: int
    lead_pips: int  # the lone lead's pips (0 once a second tile is down)
    spinner: int
    ends: tuple[int, int, int, int]
    doubles: tuple[bool, bool, bool, bool]
    filled: tuple[bool, bool, bool, bool]

    @classmethod
    def of(cls, view: FivesView | FivesGame) -> Layout:
        """The layout of a view (or of an engine: the same public fields, no view built)."""
        if view.centre is None:
            return cls(0, 0, -1, (-1, -1, -1, -1), (False,) * 4, (False,) * 4)
        t, _s, _w, west, east = view.centre
        spinner = _LOW[view.spinner] if view.spinner >= 0 else -1
        ends, doubles = [], []
        for e, arm in enumerate(view.arms):
            if arm:
                ends.append(arm[-1][4])
                doubles.append(arm[-1][3] == arm[-1][4])
            elif spinner >= 0:
                ends.append(spinner)
                doubles.append(False)
            else:
                ends.append((west, east, -1, -1)[e])
                doubles.append(e < 2 and west == east)
        filled = tuple(bool(arm) for arm in view.arms)
        plays = 1 + sum(len(arm) for arm in view.arms)
        return cls(plays, _PIPS[t] if plays == 1 else 0, spinner, tuple(ends), tuple(doubles), filled)  # type: ignore[arg-type]

    def open_ends(self) -> tuple[int, int, int, int]:
        """``FivesGame.open_ends``: N and S once both of the spinner's W and E sides hold a tile."""
        if not self.plays:
            return (-1, -1, -1, -1)
        if self.spinner >= 0 and self.filled[0] and self.filled[1]:
            return self.ends
        return (self.ends[0], self.ends[1], -1, -1)

    def fits(self, t: int) -> list[int]:
        """The ends tile ``t`` can go on (the lead goes on end 0)."""
        if not self.plays:
            return [0]
        return [e for e, v in enumerate(self.open_ends()) if v >= 0 and _SUIT[v] >> t & 1]

    def count(self, double_count: str | None) -> int:
        if self.plays <= 1:
            return self.lead_pips
        both = double_count != "one_half"
        total = 0
        for e in range(4 if self.spinner >= 0 else 2):
            if self.spinner < 0 or self.filled[e]:
                total += self.ends[e] * (2 if self.doubles[e] and both else 1)
        if self.spinner >= 0 and not (self.filled[0] and self.filled[1]):
            total += 2 * self.spinner
        return total

    def place(self, t: int, e: int, spins: bool) -> Layout:
        """The layout after tile ``t`` goes on end ``e``; ``spins``: a first double becomes the spinner."""
        low, high = _LOW[t], _HIGH[t]
        double = low == high
        ends, doubles, filled = list(self.ends), list(self.doubles), list(self.filled)
        spins = spins and double and self.spinner < 0
        if not self.plays:
            if spins:
                return Layout(1, low + high, low, (low,) * 4, (False,) * 4, (False,) * 4)
            lead_ends = (double, double, False, False)
            return Layout(1, low + high, -1, (low, high, -1, -1), lead_ends, (False,) * 4)
        if spins:  # the line so far becomes the arm on the spinner's covered side
            ends[e] = ends[2] = ends[3] = low
            doubles[e], filled[1 - e], filled[e] = False, True, False
            return Layout(self.plays + 1, 0, low, tuple(ends), tuple(doubles), tuple(filled))  # type: ignore[arg-type]
        ends[e] = high if low == ends[e] else low
        doubles[e], filled[e] = double, True
        return Layout(self.plays + 1, 0, self.spinner, tuple(ends), tuple(doubles), tuple(filled))  # type: ignore[arg-type]


def count_points(config: FivesConfig, count: int) -> int:
    """What a count scores, in the config's score unit (``COUNT_POINTS``; ``fives`` divides by 5)."""
    points = int(COUNT_POINTS[config.variant][count])
    return points // 5 if config.score_unit == "fives" else points


def count_points_table(config: FivesConfig) -> np.ndarray:
    """``count_points`` of every count at once (``int64``, indexed by count), for the array programs."""
    return COUNT_POINTS[config.variant].astype(np.int64) // (5 if config.score_unit == "fives" else 1)


def tile_points(layout: Layout, config: FivesConfig) -> tuple[int, ...]:
    """Per tile, the most it scores laid on ``layout`` (-1 where it fits no end)."""
    spins = config.spinner == "first_double"
    return _tile_points(layout, config.variant, config.double_count, config.score_unit == "fives", spins)


@lru_cache(maxsize=1 << 16)
def _tile_points(layout: Layout, game: str, double_count: str | None, fives: bool,
                 spins: bool) -> tuple[int, ...]:
    """``tile_points`` on the rule options it reads. Cached: rollouts and the reply look-ahead meet
    the same layouts again and again."""
    unit = 5 if fives else 1
    table = COUNT_POINTS[game]
    if not layout.plays:  # a lead counts its pips
        return tuple(int(table[_PIPS[u]]) // unit for u in range(DOUBLE_SIX.num_tiles))
    out = [-1] * DOUBLE_SIX.num_tiles
    for e, v in enumerate(layout.open_ends()):
        for u in iter_bits(_SUIT[v] if v >= 0 else 0):
            out[u] = max(out[u], int(table[layout.place(u, e, spins).count(double_count)]) // unit)
    return tuple(out)
