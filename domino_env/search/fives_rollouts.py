"""Greedy rollouts of the Fives search on the batched engine: every (world, candidate) row of a decision
is one row of ``VectorFivesGame``, played to the hand's end by ``BatchedFivesGreedy`` for every seat.

``FivesSearchAgent`` values a move by the hand's outcome (margin or pairwise wins) after playing it
in a sampled world and letting ``greedy`` finish the hand. Played one move at a time on engine
clones, a decision at ``budget=100`` cost about 170 ms; here each world's hand-start deal
(``sample_fives_deal``) is dealt to its rows, the hand's public history is replayed on all of them
in lockstep, each row plays its candidate and the rows are stepped together until every hand has
ended. Greedy is deterministic and
a world's stock order is part of its deal, so a row's outcome is the reference rollout's
(``tests/search/test_fives_rollouts.py``).
"""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np

from domino_env.bots.batched import BatchedFivesGreedy
from domino_env.rules.fives import FivesConfig, FivesView
from domino_env.rules.tiles import DOUBLE_SIX
from domino_env.search.decisions import bucket
from domino_env.search.fives_beliefs import Deal, one_hand_rules
from domino_env.search.line_solver import side_outcomes
from domino_env.vector.fives import VectorFivesGame

NUM_TILES = DOUBLE_SIX.num_tiles


class FivesRollouts:
    """The batched engine and greedy of one rule set, the hand played alone as in the search's
    worlds (``fives_beliefs.one_hand_rules``)."""

    def __init__(self, config: FivesConfig):
        one_hand = one_hand_rules(config)
        self.options = asdict(one_hand)
        # A later hand of the match is led freely by the leader the view names, whatever the lead rule.
        free_lead = replace(one_hand, lead_rule="lot_any") if one_hand.lead_rule else one_hand
        self.later_options = asdict(free_lead)
        self.greedy = BatchedFivesGreedy({**self.options, "episode": "hand"})
        self.first_seats = [min(s for s in range(one_hand.num_players) if one_hand.side_of(s) == side)
                            for side in range(one_hand.num_sides)]
        self._engines: dict[tuple[int, bool], VectorFivesGame] = {}
        self._deals: tuple[np.ndarray, np.ndarray] | None = None

    def outcomes(self, view: FivesView, deals: list[Deal], candidates: list[int], objective: str = "margin"
                 ) -> np.ndarray:
        """``values[w, i]``: the ``objective`` of ``view``'s side in the hand (``side_outcomes``: by
        default its points in the whole hand less the mean of the other sides', as
        ``FivesSearchAgent.evaluate`` counts) when ``candidates[i]`` is played in the world dealt
        ``deals[w]`` and greedy plays every seat to the hand's end."""
        return self.outcomes_many([(view, deals, candidates)], objective)[0]

    def outcomes_many(self, decisions: list[tuple[FivesView, list[Deal], list[int]]],
                      objective: str = "margin") -> list[np.ndarray]:
        """``outcomes`` of many decisions (a view, its worlds' deals, its candidates) on one engine per
        kind of hand: every row replays its own view's history, plays its candidate and then greedy's
        moves, so rows of different decisions are at different points of their hands at each step."""
        values: list[np.ndarray] = [np.empty(0)] * len(decisions)
        for later_hand in (False, True):
            chosen = [d for d, (view, _, _) in enumerate(decisions) if (view.hand_index > 0) == later_hand]
            if chosen:
                rolled = self._rolled([decisions[d] for d in chosen], later_hand, objective)
                for d, v in zip(chosen, rolled, strict=True):
                    values[d] = v
        return values

    def _rolled(self, decisions: list[tuple[FivesView, list[Deal], list[int]]], later_hand: bool,
                objective: str) -> list[np.ndarray]:
        """``outcomes_many`` of decisions all in the match's first hand, or all in a later one."""
        shapes = [(len(deals), len(candidates)) for _view, deals, candidates in decisions]
        rows = sum(worlds * moves for worlds, moves in shapes)
        engine = self._engine(bucket(rows), later_hand)
        # Row by row: its deal, its leader, and its script (the view's history, then its candidate)
        # with the seat of each move; rows beyond the decisions' play on any deal, unread.
        deals = np.tile(np.arange(NUM_TILES), (engine.num_envs, 1))
        leaders = np.zeros(engine.num_envs, np.int64)
        length = np.zeros(engine.num_envs, np.int64)
        steps = max(len(view.history) for view, _deals, _candidates in decisions) + 1
        scripted = np.full((engine.num_envs, steps), -1)
        scripted_seat = np.full((engine.num_envs, steps), -1)
        start = 0
        for (view, world_deals, candidates), (worlds, moves) in zip(decisions, shapes, strict=True):
            block = slice(start, start + worlds * moves)
            h = len(view.history)
            deals[block] = np.repeat([self._permutation(deal) for deal in world_deals], moves, axis=0)
            leaders[block], length[block] = view.leader, h + 1
            scripted[block, :h] = [action for _seat, action, _points, _ends in view.history]
            scripted[block, h] = np.tile(candidates, worlds)
            scripted_seat[block, :h] = [seat for seat, _action, _points, _ends in view.history]
            scripted_seat[block, h] = view.seat
            start = block.stop
        self._deals = deals, leaders
        batch = engine.reset()
        points = np.zeros((engine.num_envs, engine.num_players))  # each seat's side's, this hand
        finished = np.arange(engine.num_envs) >= rows
        t = 0
        while not finished.all():
            replaying = t < length
            if replaying.any() and not (engine.seat[replaying] == scripted_seat[replaying, t]).all():
                raise RuntimeError("internal error: a replayed world is not at the view's position")
            actions = np.where(replaying, scripted[:, min(t, steps - 1)], batch.mask.argmax(axis=1))
            playing = ~replaying & ~finished  # finished rows play any legal move, unread
            if playing.any():
                actions[playing] = self.greedy(batch.obs[playing], batch.mask[playing])
            batch = engine.step(actions)
            points += np.where(finished[:, None], 0.0, batch.rewards)
            t += 1
            finished |= batch.done & (t >= length)
        sides = points[:rows, self.first_seats]  # integers, exact: the outcome is the reference's to the bit
        values, start = [], 0
        for (view, _deals, _candidates), (worlds, moves) in zip(decisions, shapes, strict=True):
            decision_rows = sides[start:start + worlds * moves]
            outcome = side_outcomes(decision_rows, view.config.side_of(view.seat), objective)
            values.append(outcome.reshape(worlds, moves))
            start += worlds * moves
        return values

    def _engine(self, rows: int, later_hand: bool) -> VectorFivesGame:
        """One engine per row count (``bucket``) and kind of hand, built once."""
        if (rows, later_hand) not in self._engines:
            options = self.later_options if later_hand else self.options
            self._engines[rows, later_hand] = VectorFivesGame(
                rows, dealer=self._dealer, episode="hand", reward="points", **options)
        return self._engines[rows, later_hand]

    def _dealer(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The decision's deals at its reset; rows whose hand has ended get any deal (never read)."""
        if self._deals is not None and len(games) == len(self._deals[0]):
            deals, self._deals = self._deals, None
            return deals
        return np.tile(np.arange(NUM_TILES), (len(games), 1)), np.zeros(len(games), np.int64)

    @staticmethod
    def _permutation(deal: Deal) -> np.ndarray:
        """The engine's deal row: the hands seat by seat, then the stock in draw order, then the
        tiles out of play."""
        placed = [t for hand in deal["hands"] for t in hand] + list(deal["stock"])
        rest = sorted(set(range(NUM_TILES)) - set(placed))
        return np.array(placed + rest)
