"""All Fives and Fives and Threes agents: ``greedy`` plays as a club player, ``search`` plays
determinized Monte Carlo over sampled deals.

A club player's order of concerns (Pagat's and the rule cards' advice on count games): score now,
do not leave the next opponent a count, get rid of heavy tiles (All Fives pays the winner the
opponents' pips), keep tiles that fit the layout so as not to draw or knock, and lay doubles while
they still fit. ``greedy`` weighs those per legal play (``FivesWeights``) on a small model of the
layout (``Layout``) built from the view alone; it never draws while it can play.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from domino_env.bots.base import register_bot
from domino_env.rules.conventions import check_choice
from domino_env.rules.fives import (
    END_STRIDE,
    FivesConfig,
    FivesGame,
    FivesView,
    Layout,
    count_points,
    tile_points,
)
from domino_env.rules.tiles import DOUBLE_SIX, iter_bits
from domino_env.search.decisions import Decision, SearchAgent
from domino_env.search.fives_beliefs import Deal, rebuild_fives, sample_fives_deal, table_mask
from domino_env.search.line_solver import OBJECTIVES, side_outcomes

if TYPE_CHECKING:
    from domino_env.search.fives_rollouts import FivesRollouts

_LOW, _HIGH, _PIPS, _SUIT = DOUBLE_SIX.low, DOUBLE_SIX.high, DOUBLE_SIX.pips, DOUBLE_SIX.suit_mask


def suit_tiles(numbers: Iterable[int]) -> int:
    """The tiles holding any of ``numbers`` (a union: two numbers share a tile)."""
    tiles = 0
    for v in numbers:
        tiles |= _SUIT[v]
    return tiles


def proven_absent(view: FivesView, seat: int) -> int:
    """Tiles ``seat`` cannot hold: the numbers of the open ends at its passes (and its draws under
    ``must_play``) since its last draw (a draw can bring the number back)."""
    cfg = view.config
    draw_action = END_STRIDE[cfg.variant] * DOUBLE_SIX.num_tiles
    absent = 0
    for s, action, _points, ends in view.history:
        if s != seat or action < draw_action:
            continue
        lacked = suit_tiles(v for v in ends if v >= 0)
        if action == draw_action:
            absent = lacked if cfg.draw_policy == "must_play" else 0
        else:
            absent |= lacked
    return absent


@dataclass(frozen=True)
class FivesWeights:
    """Weights of greedy's score of a play, in points of the game's score unit per unit of feature."""

    reply: float = 1.0  # the next opponent's expected best immediate score after the play
    pips: float = 0.2  # per pip of the tile played (shed heavy tiles; All Fives pays pips)
    keep: float = 0.5  # per tile left in hand that fits the layout after the play
    double: float = 1.0  # playing a double (doubles have one number: hard to place later)
    setup: float = 0.25  # the best score this hand can make on the layout next turn


class GreedyFivesAgent:
    """One-ply scoring of every legal play by a club player's concerns; ties go to the heavier tile,
    then the lowest action id. Deterministic: ``rng`` is not used."""

    def __init__(self, weights: FivesWeights | None = None):
        self.weights = weights or FivesWeights()

    def scores(self, view: FivesView) -> dict[int, float]:
        """Score of every legal play (empty when the seat can only draw or pass)."""
        opponent = self._next_opponent(view)
        unseen = DOUBLE_SIX.full_mask & ~view.hand & ~table_mask(view)
        pool = unseen & ~proven_absent(view, opponent) if opponent is not None else 0
        held = view.hand_sizes[opponent] if opponent is not None else 0
        return self.play_scores(view.config, Layout.of(view), view.hand, view.legal_mask, pool, held)

    def play_scores(self, cfg: FivesConfig, layout: Layout, hand: int, legal_mask: int, pool: int,
                    held: int) -> dict[int, float]:
        """``scores`` from the public facts it reads: the layout, my hand, the legal moves, and the
        next opponent's possible tiles (``pool``) and hand size (``held``; 0: nobody replies). The
        batched bot (``bots.batched``) decodes these from the compact observation."""
        w = self.weights
        stride = END_STRIDE[cfg.variant]
        plays = legal_mask & ((1 << (stride * DOUBLE_SIX.num_tiles)) - 1)
        if not plays:
            return {}
        spins = cfg.spinner == "first_double"
        chance = min(1.0, held / pool.bit_count()) if pool else 0.0
        mine, theirs = list(iter_bits(hand)), list(iter_bits(pool))
        out = {}
        for a in iter_bits(plays):
            t, e = divmod(a, stride)
            after = layout.place(t, e, spins)
            best = tile_points(after, cfg)
            rest = [best[u] for u in mine if u != t]  # what each tile left in hand scores next
            reply = self._expected_best([best[u] for u in theirs], chance) if rest else 0.0
            setup = max([0, *rest])
            keep = sum(1 for points in rest if points >= 0)
            out[a] = (count_points(cfg, after.count(cfg.double_count)) - w.reply * reply + w.pips * _PIPS[t]
                      + w.keep * keep + w.double * (_LOW[t] == _HIGH[t]) + w.setup * setup)
        return out

    def act(self, view: FivesView, rng: np.random.Generator) -> int:
        return greedy_choice(self.scores(view), view.legal_mask, view.config)

    @staticmethod
    def _next_opponent(view: FivesView) -> int | None:
        """The first seat after this one on another side that still holds tiles (it replies first)."""
        cfg, n = view.config, view.config.num_players
        for k in range(1, n):
            s = (view.seat + k) % n
            if cfg.side_of(s) != cfg.side_of(view.seat) and view.hand_sizes[s]:
                return s
        return None

    @staticmethod
    def _expected_best(pool_points: list[int], chance: float) -> float:
        """Expected best immediate score of a hand holding each tile of the pool (scoring
        ``pool_points``) with probability ``chance`` independently: the best tile's score if held,
        else the next best's, and so on (a sure count when the pool is the opponent's hand)."""
        expected, missing = 0.0, 1.0
        for points in sorted(pool_points, reverse=True):
            if points <= 0:
                break
            expected += missing * chance * points
            missing *= 1.0 - chance
        return expected


def no_play_move(view: FivesView) -> int:
    """Draw when allowed, else pass: for a seat with no legal play."""
    return greedy_choice({}, view.legal_mask, view.config)


def greedy_choice(scores: dict[int, float], legal_mask: int, config: FivesConfig) -> int:
    """greedy's move given its ``scores``: the best play (ties: the heavier tile, then the lowest
    action id), else draw when allowed, else pass."""
    stride = END_STRIDE[config.variant]
    if not scores:
        draw = stride * DOUBLE_SIX.num_tiles
        return draw if legal_mask >> draw & 1 else draw + 1
    return max(scores, key=lambda a: (scores[a], _PIPS[a // stride], -a))


def fast_move(game: FivesGame) -> int:
    """The rollout policy ``"fast"``: the legal play scoring most now (ties: the heavier tile, then
    the lowest action id), else draw, else pass: no look-ahead, so much cheaper than greedy."""
    cfg = game.config
    stride = game.stride
    legal = game.legal_mask()
    plays = legal & ((1 << game.draw_action) - 1)
    if not plays:
        return game.draw_action if legal >> game.draw_action & 1 else game.pass_action
    layout = Layout.of(game)
    spins = cfg.spinner == "first_double"
    return max(iter_bits(plays), key=lambda a: (
        count_points(cfg, layout.place(a // stride, a % stride, spins).count(cfg.double_count)),
        _PIPS[a // stride], -a,
    ))


ROLLOUTS = ("greedy", "fast")


class FivesSearchAgent(SearchAgent):
    """Determinized search: about ``budget`` rollouts per decision, shared over the legal moves.

    Each world is a uniformly random deal consistent with the view (``sample_fives_deal``: hand
    sizes, what passes and forced draws proved); every candidate move is played in the *same* worlds
    (common random numbers), then the hand is played to its end by ``rollout`` for every seat
    (``"greedy"``: the greedy bot; ``"fast"``: the play scoring most now, cheaper and weaker). Each
    move's gain over greedy's choice is its mean hand outcome less greedy's choice's, in the same
    worlds, the outcome being the ``objective``: ``"margin"``, the side's points in the hand minus the
    mean of the other sides', or ``"wins"``, its pairwise comparisons with the other sides won (ties
    half), what the cross-play share counts (``line_solver.OBJECTIVES``); the move whose gain is best
    by its mean less one standard error is played when that is positive, else greedy's choice (with a
    few worlds a move, the best of several noisy means is biased upwards). A forced move is played
    at once. The match score is not weighed: the world plays one hand. Like greedy, it never draws
    while it can play.
    """

    def __init__(self, budget: int = 100, rollout: str = "greedy", objective: str = "margin"):
        if budget < 1:
            raise ValueError(f"budget must be at least 1, got {budget}")
        check_choice("rollout", rollout, ROLLOUTS)
        check_choice("objective", objective, OBJECTIVES)
        self.budget, self.rollout, self.objective = budget, rollout, objective
        self._greedy = GreedyFivesAgent()
        self._batched: dict[FivesConfig, FivesRollouts] = {}  # greedy rollouts, per rule set

    def candidates(self, view: FivesView) -> list[int]:
        """Every play (else the draw or pass), greedy's preferred first."""
        scores = self._greedy.scores(view)
        if not scores:
            return [no_play_move(view)]
        stride = END_STRIDE[view.config.variant]
        return sorted(scores, key=lambda a: (-scores[a], -_PIPS[a // stride], a))

    def evaluate(self, game: FivesGame, side: int, rng: np.random.Generator) -> float:
        """``side``'s ``objective`` in the hand after playing it out with the rollout policy."""
        while not game.is_terminal:
            if self.rollout == "fast":
                game.apply(fast_move(game))
            else:
                game.apply(self._greedy.act(game.view(game.current_player), rng))
        cfg = game.config
        points = game.results[-1].points
        per_side = [0] * cfg.num_sides
        for s in range(cfg.num_players):
            per_side[cfg.side_of(s)] = points[s]  # partners are credited alike
        return float(side_outcomes(np.array(per_side), side, self.objective))

    def clone_values(self, view: FivesView, candidates: list[int], deals: list[Deal], rng: np.random.Generator
                     ) -> np.ndarray:
        """``values[w, i]``: the side's hand outcome after ``candidates[i]`` in the world dealt
        ``deals[w]``, every rollout played move by move on an engine clone of its world (the
        ``"fast"`` rollouts' path, and the reference the batched greedy rollouts are tested against)."""
        side = view.config.side_of(view.seat)
        values = np.zeros((len(deals), len(candidates)))
        for w, deal in enumerate(deals):
            world = rebuild_fives(view, deal, rng)
            for i, a in enumerate(candidates):
                game = world.clone()
                game.apply(a)
                values[w, i] = self.evaluate(game, side, rng)
        return values

    def searched(self, views: list[FivesView], rngs: list[np.random.Generator]) -> list[int | Decision]:
        """Each view's forced move, or its decision with the outcome of every candidate in every world
        (``values[w, i]``; what ``best`` chooses from, a teacher's scores for distillation). Greedy
        rollouts run on the batched engine (``search.fives_rollouts``), one row per world and
        candidate of every decision; ``"fast"`` ones on engine clones (``clone_values``)."""
        decisions: list[int | Decision] = []
        for view, rng in zip(views, rngs, strict=True):
            candidates = self.candidates(view)
            if len(candidates) == 1:
                decisions.append(candidates[0])
                continue
            worlds = max(2, self.budget // len(candidates))
            decision = Decision(view, candidates, view.config.side_of(view.seat),
                                np.zeros((worlds, len(candidates))), np.zeros(len(candidates)),
                                worlds=[sample_fives_deal(view, rng) for _ in range(worlds)])
            if self.rollout == "fast":
                decision.values = self.clone_values(view, candidates, decision.worlds, rng)
            decisions.append(decision)
        if self.rollout == "greedy":
            self.roll_out([d for d in decisions if isinstance(d, Decision)])
        return decisions

    def roll_out(self, decisions: list[Decision]) -> None:
        """Fill in the decisions' values with greedy rollouts, all of one rule set on one batched
        engine (``FivesRollouts.outcomes_many``)."""
        for config in {d.view.config for d in decisions}:
            same = [d for d in decisions if d.view.config == config]
            asked = [(d.view, d.worlds, d.candidates) for d in same]
            outcomes = self.rollouts_of(config).outcomes_many(asked, self.objective)
            for decision, values in zip(same, outcomes, strict=True):
                decision.values = values

    def rollouts_of(self, config: FivesConfig) -> FivesRollouts:
        """The batched greedy rollouts of ``config``'s worlds, kept for the agent's life."""
        if config not in self._batched:
            from domino_env.search.fives_rollouts import FivesRollouts  # it imports this module's greedy

            self._batched[config] = FivesRollouts(config)
        return self._batched[config]

    @staticmethod
    def scores(decision: Decision) -> np.ndarray:
        """Each candidate's gain over greedy's choice (the first candidate) in the same worlds, its
        mean less one standard error; greedy's choice scores 0. ``best`` plays the highest, so
        greedy's choice stands unless another move is better by more than one standard error."""
        gains = decision.values - decision.values[:, :1]
        scores = gains.mean(axis=0) - gains.std(axis=0, ddof=1) / np.sqrt(len(gains))  # two worlds or more
        scores[0] = 0.0
        return scores


register_bot("fives", "greedy")(GreedyFivesAgent)
register_bot("fives", "search")(FivesSearchAgent)
