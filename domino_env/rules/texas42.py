"""Texas 42 (RULES.md 3.1-3.6, 3.9): a pure rules engine over bit sets, with no RL imports.

A hand is an ``int`` bit set over the canonical double-six index (``tiles.tile_set(6)``). Every
trump call maps to a precomputed *scheme*: the suit each tile leads, the tiles that follow each
suit and a power table (``power[suit_led][tile]``, trumps above every suit, ``-1`` for a tile that
neither follows nor trumps). Legal plays are then ``hand & follow[led] or hand`` and the trick
winner is the running maximum of one list lookup.

Action ids (``NUM_ACTIONS`` = 63, one flat space; no seat inside an id):

====================  ==========================================================
id                    meaning (text of RULES.md 3.9)
====================  ==========================================================
0                     ``pass``
1 ... 12              ``bid 30`` ... ``bid 41``
13 ... 19             ``bid 1m`` ... ``bid 7m``
20 ... 23             ``bid plunge 4m`` ... ``bid plunge 7m``
24 ... 30             ``trump 0`` ... ``trump 6``
31                    ``trump doubles``
32                    ``trump followme`` (doubles high, or their own suit by option)
33                    ``nello``
34                    ``sevens``
35 ... 62             ``play a-b``: tile ``t`` of the canonical index is id ``35 + t``
====================  ==========================================================

A hand goes bid -> declare -> play; the bid winner (or, after Plunge, their partner) declares
and leads, so the same seat may act twice in a row. An all-pass reshake deals again inside the
same episode. ``episode="game"`` plays hands until a team reaches ``target_marks``.
"""

from __future__ import annotations

import copy
import json
from dataclasses import asdict, dataclass, fields
from typing import Any, NamedTuple

import numpy as np

from domino_env.rules.errors import IllegalActionError
from domino_env.tiles import iter_bits, tile_set

TILES = tile_set(6)
NUM_TILES = TILES.num_tiles
HAND_SIZE = 7
POINTS_PER_HAND = 42

# ----- action-id layout -------------------------------------------------------------------------
PASS = 0
BID_POINTS = 1  # 30 + i -> BID_POINTS + i
MIN_POINT_BID, MAX_POINT_BID = 30, 41
BID_MARKS = BID_POINTS + (MAX_POINT_BID - MIN_POINT_BID + 1)  # 13: k marks -> BID_MARKS + k - 1
MAX_MARKS = 7
BID_PLUNGE = BID_MARKS + MAX_MARKS  # 20: plunge k marks -> BID_PLUNGE + k - MIN_PLUNGE
MIN_PLUNGE = 4
TRUMP = BID_PLUNGE + (MAX_MARKS - MIN_PLUNGE + 1)  # 24: trump v -> TRUMP + v
TRUMP_DOUBLES = TRUMP + 7
TRUMP_FOLLOWME = TRUMP_DOUBLES + 1
NELLO = TRUMP_FOLLOWME + 1
SEVENS = NELLO + 1
PLAY = SEVENS + 1  # 35: tile t -> PLAY + t
NUM_ACTIONS = PLAY + NUM_TILES  # 63
NUM_BID_ACTIONS = TRUMP  # ids 0..23 are bids

# Phases of a hand.
BID, DECLARE, PLAY_PHASE, DONE = 0, 1, 2, 3
PHASE_NAMES = ("bid", "declare", "play", "done")

COUNT = tuple(
    10 if TILES.pips[t] == 10 else 5 if TILES.pips[t] == 5 else 0 for t in range(NUM_TILES)
)  # 5-5, 6-4: 10; 5-0, 4-1, 3-2: 5 -> 35 in all

TRUMP_SUIT, DOUBLES_SUIT = 7, 8  # suit ids beyond the numbers 0..6 (a suit led, a void)
NUM_SUITS = 9

PRESETS = ("standard", "n42pa")
ALL_PASS = ("reshake", "forced")
FOLLOW_ME_DOUBLES = ("high", "own_suit")
NELLO_DOUBLES = ("high", "low", "own_suit")
EPISODES = ("hand", "game")


def bid_value(action: int) -> int:
    """Comparable size of a bid in points (1 mark = 42), 0 for a pass."""
    if action == PASS:
        return 0
    if action < BID_MARKS:
        return MIN_POINT_BID + action - BID_POINTS
    if action < BID_PLUNGE:
        return POINTS_PER_HAND * (action - BID_MARKS + 1)
    return POINTS_PER_HAND * (action - BID_PLUNGE + MIN_PLUNGE)




def bid_marks(action: int) -> int:
    """Marks at stake for a winning bid: 1 for a point bid."""
    return max(1, bid_value(action) // POINTS_PER_HAND)


def _legal_bids_over(high: int) -> int:
    """Bit set of the ordinary bids (no pass, no Plunge) legal over a highest bid of ``high``."""
    mask = 0
    for a in range(BID_POINTS, BID_PLUNGE):
        value, marks = bid_value(a), bid_marks(a)
        raise_ok = marks <= 2 or high == POINTS_PER_HAND * (marks - 1)  # 3+ marks: one mark more only
        if value > high and (a < BID_MARKS or raise_ok):
            mask |= 1 << a
    return mask


# Legal-bid bit sets by the highest bid so far, and the Sevens tables: shared with vector.texas42.
_BID_VALUES = sorted({bid_value(a) for a in range(NUM_BID_ACTIONS)})
BIDS_OVER = {h: _legal_bids_over(h) for h in _BID_VALUES}
PLUNGES_OVER = {h: sum(1 << a for a in range(BID_PLUNGE, TRUMP) if bid_value(a) > h) for h in _BID_VALUES}


@dataclass(frozen=True)
class Scheme:
    """Suits and ranks under one trump call: ``lead[t]``, ``follow[suit]``, ``power[suit][t]``."""

    lead: tuple[int, ...]
    follow: tuple[int, ...]
    power: tuple[tuple[int, ...], ...]


def _scheme(trump: int | None, doubles: str) -> Scheme:
    """``trump``: a number 0..6, ``TRUMP_SUIT`` for doubles as trump, or None (no trump).

    ``doubles`` places non-trump doubles: ``"high"`` or ``"low"`` in their number's suit, or
    ``"own_suit"`` (an eighth suit, 6-6 high).
    """
    t_set = TILES
    if trump is None:
        trump_mask = 0
    elif trump == TRUMP_SUIT:
        trump_mask = t_set.doubles_mask
    else:
        trump_mask = t_set.suit_mask[trump]
    own = doubles == "own_suit" and trump != TRUMP_SUIT
    doubles_suit = t_set.doubles_mask & ~trump_mask if own else 0
    follow = [t_set.suit_mask[v] & ~trump_mask & ~doubles_suit for v in range(7)]
    follow += [trump_mask, doubles_suit]
    lead, power = [], [[-1] * NUM_TILES for _ in range(NUM_SUITS)]
    for t in range(NUM_TILES):
        hi, is_double = t_set.high[t], t_set.is_double(t)
        if trump_mask >> t & 1:
            lead.append(TRUMP_SUIT)
            rank = hi if trump == TRUMP_SUIT else 7 if is_double else t_set.other_half(t, trump)
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
                    power[s][t] = t_set.other_half(t, s) + 1
    return Scheme(tuple(lead), tuple(follow), tuple(tuple(p) for p in power))


_SUIT_SCHEMES = tuple(_scheme(v, "high") for v in range(7))
_DOUBLES_SCHEME = _scheme(TRUMP_SUIT, "high")
_NO_TRUMP_SCHEMES = {d: _scheme(None, d) for d in NELLO_DOUBLES}
# Sevens: distance of a tile's pip total from 7, and the tiles at each distance.
_SEVENS_DIST = tuple(abs(TILES.pips[t] - 7) for t in range(NUM_TILES))
SEVENS_MASKS = tuple(sum(1 << t for t in range(NUM_TILES) if _SEVENS_DIST[t] == d) for d in range(8))
SEVENS_POWER = tuple(10 - d for d in _SEVENS_DIST)


def declared_scheme(action: int, config: Texas42Config) -> Scheme:
    """The scheme a declaration action puts in force under ``config`` (shared with the batched
    engine). Sevens ranks by pips instead; its scheme only names the suits (numbers, no trump)."""
    if action < TRUMP_DOUBLES:
        return _SUIT_SCHEMES[action - TRUMP]
    if action == TRUMP_DOUBLES:
        return _DOUBLES_SCHEME
    if action == TRUMP_FOLLOWME:
        return _NO_TRUMP_SCHEMES[config.follow_me_doubles]
    if action == NELLO:
        return _NO_TRUMP_SCHEMES[config.nello or "high"]  # "high" only for tables built with Nello off
    return _NO_TRUMP_SCHEMES["high"]


@dataclass(frozen=True)
class Texas42Config:
    """Rule options (RULES.md 3.1). Build with ``Texas42Config.make(preset, **options)``."""

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
    num_players: int = 4

    def __post_init__(self) -> None:
        def check(name: str, allowed: tuple) -> None:
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")

        check("preset", PRESETS)
        check("all_pass", ALL_PASS)
        check("follow_me_doubles", FOLLOW_ME_DOUBLES)
        check("nello", (None, *NELLO_DOUBLES))
        check("episode", EPISODES)
        for name in ("plunge", "sevens", "stop_when_decided", "open_hands"):
            check(name, (False, True))
        if type(self.target_marks) is not int or self.target_marks < 1:
            raise ValueError(f"target_marks must be a positive integer, got {self.target_marks!r}")
        if self.num_players != 4:
            raise ValueError(
                f"Texas 42 is played by 4 players (3-player 42 is not built yet), got {self.num_players!r}"
            )
        if self.preset == "n42pa":
            forbidden = {
                "all_pass": self.all_pass != "reshake",
                "follow_me_doubles": self.follow_me_doubles != "high",
                "nello": self.nello is not None,
                "plunge": self.plunge,
                "sevens": self.sevens,
            }
            bad = [name for name, on in forbidden.items() if on]
            if bad:
                raise ValueError(
                    f"the n42pa preset (tournament rules) does not allow {', '.join(bad)}: "
                    "only a reshake on four passes, trumps 0-6, doubles and follow-me with doubles high"
                )

    @classmethod
    def make(cls, preset: str = "standard", forced_bid: bool | None = None, **options: Any) -> Texas42Config:
        """Preset defaults plus options; ``forced_bid=True`` is an alias of ``all_pass="forced"``."""
        names = {f.name for f in fields(cls)} - {"preset"}
        unknown = set(options) - names
        if unknown:
            raise ValueError(
                f"unknown Texas 42 option(s) {sorted(unknown)}; known: {sorted(names | {'forced_bid'})}"
            )
        all_pass = options.pop("all_pass", None)  # None: the preset's default
        if forced_bid is not None:
            wanted = "forced" if forced_bid else "reshake"
            if all_pass not in (None, wanted):
                raise ValueError(f"forced_bid={forced_bid} contradicts all_pass={all_pass!r}")
            all_pass = wanted
        if all_pass is not None:
            options["all_pass"] = all_pass
        return cls(preset=preset, **options)

    @property
    def forced_bid(self) -> bool:
        return self.all_pass == "forced"

    @property
    def max_decisions(self) -> int:
        """Most decisions in one hand (one deal): each seat bids or passes once, one declaration,
        each tile played once (33; reached when all seven tricks are played). Each all-pass
        reshake deals a new hand, so only ``all_pass="forced"`` bounds a ``"hand"`` episode."""
        return self.num_players + 1 + NUM_TILES

    @property
    def max_hand_marks(self) -> int:
        """Most marks one hand can give: a Plunge may be bid at ``MAX_MARKS`` (7) at once; without
        it bids open at 2 marks at most and rise one mark per later bidder (5 with four players)."""
        return MAX_MARKS if self.plunge else 2 + self.num_players - 1


class Texas42View(NamedTuple):
    """What one seat may know (RULES.md 4). Seats are absolute; encoders make them relative.

    ``bids[s]`` is seat ``s``'s bid action id this hand (``-1`` before they bid). Tricks are
    tuples of ``(seat, tile)`` in play order. ``played_by[s]`` is the bit set of tiles seat ``s``
    has played this hand. ``legal_mask`` is the legal-action bit set when this seat is to act, else 0.
    ``hands`` is every hand only with ``open_hands``.

    A NamedTuple (immutable, and built positionally in ``Texas42Game.view``) because a view is made
    at every step: a frozen dataclass took longer to build than the engine took to move.
    """

    config: Texas42Config
    seat: int
    phase: int
    to_act: int  # -1 when the episode is over
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
    points: tuple[int, int]  # per team, this hand
    marks: tuple[int, int]  # per team, this game
    legal_mask: int
    hands: tuple[int, ...] | None = None


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
_LIST_FIELDS += ("tricks_won", "voids")


class Texas42Game:
    """One Texas 42 episode (a hand or a game). ``rng`` deals; ``deal`` fixes the first deal."""

    num_actions = NUM_ACTIONS

    def __init__(
        self,
        config: Texas42Config | None = None,
        rng: np.random.Generator | None = None,
        deal: dict | None = None,
    ):
        self.config = config or Texas42Config()
        self.num_players = self.config.num_players
        self.rng = rng if rng is not None else np.random.default_rng()
        self.marks = [0, 0]
        self.hands_scored = 0
        self.deals = 0
        self.last_result: dict | None = None
        if deal is None:
            shaker = int(self.rng.integers(self.num_players))
            self._deal(shaker, self._random_hands())
        else:
            hands, shaker = self._read_deal(deal)
            self._deal(shaker, hands)

    # ----- dealing --------------------------------------------------------------------------
    def _random_hands(self) -> list[int]:
        order = self.rng.permutation(NUM_TILES).tolist()
        return [
            sum(1 << t for t in order[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(self.num_players)
        ]

    def _read_deal(self, deal: Any) -> tuple[list[int], int]:
        """Validate ``{"hands": [[tile texts or ids] x4], "shaker": s}``; raise ``ValueError``."""
        if not isinstance(deal, dict) or set(deal) - {"hands", "shaker"} or "hands" not in deal:
            raise ValueError('a deal is {"hands": [4 lists of 7 tiles], "shaker": seat}')
        raw = deal["hands"]
        if not isinstance(raw, (list, tuple)) or len(raw) != self.num_players:
            raise ValueError(f"a deal needs {self.num_players} hands")
        hands = []
        for h in raw:
            if not isinstance(h, (list, tuple)) or len(h) != HAND_SIZE:
                raise ValueError(f"every hand holds {HAND_SIZE} tiles, got {h!r}")
            mask = 0
            for tile in h:
                t = TILES.parse(tile) if isinstance(tile, str) else tile
                if not isinstance(t, int) or isinstance(t, bool) or not 0 <= t < NUM_TILES or mask >> t & 1:
                    raise ValueError(f"bad or repeated tile {tile!r} in hand {h!r}")
                mask |= 1 << t
            hands.append(mask)
        if sum(hands) != TILES.full_mask or any(a & b for i, a in enumerate(hands) for b in hands[i + 1 :]):
            raise ValueError("the hands must hold all 28 tiles, each exactly once")
        shaker = deal.get("shaker", 0)
        if not isinstance(shaker, int) or isinstance(shaker, bool) or not 0 <= shaker < self.num_players:
            raise ValueError(f"shaker must be a seat 0..{self.num_players - 1}, got {shaker!r}")
        return hands, shaker

    def _deal(self, shaker: int, hands: list[int]) -> None:
        self.deals += 1
        self.deal_marks, self.deal_scored = tuple(self.marks), self.hands_scored
        self.shaker = shaker
        self.dealt = tuple(hands)
        self.hands = list(hands)
        self.history: list[int] = []
        self.phase = BID
        self.to_act = (shaker + 1) % self.num_players
        self.bids = [-1] * self.num_players
        self.high = 0  # value of the highest bid so far
        self.bidder = -1  # highest bidder so far
        self.bid = -1  # their bid's action id
        self.declarer = -1
        self.declaration = -1
        self.sitting_out = -1
        self.scheme: Scheme | None = None
        self.trick: list[tuple[int, int]] = []
        self.tricks: list[tuple[tuple[int, int], ...]] = []
        self.trick_winners: list[int] = []
        self.played_by = [0] * self.num_players
        self.voids = [0] * self.num_players  # per seat, bit set of suits it failed to follow
        self.points = [0, 0]
        self.tricks_won = [0, 0]
        self.led = -1
        self.best_seat = -1
        self.best_power = -2

    # ----- protocol ---------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self.phase == DONE else self.to_act

    @property
    def is_terminal(self) -> bool:
        return self.phase == DONE

    def legal_mask(self) -> int:
        """Bit set over action ids of the moves legal for the seat to act (0 once terminal)."""
        phase = self.phase
        if phase == PLAY_PHASE:
            return self._legal_tiles() << PLAY
        if phase == BID:
            seat = self.to_act
            mask = BIDS_OVER[self.high]
            if not (self.config.forced_bid and seat == self.shaker and self.high == 0):
                mask |= 1 << PASS
            if self.config.plunge and (self.hands[seat] & TILES.doubles_mask).bit_count() >= 4:
                mask |= PLUNGES_OVER[self.high]
            return mask
        if phase == DECLARE:
            mask = ((1 << (TRUMP_FOLLOWME + 1)) - 1) ^ ((1 << TRUMP) - 1)
            if self.bid >= BID_MARKS and self.bid < BID_PLUNGE:
                if self.config.nello is not None:
                    mask |= 1 << NELLO
                if self.config.sevens:
                    mask |= 1 << SEVENS
            return mask
        return 0

    def _legal_tiles(self) -> int:
        hand = self.hands[self.to_act]
        if self.declaration == SEVENS:
            for m in SEVENS_MASKS:
                if hand & m:
                    return hand & m
        if not self.trick:
            return hand
        return hand & self.scheme.follow[self.led] or hand

    def legal_actions(self) -> list[int]:
        return list(iter_bits(self.legal_mask()))

    def apply(self, action: int) -> None:
        """Play ``action`` for the seat to act; an illegal one raises and changes nothing."""
        if not (isinstance(action, int) and 0 <= action < NUM_ACTIONS and self.legal_mask() >> action & 1):
            raise IllegalActionError(self._illegal_message(action))
        self.last_result = None
        self.history.append(action)
        if self.phase == PLAY_PHASE:
            self._play(action - PLAY)
        elif self.phase == BID:
            self._bid(action)
        else:
            self._declare(action)

    def _illegal_message(self, action: Any) -> str:
        if self.phase == DONE:
            return f"move {self._describe(action)} after the episode ended: no move is legal"
        legal = ", ".join(self.action_to_text(a) for a in self.legal_actions())
        return (
            f"illegal move {self._describe(action)} by seat {self.to_act} in the "
            f"{PHASE_NAMES[self.phase]} phase; legal: {legal}"
        )

    def _describe(self, action: Any) -> str:
        if isinstance(action, int) and 0 <= action < NUM_ACTIONS:
            return repr(self.action_to_text(action))
        return f"{action!r} (action ids run 0..{NUM_ACTIONS - 1})"

    # ----- phases -------------------------------------------------------------------------------
    def _bid(self, action: int) -> None:
        seat = self.to_act
        self.bids[seat] = action
        if action != PASS:
            self.high, self.bidder, self.bid = bid_value(action), seat, action
        if seat != self.shaker:
            self.to_act = (seat + 1) % self.num_players
        elif self.bidder < 0:  # four passes: the hand is void and the deal passes on
            self._deal((self.shaker + 1) % self.num_players, self._random_hands())
        else:
            self.phase = DECLARE
            plunge = self.bid >= BID_PLUNGE
            self.declarer = (self.bidder + 2) % self.num_players if plunge else self.bidder
            self.to_act = self.declarer

    def _declare(self, action: int) -> None:
        self.declaration = action
        self.scheme = declared_scheme(action, self.config)
        if action == NELLO:
            self.sitting_out = (self.bidder + 2) % self.num_players
        self.phase = PLAY_PHASE
        self.to_act = self.declarer

    def _next_seat(self, seat: int) -> int:
        seat = (seat + 1) % self.num_players
        return (seat + 1) % self.num_players if seat == self.sitting_out else seat

    def _play(self, tile: int) -> None:
        seat = self.to_act
        self.hands[seat] ^= 1 << tile
        self.played_by[seat] |= 1 << tile
        if not self.trick:
            self.led = self.scheme.lead[tile]
        elif not self.scheme.follow[self.led] >> tile & 1 and self.declaration != SEVENS:
            self.voids[seat] |= 1 << self.led
        power = SEVENS_POWER[tile] if self.declaration == SEVENS else self.scheme.power[self.led][tile]
        if power > self.best_power:  # ties keep the earlier tile (only possible in Sevens)
            self.best_power, self.best_seat = power, seat
        self.trick.append((seat, tile))
        trick_size = self.num_players - (self.sitting_out >= 0)
        if len(self.trick) < trick_size:
            self.to_act = self._next_seat(seat)
            return
        winner = self.best_seat
        team = winner % 2
        self.points[team] += 1 + sum(COUNT[t] for _, t in self.trick)
        self.tricks_won[team] += 1
        self.tricks.append(tuple(self.trick))
        self.trick_winners.append(winner)
        self.trick = []
        self.best_power, self.to_act = -2, winner
        made = self._decided()
        if made is not None:
            self._score(made)

    def _decided(self) -> bool | None:
        """True/False once the contract is made/set (early only with ``stop_when_decided``)."""
        bt = self.bidder % 2
        all_played = len(self.tricks) == HAND_SIZE
        early = self.config.stop_when_decided
        if self.bid < BID_MARKS:  # a point bid: reach the bid in points
            need = bid_value(self.bid)
            if all_played:
                return self.points[bt] >= need
            if early and self.points[bt] >= need:
                return True
            if early and self.points[1 - bt] > POINTS_PER_HAND - need:
                return False
            return None
        # Mark bids, Plunge and Sevens need every trick; Nello needs none (the partner sits out,
        # so the bidding team takes a trick only through the bidder).
        set_ = self.tricks_won[bt] > 0 if self.declaration == NELLO else self.tricks_won[1 - bt] > 0
        if all_played or (early and set_):
            return not set_
        return None

    def _score(self, made: bool) -> None:
        bt = self.bidder % 2
        won = bt if made else 1 - bt
        marks = bid_marks(self.bid)
        self.marks[won] += marks
        self.hands_scored += 1
        hand_marks = [0, 0]
        hand_marks[won] = marks
        self.last_result = {
            "hand_marks": [hand_marks[s % 2] for s in range(self.num_players)],
            "marks": [self.marks[s % 2] for s in range(self.num_players)],
            "points_taken": [self.points[s % 2] for s in range(self.num_players)],
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
            self._deal((self.shaker + 1) % self.num_players, self._random_hands())

    # ----- text -------------------------------------------------------------------------------
    @staticmethod
    def action_to_text(action: int) -> str:
        """RULES.md 3.9 notation of an action id."""
        return ACTION_TEXT[action]

    @staticmethod
    def action_from_text(text: str) -> int:
        """Action id of a move in RULES.md 3.9 notation (tile halves in either order)."""
        words = " ".join(text.lower().split())
        if words.startswith("play "):
            return PLAY + TILES.parse(words[5:])
        if words not in _TEXT_ACTION:
            raise ValueError(
                f"cannot read move {text!r}; e.g. 'pass', 'bid 30', 'bid 2m', 'trump 5', 'play 6-4'"
            )
        return _TEXT_ACTION[words]

    def render_text(self, seat: int | None = None) -> str:
        """A plain-text picture of the state: every hand (for logs), or with ``seat`` only what that
        seat may see (the other hands as tile counts, unless ``open_hands``)."""
        team_marks = f"marks: team 0 (seats 0+2) {self.marks[0]}, team 1 (seats 1+3) {self.marks[1]}"
        lines = [f"Texas 42 ({self.config.preset}) - {team_marks} - shaker: seat {self.shaker}"]
        for s in range(self.num_players):
            note = " (sits out)" if s == self.sitting_out else ""
            if seat is None or s == seat or self.config.open_hands:
                shown = " ".join(TILES.names(self.hands[s])) or "-"
            else:
                shown = f"{self.hands[s].bit_count()} tiles"
            lines.append(f"  seat {s}: {shown}{note}")
        bids = ", ".join(f"{s}: {ACTION_TEXT[b]}" for s, b in enumerate(self.bids) if b >= 0)
        lines.append(f"bids: {bids or '-'}")
        if self.declaration >= 0:
            lines.append(
                f"contract: seat {self.bidder} {ACTION_TEXT[self.bid]}, {ACTION_TEXT[self.declaration]}"
                f" - points {self.points[0]}:{self.points[1]}"
            )
        for i, (trick, winner) in enumerate(zip(self.tricks, self.trick_winners, strict=True)):
            lines.append(f"trick {i + 1}: {_trick_text(trick)} -> seat {winner}")
        if self.trick:
            lines.append(f"trick {len(self.tricks) + 1}: {_trick_text(self.trick)}")
        if self.phase == DONE:
            lines.append("episode over")
        else:
            lines.append(f"to act: seat {self.to_act} ({PHASE_NAMES[self.phase]})")
        return "\n".join(lines)

    # ----- copies and saved games -------------------------------------------------------------
    def clone(self) -> Texas42Game:
        """An independent copy (its own generator state too)."""
        other = copy.copy(self)
        for name in _LIST_FIELDS:
            setattr(other, name, list(getattr(self, name)))
        bit_generator = type(self.rng.bit_generator)()
        bit_generator.state = self.rng.bit_generator.state  # much cheaper than deepcopy (as in LineGame)
        other.rng = np.random.Generator(bit_generator)
        other.last_result = copy.deepcopy(self.last_result)
        return other

    def to_json(self) -> str:
        """The state as JSON: the current hand's deal and moves, replayed by ``from_json``."""
        return json.dumps(
            {
                "game": "texas42",
                "config": asdict(self.config),
                "marks": list(self.deal_marks),  # at the deal; the moves replay the rest
                "hands_scored": self.deal_scored,
                "deals": self.deals,
                "shaker": self.shaker,
                "dealt": [TILES.names(h) for h in self.dealt],
                "moves": [ACTION_TEXT[a] for a in self.history],
                "last_result": self.last_result,
                "rng": self.rng.bit_generator.state,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Texas42Game:
        """Rebuild a game from ``to_json``; anything malformed or illegal raises ``ValueError``."""
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or data.get("game") != "texas42":
                raise ValueError("not a Texas 42 saved game")
            config = Texas42Config(**data["config"])
            rng = np.random.Generator(getattr(np.random, data["rng"]["bit_generator"])())
            rng.bit_generator.state = data["rng"]
            game = cls(config, rng, deal={"hands": data["dealt"], "shaker": data["shaker"]})
            marks, scored, deals = data["marks"], data["hands_scored"], data["deals"]
            if not (
                isinstance(marks, list) and len(marks) == 2 and all(type(m) is int and m >= 0 for m in marks)
            ):
                raise ValueError(f"bad marks {marks!r}")
            if not (type(scored) is int and type(deals) is int and 0 <= scored < deals):
                raise ValueError("bad hand counters")
            game.marks, game.hands_scored, game.deals = list(marks), scored, deals
            game.deal_marks, game.deal_scored = tuple(marks), scored
            for move in data["moves"]:
                if game.phase == DONE or game.deals != deals:
                    raise ValueError("a saved hand holds moves beyond its end")
                game.apply(cls.action_from_text(move))
            result = data["last_result"]
            if not data["moves"]:  # a fresh deal: the result of the hand before it, if any
                if result is not None and not isinstance(result, dict):
                    raise ValueError(f"bad last_result {result!r}")
                game.last_result = result
            return game
        except (KeyError, TypeError, AttributeError) as err:
            raise ValueError(f"malformed Texas 42 saved game: {err!r}") from err

    # ----- what a seat may know ---------------------------------------------------------------
    def view(self, seat: int) -> Texas42View:
        """The seat's view (RULES.md 4): nothing of another hand, the Nello partner's included."""
        to_act = -1 if self.phase == DONE else self.to_act
        # Positional, in Texas42View's field order: keywords cost several times more per step.
        return Texas42View(
            self.config,  # config
            seat,  # seat
            self.phase,  # phase
            to_act,  # to_act
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
            (self.marks[0], self.marks[1]),  # marks
            self.legal_mask() if seat == to_act else 0,  # legal_mask
            tuple(self.hands) if self.config.open_hands else None,  # hands
        )


def _trick_text(trick: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> str:
    return " ".join(f"{seat}:{TILES.name(t)}" for seat, t in trick)


def _action_texts() -> tuple[str, ...]:
    texts = ["pass"]
    texts += [f"bid {b}" for b in range(MIN_POINT_BID, MAX_POINT_BID + 1)]
    texts += [f"bid {k}m" for k in range(1, MAX_MARKS + 1)]
    texts += [f"bid plunge {k}m" for k in range(MIN_PLUNGE, MAX_MARKS + 1)]
    texts += [f"trump {v}" for v in range(7)] + ["trump doubles", "trump followme", "nello", "sevens"]
    texts += [f"play {TILES.name(t)}" for t in range(NUM_TILES)]
    assert len(texts) == NUM_ACTIONS
    return tuple(texts)


ACTION_TEXT = _action_texts()
_TEXT_ACTION = {text: a for a, text in enumerate(ACTION_TEXT) if a < PLAY}
