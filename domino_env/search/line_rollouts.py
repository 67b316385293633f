"""Greedy rollouts of a line-game search, compiled with numba: every (decision, world, candidate)
row played by ``GreedyLineAgent``'s score (ported term for term, ties to the lowest action id) for
every seat, until its round ends or its endgame can be solved exactly.

``LineSearchAgent.rollouts`` plays each candidate on an engine clone of each world, one greedy move
at a time; here a decision's rows (and those of every decision of a lockstep batch) are one compiled
call, a row's rollout costing microseconds. The rows were first played on the torch batched engine
by the torch greedy, which on a CPU cost a few milliseconds a step for a hundred rows (some sixty
small torch operations): twice this search's whole time per move in Block 4p teams. The moves are
the view greedy's, so the margins and endgames are the reference path's on the same worlds
(``tests/search/test_line_worlds.py``). Block only: no stock, so no chance during the rollout.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from domino_env.rules.line import LineConfig
from domino_env.search.decisions import Decision
from domino_env.search.line_solver_compiled import _placed_ends, _round_result, solver_rules
from domino_env.search.line_worlds import line_voids

if TYPE_CHECKING:
    from domino_env.bots.line import GreedyWeights


_PASS, _DRAW = -1, -2  # the moves that are not placements (placement ``2 * tile + side`` as the engine's)


@njit(cache=True)
def _count(x):
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


@njit(cache=True)
def _void_on(void, end_a, end_b, suit):
    """A seat whose proven-absent tiles are ``void`` lacks either open end's number."""
    return (suit[end_a] & ~void) == 0 or (suit[end_b] & ~void) == 0


@njit(cache=True)
def _greedy_action(hands, seat, left, right, voids, played, can_draw, rules, greedy):
    """``GreedyLineAgent.act`` for ``seat``: its best placement, else a draw when ``can_draw``, else
    a pass."""
    seat_side, low, high, tile_bits = rules[0], rules[1], rules[2], rules[3]
    suit, pips, doubles, weights, full_mask, block = greedy
    w_pips, w_double, w_keep, w_opponent, w_partner, w_blocking = weights
    hand = hands[seat]
    unseen = full_mask & ~played & ~hand
    near_block = block and left >= 0 and _count(unseen & (suit[left] | suit[right])) <= 1
    pip_weight = w_blocking if near_block else w_pips
    best, best_score = _DRAW if can_draw else _PASS, -np.inf
    for t in range(low.shape[0]):
        if not hand & tile_bits[t]:
            continue
        rest = hand & ~tile_bits[t]
        for put in range(2):
            if left < 0 and put == 1:  # the opening: side 0 only
                continue
            end_a, end_b = _placed_ends(t, put, left, right, low, high)
            if end_a < 0:
                continue
            opponents, partners = 0, 0
            for s in range(hands.shape[0]):
                if s != seat and voids[s] and _void_on(voids[s], end_a, end_b, suit):
                    if seat_side[s] == seat_side[seat]:
                        partners += 1
                    else:
                        opponents += 1
            score = (pip_weight * pips[t] + w_double * doubles[t]
                     + w_keep * (_count(rest & suit[end_a]) + _count(rest & suit[end_b]))
                     + w_opponent * opponents - w_partner * partners)
            if score > best_score:
                best, best_score = 2 * t + put, score
    return best


@njit(cache=True)
def _margin(won_side, won, side, num_sides):
    """``side``'s points minus the mean of the others' when ``won_side`` (or nobody: -1) took ``won``."""
    if won_side < 0:
        return 0.0
    return float(won) if won_side == side else -won / (num_sides - 1)


@njit(cache=True)
def _rollouts(hands, left, right, mover, passes, voids, played, stock, drawn, first, side, num_sides,
              exact_tiles, rules, greedy):
    """Play each row's ``first`` action, then greedy moves for every seat. Per row: the margin of
    ``side[r]`` where the round ended (``finished``), else the state is left at the endgame, once
    nothing is drawable and at most ``exact_tiles`` tiles are in hands. ``stock[r]`` is the row's
    drawable tiles in order (-1 past its end), ``drawn[r]`` how many are taken."""
    seat_side, low, high, tile_bits = rules[0], rules[1], rules[2], rules[3]
    byte_pips, minus_own = rules[4], rules[5]
    suit = greedy[0]
    rows, n = hands.shape
    finished = np.zeros(rows, np.bool_)
    margins = np.zeros(rows)
    for r in range(rows):
        action = first[r]
        while True:
            seat = mover[r]
            if action == _DRAW:  # the seat takes the next tile and moves again; its voids are lifted
                hands[r, seat] |= tile_bits[stock[r, drawn[r]]]
                drawn[r] += 1
                voids[r, seat] = 0
            elif action == _PASS:  # the numbers on the ends are proven absent
                voids[r, seat] |= suit[left[r]] | suit[right[r]]
                if passes[r] + 1 == n:
                    won_side, won = _round_result(hands[r], -1, seat_side, byte_pips, minus_own)
                    finished[r], margins[r] = True, _margin(won_side, won, side[r], num_sides)
                    break
                passes[r] += 1
                mover[r] = (seat + 1) % n
            else:
                t = action >> 1
                left[r], right[r] = _placed_ends(t, action & 1, left[r], right[r], low, high)
                hands[r, seat] ^= tile_bits[t]
                played[r] |= tile_bits[t]
                passes[r] = 0
                if hands[r, seat] == 0:
                    won_side, won = _round_result(hands[r], seat, seat_side, byte_pips, minus_own)
                    finished[r], margins[r] = True, _margin(won_side, won, side[r], num_sides)
                    break
                mover[r] = (seat + 1) % n
            can_draw = drawn[r] < stock.shape[1] and stock[r, drawn[r]] >= 0
            tiles = 0
            for s in range(n):
                tiles += _count(hands[r, s])
            if not can_draw and tiles <= exact_tiles:
                break
            action = _greedy_action(hands[r], mover[r], left[r], right[r], voids[r], played[r], can_draw,
                                    rules, greedy)
    return finished, margins


class GreedyRollouts:
    """Greedy rollouts of one ``LineConfig`` (module docstring): the compiled solver's rules tables
    plus the greedy's."""

    def __init__(self, config: LineConfig, weights: GreedyWeights):
        ts, w = config.tiles, weights
        self.config = dataclasses.replace(config, target_score=None)
        self._rules = solver_rules(config)
        self._greedy = (
            np.array(ts.suit_mask, np.uint64), np.array(ts.pips, np.float64),
            np.array([ts.is_double(t) for t in range(ts.num_tiles)], np.float64),
            (w.pips, w.double, w.keep, w.opponent_void, w.partner_void, w.blocking_pips),
            np.uint64(ts.full_mask), config.variant == "block",
        )

    def run(self, decisions: list[Decision], exact_tiles: int) -> None:
        """Fill in ``decisions`` (of this config, each with its ``worlds`` and, in Draw, their
        ``stocks``) as ``LineSearchAgent.rollouts`` does one world at a time."""
        cfg, n = self.config, self.config.num_players
        rows = [(d, w, i) for d in decisions for w in range(len(d.worlds)) for i in range(len(d.candidates))]
        views = [d.view for d, _w, _i in rows]
        hands = np.array([d.worlds[w] for d, w, _i in rows], np.uint64)
        sizes = [len(d.worlds) * len(d.candidates) for d in decisions]  # public state: once a decision
        voids = np.repeat(np.array([[line_voids(d.view).get(s, 0) for s in range(n)] for d in decisions],
                                   np.uint64), sizes, axis=0)
        played = np.repeat(np.array([sum(1 << t for t, _seat, _side in d.view.line) for d in decisions],
                                    np.uint64), sizes)
        longest = max((len(stock) for d in decisions for stock in d.stocks or ()), default=0)
        stock = np.full((len(rows), longest), -1, np.int64)
        for r, (d, w, _i) in enumerate(rows):
            if d.stocks is not None:
                stock[r, :len(d.stocks[w])] = d.stocks[w]
        moves = {2 * cfg.tiles.num_tiles: _DRAW, 2 * cfg.tiles.num_tiles + 1: _PASS}
        first = np.array([moves.get(d.candidates[i], d.candidates[i]) for d, _w, i in rows], np.int64)
        left = np.array([v.left_end for v in views], np.int64)
        right = np.array([v.right_end for v in views], np.int64)
        mover = np.array([v.seat for v in views], np.int64)
        passes = np.array([v.passes_in_row for v in views], np.int64)
        finished, margins = _rollouts(
            hands, left, right, mover, passes, voids, played, stock, np.zeros(len(rows), np.int64), first,
            np.array([d.side for d, _w, _i in rows], np.int64), np.int64(cfg.num_sides),
            np.int64(exact_tiles), self._rules, self._greedy)
        for r, (d, w, i) in enumerate(rows):
            if finished[r]:
                d.add(w, i, float(margins[r]))
            else:
                d.add(w, i, (tuple(int(h) for h in hands[r]), int(left[r]), int(right[r]), int(mover[r]),
                             int(passes[r])))
