"""Texas 42 (docs/rules.md 3.1-3.9): a pure rules engine over bit sets, with no RL imports.

Three forms of the game share this engine, each a ``Variant`` of precomputed tables chosen by the
config: **42** (four players, seats 0+2 against 1+3, the 28 double-six tiles), **three-player 42**
(``num_players=3``, docs/rules.md 3.7: 0-1 removed, nine tiles each, the bidder alone against the other
two) and **Texas 88** (``preset="texas88"``, docs/rules.md 3.8: six players, 0+2+4 against 1+3+5, two
double-six sets, a kitty of two). A hand is an ``int`` bit set over the variant's *tile ids*: the
canonical double-six index for 42, the same order without 0-1 for three players (ids 0..26), and
``canonical index + 28 * copy`` for 88 (ids 0..55; the second copy is written ``6-4'``).

Every trump call maps to a precomputed *scheme*: the suit each tile leads, the tiles that follow each
suit and a power table (``power[suit_led][tile]``, trumps above every suit, ``-1`` for a tile that
neither follows nor trumps). Legal plays are then ``hand & follow[led] or hand`` and the trick
winner is the running maximum of one list lookup (equal powers keep the earlier tile, so of two
identical 88 tiles the one played first wins).

Action ids (one flat space per variant; no seat inside an id). ``P`` point bids (12 in 42: 30..41;
14 with three players: 30..43; 14 in 88: 60, 62, ..., 86), ``T`` tiles (28, 27, 56):

=========================  ==================================================  ===========
id                         meaning (text of docs/rules.md 3.9)                      42
=========================  ==================================================  ===========
0                          ``pass``                                            0
1 ... P                    ``bid 30`` ... (point bids, low to high)            1-12
P+1 ... P+7                ``bid 1m`` ... ``bid 7m``                           13-19
P+8 ... P+11               ``bid plunge 4m`` ... ``bid plunge 7m``             20-23
P+12 ... P+18              ``trump 0`` ... ``trump 6``                         24-30
P+19, P+20                 ``trump doubles``, ``trump followme``               31, 32
P+21, P+22                 ``nello``, ``sevens``                               33, 34
P+23 ... P+22+T            ``play a-b``: tile id ``t`` is ``PLAY + t``          35-62
P+23+T ... P+22+2T         (88 only) ``discard a-b``: ``DISCARD + t``          -
=========================  ==================================================  ===========

The module constants (``PLAY``, ``TRUMP``, ``NUM_ACTIONS``, ``TILES``, ``COUNT`` ...) are those of
four-player 42, which the batched engine and the bots use; variant-aware code reads
``config.variant``. Ids a variant never allows (Plunge with three players or in 88; follow-me,
Nello and Sevens in 88) keep their place so that every variant shares one layout.

A hand goes bid -> declare -> play (88: bid -> discard -> declare -> play); the bid winner (or,
after Plunge, their partner) declares and leads, so the same seat may act several times in a row.
An all-pass reshake deals again inside the same episode. ``episode="game"`` plays hands until a
team (a player, with three) reaches ``target_marks``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from domino_env.rules.conventions import (
    check_action_id,
    check_choice,
    check_generator,
    check_move_text,
    copy_generator,
    generator_from_state,
    is_int,
    read_save,
)
from domino_env.rules.errors import IllegalActionError
from domino_env.rules.tiles import DOUBLE_SIX, iter_bits

CANONICAL_TILES = DOUBLE_SIX.num_tiles  # 28
MAX_MARKS = 7  # mark bids 1m..7m (the seed's ceiling)
MIN_PLUNGE = 4
NUM_PLUNGE_BIDS = MAX_MARKS - MIN_PLUNGE + 1
PLUNGE_DOUBLES = 4  # docs/rules.md 3.6: only a hand holding four doubles or more may bid Plunge

# Phases of a hand (ids kept from before Texas 88 added its discard phase).
BID, DECLARE, PLAY_PHASE, DONE, DISCARD_PHASE = 0, 1, 2, 3, 4
PHASE_NAMES = ("bid", "declare", "play", "done", "discard")

TRUMP_SUIT, DOUBLES_SUIT = 7, 8  # suit ids beyond the numbers 0..6 (a suit led, a void)
NUM_SUITS = 9

PRESETS = ("standard", "n42pa", "texas88")
ALL_PASS = ("reshake", "forced")
FOLLOW_ME_DOUBLES = ("high", "own_suit")
NELLO_DOUBLES = ("high", "low", "own_suit")
EPISODES = ("hand", "game")
NUM_PLAYERS = (3, 4)  # 42; Texas 88 (6) comes with its preset
MAX_TARGET_MARKS = 100  # a game to at most 100 marks ends in at most 100 scored hands (docs/decisions.md)
SAVE_FORMAT = "domino-env/texas42"
SAVE_VERSIONS = (1,)  # what from_json reads; to_json writes the last (1: the first versioned save)


class RenegeError(IllegalActionError):
    """A renege under rules where it loses the hand (``Texas42Config.renege_loses_hand``).

    ``offender`` is the seat that reneged; ``hand_marks`` is, by seat, what the forfeited hand gives
    (as ``last_result["hand_marks"]``): the contract's marks to every seat of the other side."""

    def __init__(self, message: str, offender: int, hand_marks: list[int]):
        super().__init__(message)
        self.offender = offender
        self.hand_marks = hand_marks


@dataclass(frozen=True)
class Scheme:
    """Suits and ranks under one trump call: ``lead[t]``, ``follow[suit]``, ``power[suit][t]``."""

    lead: tuple[int, ...]
    follow: tuple[int, ...]
    power: tuple[tuple[int, ...], ...]


class Variant:
    """The tables of one form of the game (42, three-player 42, Texas 88), built once and shared.

    Everything a rule needs per tile id or per action id is precomputed here, so the engine only
    indexes: tiles (halves, pips, names, count, suit masks), the action layout (module docstring),
    legal bids over each highest bid, the trump schemes and the Sevens tables. Read-only.
    """

    def __init__(self, num_players: int, texas88: bool):
        self.num_players = num_players
        self.texas88 = texas88
        self.name = "Texas 88" if texas88 else "Texas 42" if num_players == 4 else "Three-player 42"
        # Tiles: the canonical index and copy of every tile id.
        if texas88:
            canonical = [t % CANONICAL_TILES for t in range(2 * CANONICAL_TILES)]
        else:
            removed = DOUBLE_SIX.index(0, 1) if num_players == 3 else -1  # docs/rules.md 3.7
            canonical = [t for t in range(CANONICAL_TILES) if t != removed]
        self.canonical = tuple(canonical)
        self.copy = tuple(t // CANONICAL_TILES for t in range(len(canonical)))
        self.num_tiles = len(canonical)
        self.low = tuple(DOUBLE_SIX.low[c] for c in canonical)
        self.high = tuple(DOUBLE_SIX.high[c] for c in canonical)
        self.pips = tuple(a + b for a, b in zip(self.low, self.high, strict=True))
        self.names = tuple(DOUBLE_SIX.name(c) + "'" * k for c, k in zip(canonical, self.copy, strict=True))
        self._ids = {(c, k): t for t, (c, k) in enumerate(zip(canonical, self.copy, strict=True))}
        self.full_mask = (1 << self.num_tiles) - 1
        self.suit_mask = tuple(
            sum(1 << t for t in range(self.num_tiles) if v in (self.low[t], self.high[t])) for v in range(7)
        )
        self.doubles_mask = sum(1 << t for t in range(self.num_tiles) if self.low[t] == self.high[t])
        # 5-5, 6-4: 10; 5-0, 4-1, 3-2: 5 (35 a set, 70 in 88).
        self.count = tuple(10 if p == 10 else 5 if p == 5 else 0 for p in self.pips)
        self.count_mask = sum(1 << t for t, c in enumerate(self.count) if c)
        # Hands and points.
        self.kitty_size = 2 if texas88 else 0
        self.hand_size = (self.num_tiles - self.kitty_size) // num_players
        self.num_tricks = self.hand_size
        self.trick_value = 2 if texas88 else 1
        self.points_per_hand = sum(self.count) + self.trick_value * self.num_tricks  # 42, 44, 88
        self.lone_bidder = num_players == 3  # the bidder alone against the other two
        self.team_sides = tuple(s % 2 for s in range(num_players))  # the sides with teams
        self.num_sides = 3 if self.lone_bidder else 2  # who holds marks: players, or two teams
        self.partner_offset = 2 if num_players == 4 else 0  # the partner (Plunge, Nello): 42 only
        # Point bids: 30..41 (42), 30..43 (three players), 60, 62, ..., 86 (88).
        self.point_bids = tuple(range(60, 87, 2)) if texas88 else tuple(range(30, self.points_per_hand))
        # Action layout (module docstring).
        self.bid_marks_at = 1 + len(self.point_bids)
        self.bid_plunge = self.bid_marks_at + MAX_MARKS
        self.trump = self.bid_plunge + NUM_PLUNGE_BIDS
        self.trump_doubles = self.trump + 7
        self.trump_followme = self.trump_doubles + 1
        self.nello = self.trump_followme + 1
        self.sevens = self.nello + 1
        self.play = self.sevens + 1
        self.discard = self.play + self.num_tiles if texas88 else -1
        self.num_actions = self.play + self.num_tiles * (2 if texas88 else 1)
        self.num_bid_actions = self.trump
        self.max_decisions = num_players + self.kitty_size + 1 + self.num_tiles - self.kitty_size
        # 88 names a suit 0-6 or doubles only (docs/rules.md 3.8).
        last_call = self.trump_doubles if texas88 else self.trump_followme
        self.declare_mask = sum(1 << a for a in range(self.trump, last_call + 1))
        values = sorted({self.bid_value(a) for a in range(self.num_bid_actions)})
        self.bids_over = {h: self._legal_bids_over(h) for h in values}
        self.plunges_over = {
            h: sum(1 << a for a in range(self.bid_plunge, self.trump) if self.bid_value(a) > h)
            for h in values
        }
        # Trump schemes.
        self.suit_schemes = tuple(self._scheme(v, "high") for v in range(7))
        self.doubles_scheme = self._scheme(TRUMP_SUIT, "high")
        self.no_trump_schemes = {d: self._scheme(None, d) for d in NELLO_DOUBLES}
        # Sevens: distance of a tile's pip total from 7, and the tiles at each distance.
        self.sevens_distance = tuple(abs(p - 7) for p in self.pips)
        self.sevens_masks = tuple(
            sum(1 << t for t, d in enumerate(self.sevens_distance) if d == k) for k in range(8)
        )
        self.sevens_power = tuple(10 - d for d in self.sevens_distance)
        self.action_text = self._action_texts()
        self._text_action = {text: a for a, text in enumerate(self.action_text) if a < self.play}

    # ----- tiles ---------------------------------------------------------------------------------
    def tile_names(self, mask: int) -> list[str]:
        return [self.names[t] for t in iter_bits(mask)]

    def parse_tile(self, text: str) -> int:
        """Tile id from text such as ``"6-4"``, ``"4-6"`` or (88) ``"6-4'"``; raises ``ValueError``."""
        words = text.strip()
        halves = words.rstrip("'")
        primes = len(words) - len(halves)
        if primes > 1:
            raise ValueError(f"cannot read tile {words!r}: one prime at most (the second copy is 6-4')")
        canonical = DOUBLE_SIX.parse(halves)
        second = primes == 1
        key = (canonical, int(second))
        if key not in self._ids:
            if second:
                raise ValueError(f"no tile {text.strip()!r}: only Texas 88 has a second copy (written 6-4')")
            raise ValueError(f"no tile {DOUBLE_SIX.name(canonical)} in three-player 42 (0-1 is removed)")
        return self._ids[key]

    # ----- bids ----------------------------------------------------------------------------------
    def bid_value(self, action: int) -> int:
        """Comparable size of a bid in points (1 mark = a hand's points), 0 for a pass."""
        if action <= 0:
            return 0
        if action < self.bid_marks_at:
            return self.point_bids[action - 1]
        if action < self.bid_plunge:
            return self.points_per_hand * (action - self.bid_marks_at + 1)
        return self.points_per_hand * (action - self.bid_plunge + MIN_PLUNGE)

    def bid_marks(self, action: int) -> int:
        """Marks at stake for a winning bid: 1 for a point bid."""
        return max(1, self.bid_value(action) // self.points_per_hand)

    def _legal_bids_over(self, high: int) -> int:
        """Bit set of the ordinary bids (no pass, no Plunge) legal over a highest bid of ``high``."""
        mask = 0
        for a in range(1, self.bid_plunge):
            value, marks = self.bid_value(a), self.bid_marks(a)
            raise_ok = marks <= 2 or high == self.points_per_hand * (marks - 1)  # 3+ marks: one more only
            if value > high and (a < self.bid_marks_at or raise_ok):
                mask |= 1 << a
        return mask

    # ----- sides ---------------------------------------------------------------------------------
    def sides(self, bidder: int) -> tuple[int, ...]:
        """Per seat, its side this hand: the team (``seat % 2``), or with three players 0 for the
        bidder and 1 for the two opponents (every seat 1 before a bid is won)."""
        if self.lone_bidder:
            return tuple(int(s != bidder) for s in range(self.num_players))
        return self.team_sides

    # ----- schemes -------------------------------------------------------------------------------
    def _scheme(self, trump: int | None, doubles: str) -> Scheme:
        """``trump``: a number 0..6, ``TRUMP_SUIT`` for doubles as trump, or None (no trump).

        ``doubles`` places non-trump doubles: ``"high"`` or ``"low"`` in their number's suit, or
        ``"own_suit"`` (an eighth suit, 6-6 high).
        """
        if trump is None:
            trump_mask = 0
        elif trump == TRUMP_SUIT:
            trump_mask = self.doubles_mask
        else:
            trump_mask = self.suit_mask[trump]
        own = doubles == "own_suit" and trump != TRUMP_SUIT
        doubles_suit = self.doubles_mask & ~trump_mask if own else 0
        follow = [self.suit_mask[v] & ~trump_mask & ~doubles_suit for v in range(7)]
        follow += [trump_mask, doubles_suit]
        lead, power = [], [[-1] * self.num_tiles for _ in range(NUM_SUITS)]
        for t in range(self.num_tiles):
            lo, hi = self.low[t], self.high[t]
            is_double = lo == hi
            if trump_mask >> t & 1:
                lead.append(TRUMP_SUIT)
                rank = hi if trump == TRUMP_SUIT else 7 if is_double else hi if lo == trump else lo
                for s in range(NUM_SUITS):
                    power[s][t] = 100 + rank
                continue
            lead.append(DOUBLES_SUIT if doubles_suit >> t & 1 else hi)
            for s in range(NUM_SUITS):
                if follow[s] >> t & 1:
                    if s == DOUBLES_SUIT:
                        power[s][t] = hi
                    elif is_double:
                        power[s][t] = 8 if doubles == "high" else 0
                    else:
                        power[s][t] = (hi if lo == s else lo) + 1
        return Scheme(tuple(lead), tuple(follow), tuple(tuple(p) for p in power))

    def scheme(self, action: int, config: Texas42Config) -> Scheme:
        """The scheme a declaration action puts in force. Sevens ranks by pips instead; its scheme
        only names the suits (numbers, no trump)."""
        if action < self.trump_doubles:
            return self.suit_schemes[action - self.trump]
        if action == self.trump_doubles:
            return self.doubles_scheme
        if action == self.trump_followme:
            return self.no_trump_schemes[config.follow_me_doubles]
        if action == self.nello:
            return self.no_trump_schemes[config.nello or "high"]  # "high": tables built with Nello off
        return self.no_trump_schemes["high"]

    # ----- notation ------------------------------------------------------------------------------
    def _action_texts(self) -> tuple[str, ...]:
        texts = ["pass"]
        texts += [f"bid {b}" for b in self.point_bids]
        texts += [f"bid {k}m" for k in range(1, MAX_MARKS + 1)]
        texts += [f"bid plunge {k}m" for k in range(MIN_PLUNGE, MAX_MARKS + 1)]
        texts += [f"trump {v}" for v in range(7)] + ["trump doubles", "trump followme", "nello", "sevens"]
        texts += [f"play {name}" for name in self.names]
        if self.texas88:
            texts += [f"discard {name}" for name in self.names]
        assert len(texts) == self.num_actions
        return tuple(texts)

    def action_from_text(self, text: str) -> int:
        """Action id of a move in docs/rules.md 3.9 notation (tile halves in either order); unreadable
        text raises ``ValueError``, anything but a string ``TypeError``."""
        words = " ".join(check_move_text(text).lower().split())
        if words.startswith("play "):
            return self.play + self.parse_tile(words[5:])
        if words.startswith("discard ") and self.texas88:
            return self.discard + self.parse_tile(words[8:])
        if words not in self._text_action:
            example = "'discard 3-1', " if self.texas88 else ""
            raise ValueError(
                f"cannot read move {text!r} in {self.name}; e.g. 'pass', '{self.action_text[1]}', "
                f"'bid 2m', 'trump 5', {example}'play 6-4'"
            )
        return self._text_action[words]


@cache
def variant(num_players: int = 4, texas88: bool = False) -> Variant:
    """The shared tables of one form of the game (``Texas42Config.variant`` picks it)."""
    return Variant(num_players, texas88)


# ----- four-player 42: the module constants the batched engine, bots and encoders import --------
FOUR = variant(4)
SEATS = FOUR.num_players  # 4
TILES = DOUBLE_SIX
NUM_TILES = FOUR.num_tiles  # 28
HAND_SIZE = FOUR.hand_size  # 7
POINTS_PER_HAND = FOUR.points_per_hand  # 42
PASS = 0
BID_MARKS = FOUR.bid_marks_at  # 13: k marks -> BID_MARKS + k - 1
BID_PLUNGE = FOUR.bid_plunge  # 20: plunge k marks -> BID_PLUNGE + k - MIN_PLUNGE
TRUMP = FOUR.trump  # 24: trump v -> TRUMP + v
TRUMP_DOUBLES = FOUR.trump_doubles
TRUMP_FOLLOWME = FOUR.trump_followme
NELLO = FOUR.nello
SEVENS = FOUR.sevens
PLAY = FOUR.play  # 35: tile t -> PLAY + t
NUM_ACTIONS = FOUR.num_actions  # 63
NUM_BID_ACTIONS = FOUR.num_bid_actions  # ids 0..23 are bids
COUNT = FOUR.count
BIDS_OVER = FOUR.bids_over  # legal-bid bit sets by the highest bid so far (shared with vector.texas42)
PLUNGES_OVER = FOUR.plunges_over
SEVENS_MASKS = FOUR.sevens_masks
SEVENS_POWER = FOUR.sevens_power
bid_value = FOUR.bid_value
bid_marks = FOUR.bid_marks


def declared_scheme(action: int, config: Texas42Config) -> Scheme:
    """The scheme a declaration action puts in force under ``config`` (shared with the batched
    engine). Sevens ranks by pips instead; its scheme only names the suits (numbers, no trump)."""
    return config.variant.scheme(action, config)


def contract_outcome(
    variant: Variant,
    bid: Any,
    need: Any,
    nello: Any,
    points: tuple[Any, Any],
    tricks: tuple[Any, Any],
    stop_when_decided: bool,
) -> tuple[Any, Any]:
    """``(decided, made)`` of a contract after a trick (docs/rules.md 3.5), for one hand (Python ints
    and bools) or a batch of hands (numpy arrays, elementwise) alike, so the engine and the batched
    engine share this one rule. ``made`` means something only where ``decided``.

    ``bid``: the winning bid's action id, ``need`` its ``bid_value``; ``nello``: Nello was declared;
    ``points`` and ``tricks``: this hand's, (bidding side's, other side's). A point bid is made on
    reaching ``need`` points and set once the other side holds more than the rest; mark bids,
    Plunge and Sevens need every trick, Nello none (the partner sits out, so the bidding side takes
    a trick only through the bidder). Before the last trick a result counts only with
    ``stop_when_decided``.
    """
    (ours, theirs), (our_tricks, their_tricks) = points, tricks
    point_bid, mark_bid = bid < variant.bid_marks_at, bid >= variant.bid_marks_at
    # Operators only (no branch on a value), so arrays work elementwise: Nello is set by a trick
    # of the bidding side, other mark bids by one of the other side.
    setting_tricks = their_tricks + nello * (our_tricks - their_tricks)
    reached, out_of_reach = ours >= need, theirs > variant.points_per_hand - need
    made = (point_bid & reached) | (mark_bid & (setting_tricks == 0))
    settled = (point_bid & (reached | out_of_reach)) | (mark_bid & (setting_tricks > 0))
    all_played = our_tricks + their_tricks == variant.num_tricks
    return all_played | (stop_when_decided & settled), made


@dataclass(frozen=True)
class Texas42Config:
    """Rule options (docs/rules.md 3.1, 3.7, 3.8). Build with ``Texas42Config.make(preset, **options)``.

    ``num_players``: 4, or 3 for three-player 42; ``None`` takes the preset's (6 for ``texas88``).
    Integers may be numpy integers (stored as ``int``); on/off options must be ``bool``.
    """

    preset: str = "standard"
    all_pass: str = "reshake"  # "reshake": void hand, next shaker; "forced": the shaker must bid
    follow_me_doubles: str = "high"  # "high": doubles top their suit; "own_suit": an eighth suit
    nello: str | None = None  # None: off; else its doubles: "high", "low" or "own_suit"
    plunge: bool = False
    sevens: bool = False
    stop_when_decided: bool = True  # end the hand as soon as the contract's result is known
    episode: str = "hand"  # "hand" or "game" (hands until a team reaches target_marks)
    target_marks: int = 7
    open_hands: bool = False  # practice option: every view shows every hand
    num_players: int | None = None

    def __post_init__(self) -> None:
        check_choice("preset", self.preset, PRESETS)
        check_choice("all_pass", self.all_pass, ALL_PASS)
        check_choice("follow_me_doubles", self.follow_me_doubles, FOLLOW_ME_DOUBLES)
        check_choice("nello", self.nello, (None, *NELLO_DOUBLES))
        check_choice("episode", self.episode, EPISODES)
        for name in ("plunge", "sevens", "stop_when_decided", "open_hands"):
            if type(getattr(self, name)) is not bool:  # 1 == True, yet only a bool means on/off
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if not is_int(self.target_marks) or not 1 <= self.target_marks <= MAX_TARGET_MARKS:
            raise ValueError(
                f"target_marks must be an integer 1..{MAX_TARGET_MARKS}, got {self.target_marks!r}"
            )
        object.__setattr__(self, "target_marks", int(self.target_marks))
        texas88 = self.preset == "texas88"
        if self.num_players is None:
            object.__setattr__(self, "num_players", 6 if texas88 else 4)
        if not is_int(self.num_players) or self.num_players not in ((6,) if texas88 else NUM_PLAYERS):
            raise ValueError(
                f"Texas 88 is played by 6 players (num_players=6), got {self.num_players!r}" if texas88 else
                f"Texas 42 is played by 3 or 4 players (6 with preset='texas88'), got {self.num_players!r}"
            )
        object.__setattr__(self, "num_players", int(self.num_players))
        self._refuse(self._forbidden())

    def _forbidden(self) -> tuple[str, dict[str, bool]]:
        """Which rules the preset or the player count refuses, and why (see docs/decisions.md)."""
        options = {
            "all_pass": self.all_pass != "reshake",
            "follow_me_doubles": self.follow_me_doubles != "high",
            "nello": self.nello is not None,
            "plunge": self.plunge,
            "sevens": self.sevens,
        }
        if self.preset == "n42pa":
            if self.num_players != 4:
                return "the n42pa preset (tournament rules) is four-player 42", {"num_players": True}
            return (
                "the n42pa preset (tournament rules) does not allow {}: only a reshake on four passes, "
                "trumps 0-6, doubles and follow-me with doubles high"
            ), options
        if self.preset == "texas88":
            return (
                "Texas 88 (docs/rules.md 3.8) does not allow {}: no forced bid, no Nello, Plunge, Sevens or "
                "follow-me (the bid winner names a suit 0-6 or doubles)"
            ), options
        if self.num_players == 3:
            return (
                "three-player 42 does not allow {}: Plunge needs a partner to name the trump"
            ), {"plunge": self.plunge}
        return "", {}

    @staticmethod
    def _refuse(forbidden: tuple[str, dict[str, bool]]) -> None:
        message, options = forbidden
        bad = [name for name, on in options.items() if on]
        if bad:
            raise ValueError(message.format(", ".join(bad)))

    @classmethod
    def make(cls, preset: str = "standard", forced_bid: bool | None = None, **options: Any) -> Texas42Config:
        """Preset defaults plus options; ``forced_bid=True`` is an alias of ``all_pass="forced"``.
        Every option is checked here: on/off options must be ``bool``, ``target_marks`` an integer
        ``1..MAX_TARGET_MARKS``; a bad one raises ``ValueError`` naming it and what is allowed."""
        names = {f.name for f in fields(cls)} - {"preset"}
        unknown = set(options) - names
        if unknown:
            raise ValueError(
                f"unknown Texas 42 option(s) {sorted(unknown)}; known: {sorted(names | {'forced_bid'})}"
            )
        all_pass = options.pop("all_pass", None)  # None: the preset's default
        if forced_bid is not None:
            if type(forced_bid) is not bool:
                raise ValueError(f"forced_bid must be True, False or None, got {forced_bid!r}")
            wanted = "forced" if forced_bid else "reshake"
            if all_pass not in (None, wanted):
                raise ValueError(f"forced_bid={forced_bid} contradicts all_pass={all_pass!r}")
            all_pass = wanted
        if all_pass is not None:
            options["all_pass"] = all_pass
        return cls(preset=preset, **options)

    @property
    def variant(self) -> Variant:
        """The tables of this form of the game (42, three-player 42 or Texas 88)."""
        return variant(self.num_players, self.preset == "texas88")

    @property
    def forced_bid(self) -> bool:
        return self.all_pass == "forced"

    @property
    def renege_loses_hand(self) -> bool:
        """Whether a renege (a held tile that does not follow suit) loses the hand for the offender's
        side (n42pa, tournament rules): the engine then raises ``RenegeError``, which says what the
        forfeited hand gives, and an environment that penalizes illegal moves pays it."""
        return self.preset == "n42pa"

    @property
    def num_actions(self) -> int:
        return self.variant.num_actions

    @property
    def num_sides(self) -> int:
        """Who holds marks: two teams, or with three players each player."""
        return self.variant.num_sides

    def side_of(self, seat: int) -> int:
        """The mark-holding side of ``seat``: its team (``seat % 2``), or the seat with three players."""
        return seat % self.variant.num_sides

    @property
    def max_decisions(self) -> int:
        """Most decisions in one hand (one deal): each seat bids or passes once, the kitty's discards
        (88), one declaration, each tile played once (33 in 42, 31 with three players, 63 in 88;
        reached when every trick is played). Each all-pass reshake deals a new hand, so only
        ``all_pass="forced"`` bounds a ``"hand"`` episode."""
        return self.variant.max_decisions

    @property
    def max_hand_marks(self) -> int:
        """Most marks one hand can give: a Plunge may be bid at ``MAX_MARKS`` (7) at once; without
        it bids open at 2 marks at most and rise one mark per later bidder (5 with four players,
        4 with three, 7 with six)."""
        return MAX_MARKS if self.plunge else 2 + self.num_players - 1


class Texas42View(NamedTuple):
    """What one seat may know (docs/rules.md 4). Seats are absolute; encoders make them relative.

    ``bids[s]`` is seat ``s``'s bid action id this hand (``-1`` before they bid). Tricks are
    tuples of ``(seat, tile)`` in play order. ``played_by[s]`` is the bit set of tiles seat ``s``
    has played this hand. ``legal_mask`` is the legal-action bit set when this seat is to act, else 0.
    ``hands`` is every hand only with ``open_hands``. ``points`` is per side this hand (the teams;
    with three players the bidder, then the opponents), ``marks`` per mark-holding side (the teams;
    each player with three). ``discards`` (Texas 88) are the bid winner's discards in order: tile
    ids for the bid winner, ``-1`` for every other seat (the kitty and the discards are hidden).

    A NamedTuple (immutable, and built positionally in ``Texas42Game.view``) because a view is made
    at every step: a frozen dataclass took longer to build than the engine took to move.
    """

    config: Texas42Config
    seat: int
    phase: int
    current_player: int | None  # the seat to act; None when the episode is over
    hand: int
    hand_sizes: tuple[int, ...]
    shaker: int
    bids: tuple[int, ...]
    bidder: int  # highest bidder so far, -1 before any bid
    bid: int  # their bid's action id, -1 before
    declarer: int  # seat naming the contract (the bidder's partner after Plunge), -1 before
    declaration: int  # declaration action id, -1 before
    sitting_out: int  # the Nello bidder's partner, else -1
    trick: tuple[tuple[int, int], ...]
    tricks: tuple[tuple[tuple[int, int], ...], ...]
    trick_winners: tuple[int, ...]
    played_by: tuple[int, ...]
    voids: tuple[int, ...]  # per seat, bit set of the suits (0-6, 7 trump, 8 doubles) it failed to follow
    points: tuple[int, int]  # per side, this hand
    marks: tuple[int, ...]  # per mark-holding side, this game
    legal_mask: int
    hands: tuple[int, ...] | None = None
    discards: tuple[int, ...] = ()


# Mutable per-state lists a clone must copy.
_LIST_FIELDS = (
    "marks",
    "hands",
    "history",
    "bids",
    "trick",
    "tricks",
    "trick_winners",
    "played_by",
    "points",
)
_LIST_FIELDS += ("tricks_won", "voids", "discards")


class Texas42Game:
    """One Texas 42 episode (a hand or a game) under ``config``.

    ``rng`` is the episode's only source of randomness (deals, the first shaker); a ``TypeError``
    unless it is a ``numpy.random.Generator``. ``deal`` fixes the first deal (``_read_deal``).
    ``current`` is the seat to act while the episode runs; ``current_player`` is that seat, or
    ``None`` once the episode is over.
    """

    def __init__(self, config: Texas42Config, rng: np.random.Generator, deal: dict | None = None):
        self.config = config
        self.variant = v = self.config.variant
        self.num_players = self.config.num_players
        self.num_actions = v.num_actions
        self._play_at, self._sevens = v.play, v.sevens  # hot-path ids, read once per step
        self.rng = check_generator(rng)
        self.marks = [0] * v.num_sides
        self.hands_scored = 0
        self.deals = 0
        self.last_result: dict | None = None
        if deal is None:
            shaker = int(self.rng.integers(self.num_players))
            self._deal(shaker, *self._random_deal())
        else:
            hands, kitty, shaker = self._read_deal(deal)
            self._deal(shaker, hands, kitty)

    # ----- dealing --------------------------------------------------------------------------
    def _random_deal(self) -> tuple[list[int], int]:
        """Every hand and the kitty (88; else 0), from one shuffle of the tile ids."""
        v = self.variant
        order = self.rng.permutation(v.num_tiles).tolist()
        size = v.hand_size
        hands = [sum(1 << t for t in order[i * size : (i + 1) * size]) for i in range(self.num_players)]
        return hands, sum(1 << t for t in order[self.num_players * size :])

    def _read_deal(self, deal: Any) -> tuple[list[int], int, int]:
        """Validate ``{"hands": [[tile texts or ids] x n], "shaker": s}`` (88: and ``"kitty"``, two
        tiles); ids and the shaker are Python or numpy integers, never ``bool``. Raise ``ValueError``
        naming what is wrong."""
        v, n = self.variant, self.num_players
        keys = {"hands", "shaker", "kitty"} if v.kitty_size else {"hands", "shaker"}
        shape = f'{{"hands": [{n} lists of {v.hand_size} tiles], '
        shape += f'"kitty": [{v.kitty_size} tiles], "shaker": seat}}' if v.kitty_size else '"shaker": seat}'
        if not isinstance(deal, dict) or set(deal) - keys or "hands" not in deal:
            raise ValueError(f"a {v.name} deal is {shape}")
        raw = deal["hands"]
        if not isinstance(raw, (list, tuple)) or len(raw) != n:
            raise ValueError(f"a deal needs {n} hands")
        groups = [(h, v.hand_size, "hand") for h in raw]
        if v.kitty_size:
            if "kitty" not in deal:
                raise ValueError(f"a {v.name} deal needs a kitty: {shape}")
            groups.append((deal["kitty"], v.kitty_size, "kitty"))
        masks = []
        for h, size, what in groups:
            if not isinstance(h, (list, tuple)) or len(h) != size:
                raise ValueError(f"every {what} holds {size} tiles, got {h!r}")
            mask = 0
            for tile in h:
                t = v.parse_tile(tile) if isinstance(tile, str) else int(tile) if is_int(tile) else -1
                if not 0 <= t < v.num_tiles or mask >> t & 1:
                    raise ValueError(
                        f"bad or repeated tile {tile!r} in {what} {h!r} (tile ids 0..{v.num_tiles - 1})"
                    )
                mask |= 1 << t
            masks.append(mask)
        if sum(masks) != v.full_mask or any(a & b for i, a in enumerate(masks) for b in masks[i + 1 :]):
            raise ValueError(f"the deal must hold all {v.num_tiles} tiles of {v.name}, each exactly once")
        shaker = deal.get("shaker", 0)
        if not is_int(shaker) or not 0 <= shaker < n:
            raise ValueError(f"shaker must be a seat 0..{n - 1}, got {shaker!r}")
        return masks[:n], sum(masks[n:]), int(shaker)

    def _deal(self, shaker: int, hands: list[int], kitty: int = 0) -> None:
        self.deals += 1
        self.deal_marks, self.deal_scored = tuple(self.marks), self.hands_scored
        self.shaker = shaker
        self.dealt = tuple(hands)
        self.hands = list(hands)
        self.kitty = kitty  # Texas 88: the two tiles the bid winner takes (kept after, for the record)
        self.discards: list[int] = []  # Texas 88: the bid winner's discards, in order
        self.history: list[int] = []
        self.phase = BID
        self.current = (shaker + 1) % self.num_players
        self.bids = [-1] * self.num_players
        self.high = 0  # value of the highest bid so far
        self.bidder = -1  # highest bidder so far
        self.bid = -1  # their bid's action id
        self.declarer = -1
        self.declaration = -1
        self.sitting_out = -1
        self.sides = self.variant.sides(-1)  # per seat, its side this hand (fixed once a bid wins)
        self.scheme: Scheme | None = None
        self.trick: list[tuple[int, int]] = []
        self.tricks: list[tuple[tuple[int, int], ...]] = []
        self.trick_winners: list[int] = []
        self.played_by = [0] * self.num_players
        self.voids = [0] * self.num_players  # per seat, bit set of suits it failed to follow
        self.points = [0, 0]  # per side
        self.tricks_won = [0, 0]  # per side
        self.led = -1
        self.best_seat = -1
        self.best_power = -2

    # ----- protocol ---------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self.phase == DONE else self.current

    @property
    def is_terminal(self) -> bool:
        return self.phase == DONE

    def legal_mask(self) -> int:
        """Bit set over action ids of the moves legal for the seat to act (0 once terminal)."""
        phase = self.phase
        if phase == PLAY_PHASE:
            return self._legal_tiles() << self._play_at
        v = self.variant
        if phase == BID:
            seat = self.current
            mask = v.bids_over[self.high]
            if not (self.config.forced_bid and seat == self.shaker and self.high == 0):
                mask |= 1 << PASS
            if self.config.plunge and (self.hands[seat] & v.doubles_mask).bit_count() >= PLUNGE_DOUBLES:
                mask |= v.plunges_over[self.high]
            return mask
        if phase == DECLARE:
            mask = v.declare_mask
            if self.bid >= v.bid_marks_at and self.bid < v.bid_plunge:
                if self.config.nello is not None:
                    mask |= 1 << v.nello
                if self.config.sevens:
                    mask |= 1 << v.sevens
            return mask
        if phase == DISCARD_PHASE:  # non-count tiles; any tile once none is left (docs/decisions.md)
            hand = self.hands[self.current]
            return (hand & ~v.count_mask or hand) << v.discard
        return 0

    def _legal_tiles(self) -> int:
        hand = self.hands[self.current]
        if self.declaration == self._sevens:
            for m in self.variant.sevens_masks:
                if hand & m:
                    return hand & m
        if not self.trick:
            return hand
        return hand & self.scheme.follow[self.led] or hand

    def legal_actions(self) -> list[int]:
        return list(iter_bits(self.legal_mask()))

    def apply(self, action: int) -> None:
        """Play ``action`` (a Python or numpy integer, never a ``bool``) for the seat to act; an
        illegal one raises ``IllegalActionError`` (``RenegeError`` for a renege that loses the hand)
        and changes nothing."""
        if type(action) is not int:  # the common plain int skips is_int's isinstance tests
            if not is_int(action):
                raise IllegalActionError(self._illegal_message(action))
            action = int(action)
        if not (0 <= action < self.num_actions and self.legal_mask() >> action & 1):
            raise self._illegal_error(action)
        self.last_result = None
        self.history.append(action)
        phase = self.phase
        if phase == PLAY_PHASE:
            self._play(action - self._play_at)
        elif phase == BID:
            self._bid(action)
        elif phase == DECLARE:
            self._declare(action)
        else:
            self._discard(action - self.variant.discard)

    def _illegal_message(self, action: Any) -> str:
        if self.phase == DONE:
            return f"move {self._describe(action)} after the episode ended: no move is legal"
        legal = ", ".join(self.action_to_text(a) for a in self.legal_actions())
        return (
            f"illegal move {self._describe(action)} by seat {self.current} in the "
            f"{PHASE_NAMES[self.phase]} phase; legal: {legal}"
        )

    def _describe(self, action: Any) -> str:
        if is_int(action) and 0 <= action < self.num_actions:
            return repr(self.action_to_text(action))
        return f"{action!r} (action ids run 0..{self.num_actions - 1})"

    def _illegal_error(self, action: Any) -> IllegalActionError:
        """What an illegal ``action`` raises: a ``RenegeError`` when it is a renege (a play of a tile
        the seat holds that does not follow suit) under rules where a renege loses the hand, with the
        marks the forfeited hand gives (``config.renege_loses_hand``; docs/decisions.md)."""
        message = self._illegal_message(action)
        reneges = (
            self.config.renege_loses_hand
            and self.phase == PLAY_PHASE
            and self._play_at <= action < self._play_at + self.variant.num_tiles
            and self.hands[self.current] >> (action - self._play_at) & 1
        )
        if not reneges:
            return IllegalActionError(message)
        offender_side, marks = self.sides[self.current], self.variant.bid_marks(self.bid)
        hand_marks = [0 if side == offender_side else marks for side in self.sides]
        return RenegeError(message, self.current, hand_marks)

    # ----- phases -------------------------------------------------------------------------------
    def _bid(self, action: int) -> None:
        seat, v = self.current, self.variant
        self.bids[seat] = action
        if action != PASS:
            self.high, self.bidder, self.bid = v.bid_value(action), seat, action
        if seat != self.shaker:
            self.current = (seat + 1) % self.num_players
        elif self.bidder < 0:  # everyone passed: the hand is void and the deal passes on
            self._deal((self.shaker + 1) % self.num_players, *self._random_deal())
        else:
            self.sides = v.sides(self.bidder)
            plunge = self.bid >= v.bid_plunge
            self.declarer = (self.bidder + v.partner_offset) % self.num_players if plunge else self.bidder
            self.current = self.declarer
            if v.kitty_size:  # Texas 88: the bid winner takes the kitty, then discards
                self.hands[self.bidder] |= self.kitty
                self.phase = DISCARD_PHASE
            else:
                self.phase = DECLARE

    def _discard(self, tile: int) -> None:
        self.hands[self.current] ^= 1 << tile
        self.discards.append(tile)
        if len(self.discards) == self.variant.kitty_size:
            self.phase = DECLARE

    def _declare(self, action: int) -> None:
        v = self.variant
        self.declaration = action
        self.scheme = v.scheme(action, self.config)
        if action == v.nello and v.partner_offset:  # with three players nobody sits out
            self.sitting_out = (self.bidder + v.partner_offset) % self.num_players
        self.phase = PLAY_PHASE
        self.current = self.declarer

    def _next_seat(self, seat: int) -> int:
        seat = (seat + 1) % self.num_players
        return (seat + 1) % self.num_players if seat == self.sitting_out else seat

    def _play(self, tile: int) -> None:
        seat = self.current
        self.hands[seat] ^= 1 << tile
        self.played_by[seat] |= 1 << tile
        sevens = self.declaration == self._sevens
        if not self.trick:
            self.led = self.scheme.lead[tile]
        elif not self.scheme.follow[self.led] >> tile & 1 and not sevens:
            self.voids[seat] |= 1 << self.led
        power = self.variant.sevens_power[tile] if sevens else self.scheme.power[self.led][tile]
        if power > self.best_power:  # ties keep the earlier tile (Sevens; identical tiles in 88)
            self.best_power, self.best_seat = power, seat
        self.trick.append((seat, tile))
        trick_size = self.num_players - (self.sitting_out >= 0)
        if len(self.trick) < trick_size:
            self.current = self._next_seat(seat)
            return
        winner, v = self.best_seat, self.variant
        side = self.sides[winner]
        count = v.count
        self.points[side] += v.trick_value + sum(count[t] for _, t in self.trick)
        self.tricks_won[side] += 1
        self.tricks.append(tuple(self.trick))
        self.trick_winners.append(winner)
        self.trick = []
        self.best_power, self.current = -2, winner
        made = self._decided()
        if made is not None:
            self._score(made)

    def _decided(self) -> bool | None:
        """True/False once the contract is made/set (``contract_outcome``), else None."""
        v, bt = self.variant, self.sides[self.bidder]
        decided, made = contract_outcome(
            v,
            self.bid,
            self.high,  # the winning bid's value
            self.declaration == v.nello,
            (self.points[bt], self.points[1 - bt]),
            (self.tricks_won[bt], self.tricks_won[1 - bt]),
            self.config.stop_when_decided,
        )
        return made if decided else None

    def _score(self, made: bool) -> None:
        """The winning side's seats each score the bid's marks: a team's, or with three players the
        bidder's (made) or each opponent's (set). Marks are kept per mark-holding side."""
        v, n = self.variant, self.num_players
        won = self.sides[self.bidder] if made else 1 - self.sides[self.bidder]
        marks = v.bid_marks(self.bid)
        hand_marks = [marks if self.sides[s] == won else 0 for s in range(n)]
        for h in range(v.num_sides):  # side h holds seat h (team h, or player h)
            self.marks[h] += hand_marks[h]
        self.hands_scored += 1
        self.last_result = {
            "hand_marks": hand_marks,
            "marks": [self.marks[s % v.num_sides] for s in range(n)],
            "points_taken": [self.points[self.sides[s]] for s in range(n)],
            "contract": {
                "bidder": self.bidder,
                "bid": self.action_to_text(self.bid),
                "declaration": self.action_to_text(self.declaration),
                "made": made,
            },
        }
        if self.config.episode == "hand" or max(self.marks) >= self.config.target_marks:
            self.phase = DONE
        else:
            self._deal((self.shaker + 1) % n, *self._random_deal())

    # ----- text -------------------------------------------------------------------------------
    def action_to_text(self, action: int) -> str:
        """docs/rules.md 3.9 notation of an action id; ``ValueError`` unless ``action`` is one (a Python
        or numpy integer ``0..num_actions - 1``, not a ``bool``)."""
        return self.variant.action_text[check_action_id(action, self.num_actions)]

    def action_from_text(self, text: str) -> int:
        """Action id of a move in docs/rules.md 3.9 notation (tile halves in either order); unreadable
        text raises ``ValueError``, anything but a string ``TypeError``."""
        return self.variant.action_from_text(text)

    def _marks_text(self) -> str:
        v, n = self.variant, self.num_players
        if v.lone_bidder:
            return "marks: " + ", ".join(f"seat {s} {self.marks[s]}" for s in range(n))
        teams = ["+".join(str(s) for s in range(t, n, 2)) for t in range(2)]
        return f"marks: team 0 (seats {teams[0]}) {self.marks[0]}, team 1 (seats {teams[1]}) {self.marks[1]}"

    def render_text(self, seat: int | None = None) -> str:
        """A plain-text picture of the state: every hand (for logs), or with ``seat`` only what that
        seat may see (the other hands as tile counts, unless ``open_hands``; the kitty and the 88
        discards only to the bid winner)."""
        v = self.variant
        title = "Texas 42" if v.num_players == 4 else v.name
        lines = [f"{title} ({self.config.preset}) - {self._marks_text()} - shaker: seat {self.shaker}"]
        for s in range(self.num_players):
            note = " (sits out)" if s == self.sitting_out else ""
            if seat is None or s == seat or self.config.open_hands:
                shown = " ".join(v.tile_names(self.hands[s])) or "-"
            else:
                shown = f"{self.hands[s].bit_count()} tiles"
            lines.append(f"  seat {s}: {shown}{note}")
        if v.kitty_size:
            if self.phase == BID:
                shown = " ".join(v.tile_names(self.kitty)) if seat is None else f"{v.kitty_size} tiles"
                lines.append(f"kitty: {shown}")
            elif self.discards:
                mine = seat is None or seat == self.bidder
                shown = " ".join(v.names[t] for t in self.discards) if mine else f"{len(self.discards)} tiles"
                lines.append(f"discards: {shown}")
        bids = ", ".join(f"{s}: {v.action_text[b]}" for s, b in enumerate(self.bids) if b >= 0)
        lines.append(f"bids: {bids or '-'}")
        if self.declaration >= 0:
            lines.append(
                f"contract: seat {self.bidder} {v.action_text[self.bid]}, {v.action_text[self.declaration]}"
                f" - points {self.points[0]}:{self.points[1]}"
            )
        for i, (trick, winner) in enumerate(zip(self.tricks, self.trick_winners, strict=True)):
            lines.append(f"trick {i + 1}: {_trick_text(v, trick)} -> seat {winner}")
        if self.trick:
            lines.append(f"trick {len(self.tricks) + 1}: {_trick_text(v, self.trick)}")
        if self.phase == DONE:
            lines.append("episode over")
        else:
            lines.append(f"to act: seat {self.current} ({PHASE_NAMES[self.phase]})")
        return "\n".join(lines)

    # ----- copies and saved games -------------------------------------------------------------
    def clone(self, rng: np.random.Generator | None = None) -> Texas42Game:
        """An independent copy with its own copy of the generator, or with ``rng``: the search's
        endgame positions share one, since nothing is drawn until the next deal (copying a
        generator is most of a clone's cost)."""
        other = copy.copy(self)
        for name in _LIST_FIELDS:
            setattr(other, name, list(getattr(self, name)))
        other.rng = copy_generator(self.rng) if rng is None else rng
        other.last_result = copy.deepcopy(self.last_result)
        return other

    def with_hands(self, hands: Sequence[int]) -> Texas42Game:
        """A clone at the same position whose seats hold ``hands`` instead (bit sets: every hand its
        old size, together the same tiles), the deal record following; everything public stays. A
        search redeals one replayed world this way rather than replaying the hand per world. Forms
        with a kitty are refused (its tiles and the discards are hidden too); so is a bad ``hands``,
        with the reason, leaving this game as it was."""
        if self.variant.kitty_size:
            raise ValueError(f"with_hands: {self.variant.name} has a kitty, whose tiles it cannot redeal")
        hands = [int(h) if is_int(h) else h for h in hands]
        sizes = [h.bit_count() for h in self.hands]
        union = 0
        for h in hands:
            union |= h if is_int(h) and h >= 0 else -1
        if (len(hands) != self.num_players or union < 0 or [h.bit_count() for h in hands] != sizes
                or union != sum(self.hands) or union.bit_count() != sum(sizes)):
            raise ValueError(f"with_hands: {hands!r} is not a redeal of the hands in play: one bit set "
                             f"per seat, sizes {sizes}, no tile twice, "
                             "together the same tiles")
        other = self.clone()
        other.hands = hands
        other.dealt = tuple(h | p for h, p in zip(other.hands, self.played_by, strict=True))
        return other

    def to_json(self) -> str:
        """The state as JSON: the current hand's deal and moves, replayed by ``from_json``."""
        v = self.variant
        data = {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSIONS[-1],
            "config": asdict(self.config),
            "marks": list(self.deal_marks),  # at the deal; the moves replay the rest
            "hands_scored": self.deal_scored,
            "deals": self.deals,
            "shaker": self.shaker,
            "dealt": [v.tile_names(h) for h in self.dealt],
            "moves": [v.action_text[a] for a in self.history],
            "last_result": self.last_result,
            "rng": self.rng.bit_generator.state,
        }
        if v.kitty_size:
            data["kitty"] = v.tile_names(self.kitty)
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> Texas42Game:
        """Rebuild a game from ``to_json``. Anything else raises ``ValueError``: malformed or illegal
        input, another format, or a version not in ``SAVE_VERSIONS``."""
        try:
            data = read_save(text, SAVE_FORMAT, SAVE_VERSIONS)
            config = Texas42Config(**data["config"])
            rng = generator_from_state(data["rng"])
            deal = {"hands": data["dealt"], "shaker": data["shaker"]}
            if config.variant.kitty_size:
                deal["kitty"] = data["kitty"]
            game = cls(config, rng, deal=deal)
            marks, scored, deals = data["marks"], data["hands_scored"], data["deals"]
            if not (
                isinstance(marks, list)
                and len(marks) == config.num_sides
                and all(type(m) is int and m >= 0 for m in marks)
            ):
                raise ValueError(f"bad marks {marks!r}")
            if not (type(scored) is int and type(deals) is int and 0 <= scored < deals):
                raise ValueError("bad hand counters")
            if config.episode == "hand" and (scored or any(marks)):
                raise ValueError("a one-hand episode has no marks or scored hands before its deal")
            if max(marks) >= config.target_marks:
                raise ValueError(
                    f"marks {marks} already reach the target of {config.target_marks}: "
                    "the game ended before this deal"
                )
            game.marks, game.hands_scored, game.deals = list(marks), scored, deals
            game.deal_marks, game.deal_scored = tuple(marks), scored
            if not isinstance(data["moves"], list):
                raise ValueError("'moves' must be a list of moves as text")
            for move in data["moves"]:
                if game.phase == DONE or game.deals != deals:
                    raise ValueError("a saved hand holds moves beyond its end")
                game.apply(game.action_from_text(move))
            if not data["moves"]:  # a fresh deal: the result of the hand before it, if any
                game.last_result = _read_result(data["last_result"], config, scored)
            return game
        except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as err:
            raise ValueError(f"malformed Texas 42 saved game: {err}") from err

    # ----- what a seat may know ---------------------------------------------------------------
    def view(self, seat: int) -> Texas42View:
        """The seat's view (docs/rules.md 4): nothing of another hand, the Nello partner's included, nor
        of the 88 kitty and discards unless the seat is the bid winner."""
        current = None if self.phase == DONE else self.current
        discards = self.discards
        discards = (tuple(discards) if seat == self.bidder else (-1,) * len(discards)) if discards else ()
        # Positional, in Texas42View's field order: keywords cost several times more per step.
        return Texas42View(
            self.config,  # config
            seat,  # seat
            self.phase,  # phase
            current,  # current_player
            self.hands[seat],  # hand
            tuple([h.bit_count() for h in self.hands]),  # hand_sizes
            self.shaker,  # shaker
            tuple(self.bids),  # bids
            self.bidder,  # bidder
            self.bid,  # bid
            self.declarer,  # declarer
            self.declaration,  # declaration
            self.sitting_out,  # sitting_out
            tuple(self.trick),  # trick
            tuple(self.tricks),  # tricks
            tuple(self.trick_winners),  # trick_winners
            tuple(self.played_by),  # played_by
            tuple(self.voids),  # voids
            (self.points[0], self.points[1]),  # points
            tuple(self.marks),  # marks
            self.legal_mask() if seat == current else 0,  # legal_mask
            tuple(self.hands) if self.config.open_hands else None,  # hands
            discards,  # discards
        )


def _trick_text(v: Variant, trick: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> str:
    return " ".join(f"{seat}:{v.names[t]}" for seat, t in trick)


def hand_moves(view: Texas42View) -> list[tuple[int, int, bool]]:
    """The current hand's moves so far from the public record of ``view``, in order, as
    ``(seat, action id, leads a trick)``: the bids from the shaker's left, the Texas 88 discards
    (action ``-1`` for a discard the seat may not see), the declaration, the plays."""
    v = view.config.variant
    n = view.config.num_players
    order = [(view.shaker + 1 + i) % n for i in range(n)]
    moves = [(s, view.bids[s], False) for s in order if view.bids[s] >= 0]
    moves += [(view.bidder, v.discard + t if t >= 0 else -1, False) for t in view.discards]
    if view.declaration >= 0:
        moves.append((view.declarer, view.declaration, False))
    for trick in (*view.tricks, view.trick):
        moves += [(seat, v.play + tile, i == 0) for i, (seat, tile) in enumerate(trick)]
    return moves


def _read_result(saved: Any, config: Texas42Config, scored: int) -> dict | None:
    """A saved ``last_result`` (the hand before a fresh deal; ``None`` after a reshake or before any
    hand) with every field checked, since a save is untrusted input."""
    if saved is None:
        return None
    n, v = config.num_players, config.variant

    def per_seat(x: Any) -> bool:
        return isinstance(x, list) and len(x) == n and all(type(m) is int and m >= 0 for m in x)

    contract = saved.get("contract") if isinstance(saved, dict) else None
    if not (
        scored > 0
        and isinstance(saved, dict)
        and set(saved) == {"hand_marks", "marks", "points_taken", "contract"}
        and all(per_seat(saved[k]) for k in ("hand_marks", "marks", "points_taken"))
        and isinstance(contract, dict)
        and set(contract) == {"bidder", "bid", "declaration", "made"}
        and type(contract["bidder"]) is int
        and 0 <= contract["bidder"] < n
        and contract["bid"] in v.action_text[1 : v.trump]
        and contract["declaration"] in v.action_text[v.trump : v.play]
        and type(contract["made"]) is bool
    ):
        raise ValueError(
            "'last_result' is not the result of a scored hand (hand_marks, marks, points_taken, contract)"
        )
    return saved
