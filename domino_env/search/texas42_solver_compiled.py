"""Texas 42's search inner loops compiled with numba: the exact endgame value and the heuristic's play.

- ``Texas42Solver.value`` is ``bots.texas42.alphabeta`` (minimax with alpha-beta pruning on
  ``team_value``, every hand visible) on machine integers, for every form of the game (42,
  three-player 42, Texas 88; every trump scheme, follow-me, Nello, Sevens): hands are ``int64`` bit
  sets (at most 56 tiles), moves are made and undone in place, and a leaf's value is
  ``team_value``'s float by the same formula, so the value is the reference's to the last bit.
- ``rollout_value`` and ``playout_points`` play the heuristic's moves
  (``HeuristicTexas42Agent._play``, ported rule for rule, ties included) for every seat: the search's
  rollouts until the endgame, and its bidding simulations to the end of the hand.

``tests/search/test_texas42_solver_compiled.py`` checks all three against the Python reference on
random positions of every form. The rules a position needs are packed per call from the engine's
tables (``_rules``); the compiled code is cached on disk by numba (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domino_env.rules.texas42 import PLAY_PHASE, TRUMP_SUIT, Texas42Game

MAX_TRICK = 6  # seats in a trick (Texas 88)
_INF = np.inf
_NEVER = np.int64(-1)  # ``stop_tiles`` of a playout to the end of the hand
_ZERO, _NO_SUIT, _NO_POWER = np.int64(0), np.int64(-1), np.int64(-2)  # typed: numba#6061


@njit(cache=True)
def _legal(hand, trick_len, led, rules):
    """``Texas42Game._legal_tiles``: the tiles of ``hand`` the seat may play."""
    follow, sevens, sevens_masks = rules[1], rules[3], rules[4]
    if sevens:
        for k in range(sevens_masks.shape[0]):
            if hand & sevens_masks[k]:
                return hand & sevens_masks[k]
    if trick_len == 0:
        return hand
    followed = hand & follow[led]
    return followed if followed else hand


@njit(cache=True)
def _trick_power(tile, led, rules):
    """The power that decides a trick: pips' nearness to 7 under Sevens, else the led suit's rank."""
    return rules[5][tile] if rules[3] else rules[2][led, tile]


@njit(cache=True)
def _close_trick(trick_tiles, row, winner, points, tricks_won, rules):
    """Score a finished trick for ``winner``'s side; ``(points gained, decided, made)`` after it
    (``contract_outcome``)."""
    (_lead, _follow, _power, _sevens, _sevens_masks, _sevens_power, count, sides, _next_seat,
     trick_size, bidder_side, _marks, point_bid, need, nello, points_per_hand,
     stop_when_decided, _root_side, trick_value, num_tricks) = rules
    side = sides[winner]
    gained = trick_value
    for k in range(trick_size):
        gained += count[trick_tiles[row, k]]
    points[side] += gained
    tricks_won[side] += 1
    ours, theirs = points[bidder_side], points[1 - bidder_side]
    our_tricks, their_tricks = tricks_won[bidder_side], tricks_won[1 - bidder_side]
    setting = their_tricks + nello * (our_tricks - their_tricks)
    reached, out_of_reach = ours >= need, theirs > points_per_hand - need
    made = (point_bid and reached) or (not point_bid and setting == 0)
    settled = (point_bid and (reached or out_of_reach)) or (not point_bid and setting > 0)
    decided = our_tricks + their_tricks == num_tricks or (stop_when_decided and settled)
    return gained, decided, made


@njit(cache=True)
def _leaf(points, made, rules):
    """``team_value`` of the root seat's side once the contract is ``made`` or set."""
    bidder_side, marks, root_side = rules[10], rules[11], rules[17]
    won = bidder_side if made else 1 - bidder_side
    marks_value = float(marks) if won == root_side else -float(marks)
    return marks_value + (points[root_side] - points[1 - root_side]) / 100


@njit(cache=True)
def _search(hands, current, trick_tiles, trick_seats, trick_len, led, best_power, best_seat,
            points, tricks_won, alpha, beta, rules):
    """``alphabeta``: the minimax value for the root seat's side (which maximizes), ``current`` to
    play. Trick ``k`` is row ``k`` of ``trick_tiles``/``trick_seats``, so a later trick never
    overwrites one an ancestor still reads."""
    lead, sides, next_seat, trick_size, root_side = rules[0], rules[7], rules[8], rules[9], rules[17]
    maximizing = sides[current] == root_side
    best = -_INF if maximizing else _INF
    hand = hands[current]
    row = tricks_won[0] + tricks_won[1]
    legal = _legal(hand, trick_len, led, rules)
    for tile in range(lead.shape[0]):  # by tile id, as the reference
        bit = np.int64(1) << tile
        if not legal & bit:
            continue
        hands[current] = hand ^ bit
        new_led = lead[tile] if trick_len == 0 else led
        p = _trick_power(tile, new_led, rules)
        new_best_power, new_best_seat = (p, current) if p > best_power else (best_power, best_seat)
        trick_tiles[row, trick_len], trick_seats[row, trick_len] = tile, current
        if trick_len + 1 < trick_size:
            value = _search(hands, next_seat[current], trick_tiles, trick_seats, trick_len + 1, new_led,
                            new_best_power, new_best_seat, points, tricks_won, alpha, beta, rules)
        else:
            gained, decided, made = _close_trick(trick_tiles, row, new_best_seat, points, tricks_won, rules)
            if decided:
                value = _leaf(points, made, rules)
            else:
                value = _search(hands, new_best_seat, trick_tiles, trick_seats, _ZERO, _NO_SUIT,
                                _NO_POWER, _NO_SUIT, points, tricks_won, alpha, beta, rules)
            points[sides[new_best_seat]] -= gained
            tricks_won[sides[new_best_seat]] -= 1
        hands[current] = hand
        if maximizing:
            best = max(best, value)
            alpha = max(alpha, value)
        else:
            best = min(best, value)
            beta = min(beta, value)
        if alpha >= beta:
            break
    return best


@njit(cache=True)
def _boss(tile, suit, unseen, power):
    """No unseen tile beats ``tile`` in ``suit`` (``HeuristicTexas42Agent._play``'s ``boss``)."""
    for u in range(power.shape[1]):
        if unseen >> u & 1 and power[suit, u] > power[suit, tile]:
            return False
    return True


@njit(cache=True)
def _cheapest(tiles, count, pips):
    """The tile of bit set ``tiles`` with the least (count, pips, id)."""
    best = -1
    for t in range(count.shape[0]):
        if tiles >> t & 1 and (best < 0 or (count[t], pips[t]) < (count[best], pips[best])):
            best = t
    return best


@njit(cache=True)
def _heuristic_tile(hands, seat, legal, trick_tiles, trick_seats, row, trick_len, rules, table):
    """``HeuristicTexas42Agent._play`` for ``seat`` (the first of equals wherever it takes the first)."""
    lead, power = rules[0], rules[2]
    pips, bidder, nello_declared, discards = table
    if legal & (legal - 1) == 0:
        return 63 - _leading_zeros(legal)
    unseen = discards if seat != bidder else np.int64(0)
    for s in range(hands.shape[0]):
        if s != seat:
            unseen |= hands[s]
    if nello_declared and bidder == seat:  # lose every trick: the lowest tile under its own suit
        best = -1
        for t in range(lead.shape[0]):
            if legal >> t & 1 and (best < 0 or power[lead[t], t] < power[lead[best], best]):
                best = t
        return best
    if trick_len == 0:
        return _opening_tile(seat, legal, unseen, rules, table)
    return _following_tile(seat, legal, unseen, trick_tiles, trick_seats, row, trick_len, rules, table)


@njit(cache=True)
def _opening_tile(seat, legal, unseen, rules, table):
    """The heuristic's lead: the boss trump when its side bid and others hold trumps, else its best
    boss tile, else its cheapest tile off trumps."""
    lead, follow, power, count, sides = rules[0], rules[1], rules[2], rules[6], rules[7]
    pips, bidder = table[0], table[1]
    trumps = legal & follow[TRUMP_SUIT]
    if sides[bidder] == sides[seat] and trumps and unseen & follow[TRUMP_SUIT]:
        top = -1
        for t in range(lead.shape[0]):
            if trumps >> t & 1 and (top < 0 or power[TRUMP_SUIT, t] > power[TRUMP_SUIT, top]):
                top = t
        if _boss(top, TRUMP_SUIT, unseen, power):
            return top
    best = -1
    for t in range(lead.shape[0]):
        if legal >> t & 1 and lead[t] != TRUMP_SUIT and _boss(t, lead[t], unseen, power) and (
                best < 0 or (count[t], pips[t]) > (count[best], pips[best])):
            best = t
    if best >= 0:
        return best
    side_suits = legal & ~follow[TRUMP_SUIT]
    return _cheapest(side_suits if side_suits else legal, count, pips)


@njit(cache=True)
def _following_tile(seat, legal, unseen, trick_tiles, trick_seats, row, trick_len, rules, table):
    """The heuristic's answer to a trick: feed count to a partner sure to win it, win it as cheaply
    as is safe, else shed the cheapest tile (the top winner when count is at stake)."""
    lead, power, count, sides, trick_size = rules[0], rules[2], rules[6], rules[7], rules[9]
    pips = table[0]
    led = lead[trick_tiles[row, 0]]
    best_k = 0
    for k in range(1, trick_len):
        if power[led, trick_tiles[row, k]] > power[led, trick_tiles[row, best_k]]:
            best_k = k
    best_seat, best_tile = trick_seats[row, best_k], trick_tiles[row, best_k]
    last = trick_len == trick_size - 1
    if sides[best_seat] == sides[seat]:
        if not (last or _boss(best_tile, led, unseen, power)):
            return _cheapest(legal, count, pips)
        best = -1
        for t in range(lead.shape[0]):  # most count, then least power, then highest id
            if legal >> t & 1 and (best < 0 or (count[t], -power[led, t], -t)
                                   > (count[best], -power[led, best], -best)):
                best = t
        return best
    return _overtaking_tile(legal, unseen, led, best_tile, last, trick_tiles, row, trick_len, rules, table)


@njit(cache=True)
def _overtaking_tile(legal, unseen, led, best_tile, last, trick_tiles, row, trick_len, rules, table):
    """Against the other side's best tile: the cheapest safe winner, else the top winner when count
    is at stake, else the cheapest tile."""
    lead, power, count, pips = rules[0], rules[2], rules[6], table[0]
    winners = np.int64(0)
    for t in range(lead.shape[0]):
        if legal >> t & 1 and power[led, t] > power[led, best_tile]:
            winners |= np.int64(1) << t
    if winners == 0:
        return _cheapest(legal, count, pips)
    best = -1
    for t in range(lead.shape[0]):
        if winners >> t & 1 and (last or _boss(t, led, unseen, power)):
            if best < 0 or power[led, t] - 10 * count[t] * last < power[led, best] - 10 * count[best] * last:
                best = t
    if best >= 0:
        return best
    at_stake = 0
    for k in range(trick_len):
        at_stake += count[trick_tiles[row, k]]
    if at_stake == 0:
        return _cheapest(legal, count, pips)
    best = -1
    for t in range(lead.shape[0]):
        if winners >> t & 1 and (best < 0 or power[led, t] > power[led, best]):
            best = t
    return best


@njit(cache=True)
def _leading_zeros(x):
    """Leading zero bits of a positive ``int64``."""
    n = 0
    while not (x >> (63 - n)) & 1:
        n += 1
    return n


@njit(cache=True)
def _rollout(hands, current, trick_tiles, trick_seats, trick_len, led, best_power, best_seat, points,
             tricks_won, stop_tiles, rules, table):
    """Heuristic moves for every seat until the hand is decided or at most ``stop_tiles`` tiles are
    in hands (checked before every move, as ``Texas42SearchAgent.evaluate``); the exact value then.
    With ``stop_tiles`` negative, the hand is played to its end and the value is 0 (the caller
    reads ``points``)."""
    lead, next_seat, trick_size = rules[0], rules[8], rules[9]
    while True:
        if stop_tiles >= 0:
            tiles = 0
            for s in range(hands.shape[0]):
                tiles += _popcount(hands[s])
            if tiles <= stop_tiles:
                return _search(hands, current, trick_tiles, trick_seats, trick_len, led, best_power,
                               best_seat, points, tricks_won, -_INF, _INF, rules)
        row = tricks_won[0] + tricks_won[1]
        legal = _legal(hands[current], trick_len, led, rules)
        tile = _heuristic_tile(hands, current, legal, trick_tiles, trick_seats, row, trick_len, rules, table)
        hands[current] ^= np.int64(1) << tile
        if trick_len == 0:
            led = lead[tile]
        p = _trick_power(tile, led, rules)
        if p > best_power:
            best_power, best_seat = p, current
        trick_tiles[row, trick_len], trick_seats[row, trick_len] = tile, current
        trick_len += 1
        if trick_len < trick_size:
            current = next_seat[current]
            continue
        _gained, decided, made = _close_trick(trick_tiles, row, best_seat, points, tricks_won, rules)
        if decided:
            return _leaf(points, made, rules) if stop_tiles >= 0 else 0.0
        current, trick_len, led, best_power, best_seat = best_seat, 0, -1, -2, -1


@njit(cache=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


class Texas42Solver:
    """The compiled search loops for play-phase positions of any form of Texas 42 (module docstring).
    Each call packs the position; the arrays of the rules in force are built once per solver."""

    def __init__(self) -> None:
        self._rule_arrays: dict[tuple, tuple] = {}

    def rule_arrays(self, game: Texas42Game) -> tuple:
        """The scheme's lead, follow and power tables, the Sevens tables, the count, each seat's side and
        next seat, the pips: built once per variant, scheme and seating (a search packs thousands of
        positions of one hand, and ``np.array`` on these tuples took a tenth of its time)."""
        v, scheme = game.variant, game.scheme
        key = (id(v), id(scheme), tuple(game.sides), game.num_players, game.sitting_out)
        if key not in self._rule_arrays:  # the variant and scheme are kept with their arrays: ids stay theirs
            arrays = (np.array(scheme.lead, np.int64), np.array(scheme.follow, np.int64),
                      np.array(scheme.power, np.int64), np.array(v.sevens_masks, np.int64),
                      np.array(v.sevens_power, np.int64), np.array(v.count, np.int64),
                      np.array(game.sides, np.int64),
                      np.array([game._next_seat(s) for s in range(game.num_players)], np.int64),
                      np.array(v.pips, np.int64))
            self._rule_arrays[key] = (v, scheme, arrays)
        return self._rule_arrays[key][2]

    def _pack(self, game: Texas42Game, seat: int) -> tuple:
        """The position's state arrays and scalars, then its rules and the heuristic's tables."""
        if game.phase != PLAY_PHASE:
            raise ValueError(f"the compiled search takes play-phase positions, got phase {game.phase}")
        v, n = game.variant, game.num_players
        lead, follow, power, sevens_masks, sevens_power, count, sides, next_seat, pips = self.rule_arrays(
            game)
        rules = (
            lead, follow, power, game.declaration == v.sevens, sevens_masks, sevens_power, count, sides,
            next_seat,
            np.int64(n - (game.sitting_out >= 0)), np.int64(game.sides[game.bidder]),
            np.int64(v.bid_marks(game.bid)), game.bid < v.bid_marks_at, np.int64(game.high),
            np.int64(game.declaration == v.nello), np.int64(v.points_per_hand),
            bool(game.config.stop_when_decided), np.int64(game.sides[seat]), np.int64(v.trick_value),
            np.int64(v.num_tricks),
        )
        table = (pips, np.int64(game.bidder), game.declaration == v.nello,
                 np.int64(sum(1 << t for t in game.discards)))
        trick_tiles = np.zeros((v.num_tricks, MAX_TRICK), np.int64)  # a row per trick
        trick_seats = np.zeros((v.num_tricks, MAX_TRICK), np.int64)
        row = sum(game.tricks_won)
        for k, (s, t) in enumerate(game.trick):
            trick_tiles[row, k], trick_seats[row, k] = t, s
        state = (
            np.array(game.hands, np.int64), np.int64(game.current), trick_tiles, trick_seats,
            np.int64(len(game.trick)), np.int64(game.led if game.trick else -1),
            np.int64(game.best_power if game.trick else -2), np.int64(game.best_seat if game.trick else -1),
            np.array(game.points, np.int64), np.array(game.tricks_won, np.int64),
        )
        return state, rules, table

    def value(self, game: Texas42Game, seat: int) -> float:
        """``alphabeta(game, seat)``: ``team_value`` for ``seat`` with every hand visible."""
        state, rules, _ = self._pack(game, seat)
        return float(_search(*state, -_INF, _INF, rules))

    def rollout_value(self, game: Texas42Game, seat: int, stop_tiles: int) -> float:
        """The heuristic plays every seat until at most ``stop_tiles`` tiles are in hands, then the
        endgame's exact value for ``seat`` (or the hand's, if it is decided first)."""
        state, rules, table = self._pack(game, seat)
        return float(_rollout(*state, np.int64(stop_tiles), rules, table))

    def playout_points(self, game: Texas42Game, seat: int) -> int:
        """The points ``seat``'s side takes when the heuristic plays every seat to the hand's end."""
        state, rules, table = self._pack(game, seat)
        points = state[8]
        _rollout(*state, _NEVER, rules, table)
        return int(points[game.sides[seat]])
