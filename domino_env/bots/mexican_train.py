"""Mexican Train agents: ``greedy`` plays as players do, ``search`` plays determinized rollouts of it.

Players' habits (RULES-new-games.md 3; docs/rules_mexican_train.md): build one's own train as one
long chain planned from the start, so that the tiles that fit nowhere at home go on the Mexican
train or on others' marked trains; play a double only when one can cover it (else it stands open
against oneself and one passes and marks), get one's marker off by playing at home, and shed heavy
tiles once someone is about to go out. ``greedy`` scores every legal play by those features
(``GreedyWeights``); it draws, passes and stops only when it must or when its plan is done.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from domino_env.bots.base import register_bot
from domino_env.encoders.mexican_train_compact import longest_chain
from domino_env.rules.conventions import check_choice
from domino_env.rules.mexican_train import (
    DOUBLE_TILE,
    SUIT,
    TILES,
    MexicanTrainConfig,
    MexicanTrainGame,
    MexicanTrainView,
)
from domino_env.rules.tiles import iter_bits
from domino_env.search.decisions import Decision, SearchAgent
from domino_env.search.line_solver import OBJECTIVES, side_outcomes

if TYPE_CHECKING:
    from domino_env.search.mexican_train_rollouts import MexicanTrainRollouts

_DOUBLE = tuple(TILES.low[t] == TILES.high[t] for t in range(TILES.num_tiles))


@dataclass(frozen=True)
class GreedyWeights:
    """Feature weights of greedy's score of a play; pips count once per pip, the rest per unit."""

    pips: float = 1.0  # per pip of the tile played (shed heavy tiles)
    late_pips: float = 4.0  # per pip once an opponent holds at most ``late_tiles`` tiles
    late_tiles: int = 3
    double: float = 8.0  # a double one can cover (or any double late): an extra play
    uncovered: float = 15.0  # penalty: a double one cannot cover stands open against oneself
    unmark: float = 10.0  # a play at home while marked: the marker comes off
    plan: float = 6.0  # the first tile of the home plan (the longest chain), played at home
    away: float = 6.0  # a tile the home plan does not use, played on the Mexican or a marked train
    plan_break: float = 8.0  # penalty: a tile of the home plan played elsewhere


class GreedyMexicanTrainAgent:
    """One-ply scoring of each play by players' habits; the opening run follows the longest chain.
    Deterministic given the view; ties go to the lowest action id."""

    def __init__(self, weights: GreedyWeights | None = None):
        self.weights = weights or GreedyWeights()

    def scores(self, view: MexicanTrainView) -> dict[int, float]:
        """Score of every legal play (empty when the seat can only draw, pass or stop)."""
        return self.play_scores(view.config.num_players, view.hand, view.ends[view.seat],
                                view.marked[view.seat], self._late(view), view.legal_mask)

    def act(self, view: MexicanTrainView, rng: np.random.Generator) -> int:
        return self.move(view.config.num_players, view.hand, view.ends[view.seat], view.marked[view.seat],
                         view.in_run, self._late(view), view.legal_mask)

    def _late(self, view: MexicanTrainView) -> bool:
        """Someone else holds at most ``late_tiles`` tiles: heavy tiles are about to cost."""
        sizes = view.hand_sizes
        return any(size <= self.weights.late_tiles for s, size in enumerate(sizes) if s != view.seat)

    def play_scores(self, num_players: int, hand: int, home_end: int, marked: bool, late: bool,
                    legal_mask: int) -> dict[int, float]:
        """``scores`` from the public facts it reads: the player count, my hand, my train's end, my
        marker, whether the round is late, the legal moves. The batched bot (``bots.batched``)
        decodes these from the compact observation."""
        w = self.weights
        stride = num_players + 1
        draw = TILES.num_tiles * stride
        plan = longest_chain(home_end, hand)
        planned = set(plan)
        out = {}
        for a in iter_bits(legal_mask & ((1 << draw) - 1)):
            t, slot = divmod(a, stride)
            score = (w.late_pips if late else w.pips) * TILES.pips[t]
            if _DOUBLE[t]:
                covered = hand & SUIT[TILES.low[t]] & ~(1 << t)
                score += w.double if covered or late else -w.uncovered
            if slot == 0:
                score += w.unmark * marked + w.plan * (bool(plan) and t == plan[0])
            else:
                score += -w.plan_break if t in planned else w.away
            out[a] = score
        return out

    def move(self, num_players: int, hand: int, home_end: int, marked: bool, in_run: bool, late: bool,
             legal_mask: int) -> int:
        """``act`` from the facts ``play_scores`` reads and whether the seat is in its opening run."""
        stride = num_players + 1
        if in_run:  # the opening run: the planned chain, tile by tile, then stop
            plan = longest_chain(home_end, hand)
            if plan and legal_mask >> (stride * plan[0]) & 1:
                return stride * plan[0]
            stop = TILES.num_tiles * stride + 2
            if legal_mask >> stop & 1:
                return stop
        scores = self.play_scores(num_players, hand, home_end, marked, late, legal_mask)
        if scores:
            return max(scores, key=lambda a: (scores[a], -a))
        return next(iter_bits(legal_mask))  # the one forced move: draw or pass


def round_value(game: MexicanTrainGame, seat: int, objective: str = "margin") -> float:
    """``seat``'s ``objective`` (``line_solver.OBJECTIVES``) in the round just finished, higher
    better: by default the mean of the others' points less its own (the lowest total wins)."""
    return float(side_outcomes(-np.array(game.results[-1].round_points), seat, objective))


def sample_world(view: MexicanTrainView, rng: np.random.Generator) -> MexicanTrainGame:
    """An engine at ``view``'s position whose hidden tiles (other hands, boneyard order) are dealt
    uniformly from the tiles the seat has not seen (not in its hand, on a train or the engine), to
    the public sizes; it ends with the round (``episode="round"``: ``results[-1]`` is this round's).

    Fast on purpose: it is built once per sampled world. What a pass proves (no tile fitting the
    trains then open) is **not used**, nor anything else of the history (the replaying sampler
    ``search.mexican_train_beliefs.sample_mexican_train_deal`` keeps those proofs, at seconds a
    sample). The position is not replayed: the engine starts from a scripted deal of the present
    trains, markers, hands and boneyard, and the turn state a deal cannot say (first turns, open
    doubles, the opening run, the draw allowance, turns without progress) is set from the view, with
    the engine's own field names; tests/bots/test_mexican_train_bots.py checks that the true hidden
    tiles give every seat the same view and the same play from there on.
    """
    seen = view.hand | 1 << DOUBLE_TILE[view.engine]
    for train in view.trains:
        for tile, _s, _e in train:
            seen |= 1 << tile
    pool = list(iter_bits(TILES.full_mask & ~seen))
    order = [pool[i] for i in rng.permutation(len(pool))]
    hands, at = [], 0
    for s, size in enumerate(view.hand_sizes):
        hands.append(list(iter_bits(view.hand)) if s == view.seat else order[at:at + size])
        at += 0 if s == view.seat else size
    return MexicanTrainGame.at_position(view, hands, order[at:at + view.boneyard_size], rng)


class MexicanTrainSearchAgent(SearchAgent):
    """Determinized search: about ``budget`` rollouts per decision, shared over the candidate moves.

    Each world deals the unseen tiles at random (``sample_world``: a pass's proof of missing numbers
    is not used) and every candidate is played in the *same* worlds (common random numbers). After
    the move every seat plays greedy to the end of the round; the move with the best mean
    ``round_value`` is played (the ``objective``: by default the round margin, or ``"wins"``, the
    pairwise comparisons with the other seats won, what the cross-play share counts), ties going to
    greedy's preference; a forced move is played without search. Candidates are the legal plays
    (and ``stop`` in an opening run): a draw or a pass is only ever forced. The rollouts of many
    decisions run on one batched engine (``search.mexican_train_rollouts``); rules it cannot play
    (``double_bonus="any"``) roll out on engine clones (``clone_values``), with the same values.
    """

    def __init__(self, budget: int = 32, objective: str = "margin"):
        if budget < 1:
            raise ValueError(f"budget must be at least 1, got {budget}")
        check_choice("objective", objective, OBJECTIVES)
        self.budget, self.objective = budget, objective
        self._greedy = GreedyMexicanTrainAgent()
        self._batched: dict[MexicanTrainConfig, MexicanTrainRollouts | None] = {}  # per rule set

    def candidates(self, view: MexicanTrainView) -> list[int]:
        """The legal moves, greedy's choice first, then by greedy's score (ties: lowest id)."""
        scores = self._greedy.scores(view)
        first = self._greedy.act(view, np.random.default_rng(0))  # deterministic: rng unused
        rest = sorted((a for a in iter_bits(view.legal_mask) if a != first),
                      key=lambda a: (-scores.get(a, -np.inf), a))
        return [first, *rest]

    def rollout(self, game: MexicanTrainGame, view: MexicanTrainView, rng: np.random.Generator) -> float:
        """Greedy for every seat to the end of the round (``sample_world``'s engine ends with it);
        the ``round_value`` of ``view``'s seat."""
        while not game.is_terminal:
            game.apply(self._greedy.act(game.view(game.current_player), rng))
        return round_value(game, view.seat, self.objective)

    def clone_values(self, view: MexicanTrainView, candidates: list[int], worlds: list[MexicanTrainGame],
                     rng: np.random.Generator) -> np.ndarray:
        """``values[w, i]``: the seat's ``round_value`` after ``candidates[i]`` in ``worlds[w]``,
        every rollout played move by move on a clone (the reference of the batched rollouts)."""
        values = np.zeros((len(worlds), len(candidates)))
        for w, world in enumerate(worlds):
            for i, a in enumerate(candidates):
                game = world.clone()
                game.apply(a)
                values[w, i] = self.rollout(game, view, rng)
        return values

    def searched(self, views: list[MexicanTrainView], rngs: list[np.random.Generator]
                 ) -> list[int | Decision]:
        """Each view's forced move, or its decision with the value of every candidate in every world
        (what ``best`` chooses from, a teacher's scores for distillation); the batched rollouts of
        all the decisions of one rule set run together."""
        decisions = [self.decision(view, rng) for view, rng in zip(views, rngs, strict=True)]
        waiting = [d for d in decisions if isinstance(d, Decision) and self.rollouts_of(d.view.config)]
        for config in {d.view.config for d in waiting}:
            same = [d for d in waiting if d.view.config == config]
            values = self.rollouts_of(config).values_many([(d.view, d.worlds, d.candidates) for d in same],
                                                          self.objective)
            for decision, value in zip(same, values, strict=True):
                decision.values = value
        return decisions

    def decision(self, view: MexicanTrainView, rng: np.random.Generator) -> int | Decision:
        """The forced move, or the decision with its worlds drawn (``budget`` rollouts shared by the
        candidates), valued here on clones when the batched engine does not play the rules."""
        candidates = self.candidates(view)
        if len(candidates) == 1:
            return candidates[0]
        worlds = [sample_world(view, rng) for _ in range(max(1, self.budget // len(candidates)))]
        values = np.zeros((len(worlds), len(candidates)))
        if self.rollouts_of(view.config) is None:
            values = self.clone_values(view, candidates, worlds, rng)
        return Decision(view, candidates, view.seat, values, np.zeros(len(candidates)), worlds=worlds)

    def rollouts_of(self, config: MexicanTrainConfig) -> MexicanTrainRollouts | None:
        """The batched greedy rollouts of ``config``'s worlds (None where the batched engine does not
        play the rules), kept for the agent's life."""
        if config not in self._batched:
            from domino_env.games import MEXICAN_TRAIN
            from domino_env.search.mexican_train_rollouts import MexicanTrainRollouts  # imports greedy

            playable = MEXICAN_TRAIN.vector_class(config) is not None
            self._batched[config] = MexicanTrainRollouts(config) if playable else None
        return self._batched[config]


register_bot("mexican_train", "greedy")(GreedyMexicanTrainAgent)
register_bot("mexican_train", "search")(MexicanTrainSearchAgent)
