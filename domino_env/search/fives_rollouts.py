"""Greedy rollouts of the Fives search on the batched engine: every (world, candidate) row of a decision
is one row of ``VectorFivesGame``, played to the hand's end by ``BatchedFivesGreedy`` for every seat.

``FivesSearchAgent`` values a move by the hand margin after playing it in a sampled world and letting
``greedy`` finish the hand. Played one move at a time on engine clones, a decision at
``budget=100`` cost about 170 ms; here each world's hand-start deal (``sample_fives_deal``) is dealt
to its rows, the hand's public history is replayed on all of them in lockstep, each row plays its
candidate and the rows are stepped together until every hand has ended. Greedy is deterministic and
a world's stock order is part of its deal, so a row's margin is the reference rollout's
(``tests/search/test_fives_rollouts.py``).
"""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np

from domino_env.bots.batched import BatchedFivesGreedy
from domino_env.rules.fives import FivesConfig, FivesView
from domino_env.rules.tiles import DOUBLE_SIX
from domino_env.search.fives_beliefs import Deal, one_hand_rules
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

    def margins(self, view: FivesView, deals: list[Deal], candidates: list[int]) -> np.ndarray:
        """``values[w, i]``: the hand margin of ``view``'s side (its points in the whole hand less the
        mean of the other sides', as ``FivesSearchAgent.evaluate`` counts) when ``candidates[i]`` is
        played in the world dealt ``deals[w]`` and greedy plays every seat to the hand's end."""
        worlds, moves = len(deals), len(candidates)
        engine = self._engine(worlds * moves, later_hand=view.hand_index > 0)
        order = np.array([self._permutation(deal) for deal in deals]).repeat(moves, axis=0)
        self._deals = order, np.full(len(order), view.leader)
        engine.reset()
        points = np.zeros((len(order), view.config.num_players))  # each seat's side's, this hand
        for seat, action, _points, _ends in view.history:
            _check_turn(engine, seat)
            points += engine.step(np.full(len(order), action)).rewards
        _check_turn(engine, view.seat)
        batch = engine.step(np.tile(np.asarray(candidates), worlds))
        points += batch.rewards
        finished = batch.done.copy()
        while not finished.all():
            batch = engine.step(self.greedy(batch.obs, batch.mask))
            points += np.where(finished[:, None], 0.0, batch.rewards)
            finished |= batch.done
        sides = points[:, self.first_seats]  # integers, exact: the margin is the reference's to the bit
        mine = sides[:, view.config.side_of(view.seat)]
        values = mine - (sides.sum(axis=1) - mine) / (len(self.first_seats) - 1)
        return values.reshape(worlds, moves)

    def _engine(self, rows: int, later_hand: bool) -> VectorFivesGame:
        """One engine per row count and kind of hand, built once (a few row counts occur: the
        budget's worlds times each number of candidates)."""
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


def _check_turn(engine: VectorFivesGame, seat: int) -> None:
    """Every replayed world has ``seat`` to move, as the view's history says."""
    if not (engine.seat == seat).all():
        raise RuntimeError("internal error: a replayed world is not at the view's position")
