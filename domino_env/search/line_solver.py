"""Exact solver for line-game endgames with every hand visible and nothing left to draw.

The search bot solves each sampled world from the point where no chance is left. Cloning the
engine for every node cost ~35 us (it copies the random generator too) and dominated the search;
this solver works on plain integers instead: a position is ``(hands, left, right, mover, passes)``
(``hands`` a tuple of tile bit masks), scored with the engine's own rules (docs/rules.md 2.3, mirrored
by ``round_points`` and checked against the engine in the tests).

Every side maximizes its margin (its points minus the mean of the other sides' points): max-n
(``value``), memoized per position. With two sides that is a zero-sum game and ``margin_of`` runs
alpha-beta on the margin with bounds memoized per position instead: several times fewer nodes
(Block 2p from the opening: ~0.1 s down to ~0.02 s), and the search spends most of its time here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from domino_env.rules.line import LineConfig, LineGame

Position = tuple[tuple[int, ...], int, int, int, int]  # hands, left end, right end, mover, passes


def margin(points: tuple[int, ...], side: int) -> float:
    """``side``'s points minus the mean of the other sides' points: what every side maximizes."""
    return points[side] - (sum(points) - points[side]) / (len(points) - 1)


OBJECTIVES = ("margin", "wins")
"""What a search's rollouts score: ``margin`` (above), or ``wins``: the side's pairwise comparisons
with every other side, 1 won, 1/2 tied, 0 lost, averaged, less 1/2. That is what the evaluation
harness's cross-play share counts, where the margin weighs a big win over a narrow loss."""


def side_outcomes(points: np.ndarray, side: int, objective: str) -> np.ndarray:
    """``objective`` (``OBJECTIVES``) for ``side`` of rows of per-side points (``points[..., s]``):
    ``margin``'s value on each row, whole batches of rollouts at once."""
    mine = points[..., side]
    others = points.shape[-1] - 1
    if objective == "margin":
        return mine - (points.sum(axis=-1) - mine) / others
    return np.sign(mine[..., None] - points).sum(axis=-1) / (2 * others)


class LineSolver:
    """Exact round points per side of positions of one ``LineConfig`` (see the module docstring)."""

    def __init__(self, config: LineConfig):
        ts = config.tiles
        self.config = config
        self.n = config.num_players
        self.num_sides = config.num_sides
        self.side = tuple(config.side_of(s) for s in range(self.n))
        self.suit = ts.suit_mask
        self.low, self.high = ts.low, ts.high
        self.pips = ts.pips
        self.minus_own = config.scoring == "others_minus_own"
        self.table: dict[Position, tuple[int, ...]] = {}
        self.bounds: dict[Position, tuple[float, float]] = {}

    @staticmethod
    def position(game: LineGame) -> Position:
        """The solver's position of ``game`` (which must have nothing left to draw)."""
        return tuple(game.hands), game.left, game.right, game.current, game.passes

    def hand_pips(self, hand: int) -> int:
        total = 0
        while hand:
            low = hand & -hand
            total += self.pips[low.bit_length() - 1]
            hand ^= low
        return total

    def round_points(self, hands: tuple[int, ...], winner: int | None) -> tuple[int, ...]:
        """Points per side when the round ends: ``winner`` went out, or ``None`` for blocked."""
        pips = [self.hand_pips(h) for h in hands]
        if winner is None:
            low = min(pips)
            winners = [s for s in range(self.n) if pips[s] == low]
            if len({self.side[s] for s in winners}) > 1:
                return (0,) * self.num_sides
            winner = winners[0]
        side = self.side[winner]
        won = sum(p for s, p in enumerate(pips) if self.side[s] != side)
        if self.minus_own:
            won -= pips[winner]
        return tuple(won if k == side else 0 for k in range(self.num_sides))

    def children(self, pos: Position) -> list[tuple[int, bool, Position | tuple[int, ...]]]:
        """``(action id, ends the round, next position or final points)`` for every legal move
        (pass: action -1), by action id; placements leading to the same position are kept once
        (a tile fitting two equal ends)."""
        hands, left, right, mover, passes = pos
        hand = hands[mover]
        nxt = (mover + 1) % self.n
        if left < 0:
            fits = ((hand, 0),)
        else:
            fits = ((hand & self.suit[left], 0), (hand & self.suit[right], 1))
        moves: list[tuple[int, int, int, int]] = []
        for mask, side in fits:
            while mask:
                bit = mask & -mask
                mask ^= bit
                t = bit.bit_length() - 1
                lo, hi = self.low[t], self.high[t]
                if left < 0:
                    ends = (lo, hi)
                elif side == 0:
                    ends = (hi if lo == left else lo, right)
                else:
                    ends = (left, hi if lo == right else lo)
                moves.append((2 * t + side, t, *ends))
        if not moves:
            if passes + 1 == self.n:
                return [(-1, True, self.round_points(hands, None))]
            return [(-1, False, (hands, left, right, nxt, passes + 1))]
        moves.sort()
        out: list[tuple[int, bool, Position | tuple[int, ...]]] = []
        seen = set()
        for action, t, new_left, new_right in moves:
            if (t, new_left, new_right) in seen:
                continue
            seen.add((t, new_left, new_right))
            rest = hand & ~(1 << t)
            after = hands[:mover] + (rest,) + hands[mover + 1:]
            if rest == 0:
                out.append((action, True, self.round_points(after, mover)))
            else:
                out.append((action, False, (after, new_left, new_right, nxt, 0)))
        return out

    def after(self, pos: Position, action: int) -> tuple[bool, Position | tuple[int, ...]]:
        """``(ends the round, next position or final points)`` of legal placement ``action`` at ``pos``."""
        moves = {a: (final, child) for a, final, child in self.children(pos)}
        return moves[action] if action in moves else moves[action ^ 1]  # a side kept once (``children``)

    def value(self, pos: Position) -> tuple[int, ...]:
        """Exact round points per side of ``pos`` (ties between moves: the lowest action id)."""
        found = self.table.get(pos)
        if found is not None:
            return found
        side = self.side[pos[3]]
        best: tuple[int, ...] | None = None
        best_margin = 0.0
        for _action, final, child in self.children(pos):
            points = child if final else self.value(child)
            m = margin(points, side)
            if best is None or m > best_margin:
                best, best_margin = points, m
        self.table[pos] = best
        return best

    def margin_of(self, pos: Position, side: int) -> float:
        """Exact margin of ``side`` at ``pos``: alpha-beta with two sides, else from ``value``."""
        if self.num_sides != 2:
            return margin(self.value(pos), side)
        mover = self.side[pos[3]]
        value = self._negamax(pos, -math.inf, math.inf)
        return value if mover == side else -value

    def margins(self, positions: Sequence[Position], sides: Sequence[int]) -> np.ndarray:
        """``margin_of`` each position for its side (the batch interface of ``CompiledLineSolver``)."""
        return np.array([self.margin_of(p, s) for p, s in zip(positions, sides, strict=True)], float)

    def _negamax(self, pos: Position, alpha: float, beta: float) -> float:
        """Two sides: the mover's side's points minus the other's, exact when it lies strictly
        inside ``(alpha, beta)``, else a bound on the same side of the window."""
        low, high = self.bounds.get(pos, (-math.inf, math.inf))
        if low >= beta or low == high:
            return low
        if high <= alpha:
            return high
        alpha, beta = max(alpha, low), min(beta, high)
        start_alpha, mover = alpha, self.side[pos[3]]
        best = -math.inf
        for _action, final, child in self.children(pos):
            if final:
                v = child[mover] - child[1 - mover]
            elif self.side[child[3]] == mover:
                v = self._negamax(child, alpha, beta)
            else:
                v = -self._negamax(child, -beta, -alpha)
            if v > best:
                best = v
                alpha = max(alpha, v)
                if alpha >= beta:
                    break
        if best <= start_alpha:
            high = best
        elif best >= beta:
            low = best
        else:
            low = high = best
        self.bounds[pos] = (low, high)
        return best
