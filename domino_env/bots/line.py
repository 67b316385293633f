"""Line-game (Block / Draw) agents: ``greedy`` plays the source documents' tips, ``search`` plays
determinized Monte Carlo over sampled deals with exact endgames.

The tips (seed 000's list, seed 002's "Vinkkejä"): dump heavy tiles early; keep the open ends on
numbers you hold most of; play to numbers an opponent has passed on; do not hold doubles too long;
in Block, when the round is about to block, turn to lowering your pip total. ``greedy`` scores
every legal placement by a weighted sum of those features (``GreedyWeights``) and never draws while
it can play.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from domino_env.bots.base import register_bot
from domino_env.rules.line import LineConfig, LineGame, LineView
from domino_env.rules.tiles import iter_bits
from domino_env.search.beliefs import sample_line_positions
from domino_env.search.decisions import Decision, SearchAgent
from domino_env.search.determinize import sample_world
from domino_env.search.guidance import SearchGuidance
from domino_env.search.line_rollouts import GreedyRollouts
from domino_env.search.line_solver import LineSolver, Position, margin
from domino_env.search.line_solver_compiled import CompiledLineSolver
from domino_env.search.line_worlds import line_voids, sample_hands


@dataclass(frozen=True)
class GreedyWeights:
    """Feature weights of the greedy score; pips count once per pip, the rest per unit."""

    pips: float = 1.0  # per pip of the tile played (dump heavy tiles)
    double: float = 3.0  # a double (do not hold doubles too long)
    keep: float = 1.5  # per tile left in hand that matches an open end after the move
    opponent_void: float = 4.0  # per opponent known to lack an open end's number
    partner_void: float = 2.0  # per partner known to lack it (penalty: do not block your partner)
    blocking_pips: float = 10.0  # pips weight once a Block round is about to block


def placement_mask(view: LineView) -> int:
    """The legal placements of ``view``'s seat (actions below ``2 * num_tiles``): draws and passes cleared."""
    return view.legal_mask & ((1 << (2 * view.config.tiles.num_tiles)) - 1)


def placement_ends(view: LineView, action: int) -> tuple[int, int]:
    """The open ends after playing ``action`` (a placement) in ``view``'s position."""
    ts = view.config.tiles
    t, side = action >> 1, action & 1
    if view.left_end < 0:
        return ts.low[t], ts.high[t]
    if side == 0:
        return ts.other_half(t, view.left_end), view.right_end
    return view.left_end, ts.other_half(t, view.right_end)


def about_to_block(view: LineView) -> bool:
    """Block only: at most one unseen tile still fits an open end, so a blocked round is near."""
    if view.config.variant != "block" or view.left_end < 0:
        return False
    ts = view.config.tiles
    played = sum(1 << t for t, _, _ in view.line)
    unseen = ts.full_mask & ~played & ~view.hand
    return (unseen & (ts.suit_mask[view.left_end] | ts.suit_mask[view.right_end])).bit_count() <= 1


def _void_on(void: int, ends: tuple[int, int], suit_mask: tuple[int, ...]) -> bool:
    """Whether a seat whose proven-absent tiles are ``void`` lacks either open end's number."""
    return any(suit_mask[e] & ~void == 0 for e in ends)


class GreedyLineAgent:
    """One-ply scoring of each placement by the tips; ties go to the lowest action id."""

    def __init__(self, weights: GreedyWeights | None = None):
        self.weights = weights or GreedyWeights()

    def scores(self, view: LineView) -> dict[int, float]:
        """Score of every legal placement (empty when the seat can only draw or pass)."""
        cfg, w = view.config, self.weights
        ts = cfg.tiles
        placements = placement_mask(view)
        voids = line_voids(view)
        opponents = [s for s in voids if s != view.seat and cfg.side_of(s) != cfg.side_of(view.seat)]
        partners = [s for s in voids if s != view.seat and cfg.side_of(s) == cfg.side_of(view.seat)]
        pip_weight = w.blocking_pips if about_to_block(view) else w.pips
        out = {}
        for a in iter_bits(placements):
            t = a >> 1
            rest = view.hand & ~(1 << t)
            ends = placement_ends(view, a)
            out[a] = (
                pip_weight * ts.pips[t]
                + w.double * ts.is_double(t)
                + w.keep * sum((rest & ts.suit_mask[e]).bit_count() for e in ends)
                + w.opponent_void * sum(_void_on(voids[s], ends, ts.suit_mask) for s in opponents)
                - w.partner_void * sum(_void_on(voids[s], ends, ts.suit_mask) for s in partners)
            )
        return out

    def act(self, view: LineView, rng: np.random.Generator) -> int:
        scores = self.scores(view)
        if scores:
            return max(scores, key=lambda a: (scores[a], -a))
        draw = 2 * view.config.tiles.num_tiles
        return draw if view.legal_mask >> draw & 1 else draw + 1


SCRIPTED_ROLLOUTS = ("greedy", "auto")
# Solve exactly once nothing is drawable and at most this many tiles are in hands. 14 covers a
# whole Block 2p round (7 + 7): its full game tree is a few thousand positions, ~50-80 ms to solve.
EXACT_TILES = 14


def solvable(game: LineGame, max_tiles: int) -> bool:
    """No chance left (nothing drawable) and few enough tiles in hands to search every line."""
    return game.drawable == 0 and sum(h.bit_count() for h in game.hands) <= max_tiles


class LineSearchAgent(SearchAgent):
    """Determinized search: about ``budget`` evaluations per decision, shared over the moves.

    Each sampled world is a uniformly random deal consistent with the view (``sample_world``), and
    every candidate move is evaluated in the *same* worlds (common random numbers: the difference
    between two moves is not blurred by different deals). After the move the round is played on by
    ``rollout`` for every seat (``"greedy"``: the tips on each seat's view; ``"auto"``: the automatic
    move of docs/rules.md 2.5, faster and weaker; ``"network"``: the network's most probable move) until
    nothing is left to draw and at most ``exact_tiles`` tiles are in hands; from there it is solved
    exactly. ``batched`` (the default) solves every endgame of the decision in one call of the
    compiled solver (``search.line_solver_compiled``, sets up to double-nine) and draws all the
    worlds of a decision at once (``search.line_worlds``): where the current position is already
    solvable it places the candidates on their hands without an engine, and in Block with the greedy
    rollout it plays every (world, candidate) pair as a row of the batched engine
    (``search.line_rollouts``); ``batched=false`` is the one-world-at-a-time search
    on engine clones with the plain-Python ``LineSolver``, kept as the reference to check and time
    against (the same move on the same worlds). The move with the best mean side margin (round
    points) is played; equal means go to greedy's choice, and a forced move is played without
    search. Like greedy it never draws while it can play (a drawn tile adds pips, and at budget 40
    in Draw 3p the search that weighed drawing lost to greedy: -1.75 [-3.93, +0.43] points per round
    over 40 deals).

    ``network`` (a trained checkpoint's path) guides the search: the rollout policy (``rollout``
    defaults to ``"network"`` then), the candidate order and ties (its logits instead of greedy's
    score), ``top_moves``, ``leaf_plies`` and ``prior_weight`` (``domino_env.search.guidance``).
    """

    def __init__(self, budget: int = 200, rollout: str | None = None, exact_tiles: int = EXACT_TILES,
                 network: str | None = None, top_moves: int | None = None, leaf_plies: int | None = None,
                 prior_weight: float = 0.0, batched: bool = True):
        if budget < 1:
            raise ValueError(f"budget must be at least 1, got {budget}")
        if not isinstance(batched, bool):
            raise ValueError(f"batched must be true or false, got {batched!r}")
        self.batched = batched
        self.guidance = SearchGuidance("dominoes", SCRIPTED_ROLLOUTS, network, rollout, top_moves, leaf_plies,
                                        prior_weight)
        self.budget = budget
        self.exact_tiles = exact_tiles
        self.network = self.guidance.network
        self._greedy = GreedyLineAgent()
        self._rollout_agent = self.network if self.guidance.rollout == "network" else self._greedy
        self._solvers: dict[LineConfig, CompiledLineSolver] = {}
        self._rollouts: dict[LineConfig, GreedyRollouts] = {}

    def play_out(self, game: LineGame, side: int, rng: np.random.Generator) -> float | Position:
        """``side``'s round margin (a finished round, or the network's value once ``leaf_plies``
        rollout moves are played), or the endgame position left to solve exactly: rollout moves
        are played until nothing is drawable and at most ``exact_tiles`` tiles are in hands."""
        plies = 0
        while not game.is_terminal:
            if solvable(game, self.exact_tiles):
                return LineSolver.position(game)
            leaf = self.guidance.leaf_value(game, plies, game.config.side_of(game.current) == side)
            if leaf is not None:
                return leaf
            if self.guidance.rollout == "auto":
                game.apply(game.auto_move())
            else:
                game.apply(self._rollout_agent.act(game.view(game.current), rng))
            plies += 1
        points = game.results[-1].round_points
        return margin(tuple(points[k] for k in range(game.config.num_sides)), side)

    def solver(self, config: LineConfig) -> CompiledLineSolver | LineSolver:
        """The endgame solver of ``config``'s worlds: the compiled one where the tile set allows,
        kept for the agent's life (its fixed-size table stays valid); else a fresh reference solver
        (its memo grows with every position, so it lives for one decision)."""
        if not (self.batched and CompiledLineSolver.supports(config)):
            return LineSolver(config)
        if config not in self._solvers:
            self._solvers[config] = CompiledLineSolver(config)
        return self._solvers[config]

    def rollouts_of(self, config: LineConfig) -> GreedyRollouts:
        """The compiled greedy rollouts (Block and Draw) of ``config``'s worlds, kept for the agent's life."""
        if config not in self._rollouts:
            self._rollouts[config] = GreedyRollouts(config, self._greedy.weights)
        return self._rollouts[config]

    def candidates(self, view: LineView) -> tuple[list[int], np.ndarray]:
        """The moves to search, preferred first (ties go to the first): every placement (every
        legal move when none) by greedy's score, or by the network's logits, cut to ``top_moves``;
        and their prior bonuses (``SearchGuidance.ranked``)."""
        legal = list(iter_bits(placement_mask(view) or view.legal_mask))  # never draws while it can play
        if len(legal) > 1 and self.network is None:
            greedy = self._greedy.scores(view)
            return self.guidance.ranked(view, legal, lambda a: greedy.get(a, -math.inf))
        return self.guidance.ranked(view, legal)

    def searched(self, views: list[LineView], rngs: list[np.random.Generator]) -> list[int | Decision]:
        """Each view's forced move, or its decision with the margin of every candidate in every
        world filled in (what ``act_batch`` chooses from; a teacher's scores for distillation): the
        Block greedy rollouts of all of them run as one batched program and all their endgames are
        solved in one call (the lockstep evaluation's games, one move each)."""
        decisions = [self.decision(view, rng) for view, rng in zip(views, rngs, strict=True)]
        searched = [d for d in decisions if isinstance(d, Decision)]
        for config in {d.view.config for d in searched}:
            same = [d for d in searched if d.view.config == config]
            rolled = [d for d in same if d.worlds is not None]
            if rolled:
                self.rollouts_of(config).run(rolled, self.exact_tiles)
            endgames = [e for d in same for e in d.endgames]
            if endgames:
                sides = [d.side for d in same for _ in d.endgames]
                solved = iter(self.solver(config).margins(endgames, sides))
                for d in same:
                    for cell in d.cells:
                        d.values[cell] = next(solved)
        return decisions

    def decision(self, view: LineView, rng: np.random.Generator) -> int | Decision:
        """The forced move, or the decision with its worlds drawn and every part that is not batched
        across decisions done: the endgames of solvable positions, the reference rollouts."""
        candidates, prior = self.candidates(view)
        if len(candidates) == 1:
            return candidates[0]
        side = view.config.side_of(view.seat)
        num_worlds = max(1, self.budget // len(candidates))
        decision = Decision(view, candidates, side, np.zeros((num_worlds, len(candidates))), prior)
        solvable_now = view.drawable == 0 and sum(view.hand_sizes) <= self.exact_tiles
        if not (self.batched and CompiledLineSolver.supports(view.config)
                and (solvable_now or self.guidance.rollout == "greedy")):
            self.rollouts(decision, rng)
        elif solvable_now:
            self.placements(decision, self.sample(view, rng, num_worlds)[0])
        else:  # rolled out with the other decisions (``act_batch``)
            decision.worlds, decision.stocks = self.sample(view, rng, num_worlds)
        return decision

    @staticmethod
    def sample(view: LineView, rng: np.random.Generator, count: int
               ) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]] | None]:
        """``count`` worlds of ``view``: every seat's hand and, in Draw, the drawable tiles in order.
        Hands come from one numpy pass (``sample_hands``), the stock then in random order (nothing
        is known of it); after a draw this round, the positions of the exact sampler."""
        hands = sample_hands(view, rng, count)
        if hands is None:  # the exact sampler's positions: the worlds of ``sample_world``, not replayed
            positions = sample_line_positions(view, rng, count)
            return ([tuple(hands) for hands, _stock in positions],
                    [tuple(stock[:view.drawable]) for _hands, stock in positions])
        if view.config.variant != "draw":
            return hands, None
        on_line = sum(1 << t for t, _seat, _side in view.line)
        stocks = []
        for world in hands:
            boneyard = list(iter_bits(view.config.tiles.full_mask & ~on_line & ~sum(world)))
            order = [boneyard[k] for k in rng.permutation(len(boneyard))]
            stocks.append(tuple(order[:max(0, len(order) - view.config.draw_reserve)]))
        return hands, stocks

    @staticmethod
    def best(decision: Decision) -> int:
        """The candidate of the best total margin plus its prior bonus in every world; equal totals go
        to the first (the preferred move)."""
        totals = np.zeros(len(decision.candidates))
        for row in decision.values:  # summed world by world, in the order the worlds were drawn
            totals += row
        totals += len(decision.values) * decision.prior
        return decision.candidates[int(np.argmax(totals))]

    def rollouts(self, decision: Decision, rng: np.random.Generator) -> None:
        """Every candidate played out (``play_out``) on an engine clone of each world of
        ``sample_world``: the reference path, one world at a time."""
        for w in range(len(decision.values)):
            world = sample_world(decision.view, rng)
            for i, a in enumerate(decision.candidates):
                game = world.clone()
                game.apply(a)
                decision.add(w, i, self.play_out(game, decision.side, rng))

    @staticmethod
    def placements(decision: Decision, worlds: list[tuple[int, ...]]) -> None:
        """``rollouts`` where the current position is solvable: no engine, each candidate placed on
        the sampled hands (``sample_hands``) with the solver's own move rules."""
        view = decision.view
        rules = LineSolver(view.config)
        for w, hands in enumerate(worlds):
            root = (hands, view.left_end, view.right_end, view.seat, view.passes_in_row)
            for i, a in enumerate(decision.candidates):
                final, child = rules.after(root, a)
                decision.add(w, i, margin(child, decision.side) if final else child)


register_bot("dominoes", "greedy")(GreedyLineAgent)
register_bot("dominoes", "search")(LineSearchAgent)
