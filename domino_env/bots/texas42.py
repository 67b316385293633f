"""Texas 42 agents: ``heuristic`` (hand-strength bidding, strongest trump, count-aware play) and
``search`` (determinized Monte Carlo over sampled deals, the auction included).

The heuristic's bid comes from one strength number per possible trump: trumps held, the trump
double, other doubles (sure tricks) and count tiles held. In play it pulls trumps when it holds
the boss trump and its team bid, leads boss tiles, feeds count to a partner who is sure to take the
trick, wins a trick as cheaply as it safely can, and otherwise sheds its least valuable tile.
"""

from __future__ import annotations

import numpy as np

from domino_env.bots.base import register_bot
from domino_env.bots.determinize import sample_texas42_world
from domino_env.rules.texas42 import (
    BID,
    BID_PLUNGE,
    COUNT,
    DECLARE,
    NELLO,
    PASS,
    PLAY,
    TILES,
    TRUMP,
    TRUMP_DOUBLES,
    TRUMP_SUIT,
    Texas42Game,
    Texas42View,
    bid_value,
    declared_scheme,
)
from domino_env.tiles import iter_bits

# Strength needed for each bid value (points, 42 = one mark); the largest reached is the wish.
BID_LADDER = ((16.0, 30), (18.0, 31), (20.0, 32), (22.0, 34), (27.0, 42))


def trump_strength(hand: int, trump: int) -> float:
    """How well ``hand`` plays with ``trump`` (a number 0-6, or ``TRUMP_SUIT`` for doubles)."""
    doubles = hand & TILES.doubles_mask
    trumps = doubles if trump == TRUMP_SUIT else hand & TILES.suit_mask[trump]
    top = 1 << TILES.index(6, 6) if trump == TRUMP_SUIT else 1 << TILES.index(trump, trump)
    count = sum(COUNT[t] for t in iter_bits(hand))
    side_doubles = (doubles & ~trumps).bit_count()
    return 3.0 * trumps.bit_count() + 4.0 * bool(hand & top) + 2.0 * side_doubles + count / 5


def best_trump(hand: int) -> tuple[int, float]:
    """The declaration action of the strongest trump for ``hand``, and its strength."""
    options = [(TRUMP + v, trump_strength(hand, v)) for v in range(7)]
    options.append((TRUMP_DOUBLES, trump_strength(hand, TRUMP_SUIT)))
    return max(options, key=lambda o: (o[1], -o[0]))


def _lowest_bid(legal: int, value_at_least: int = 0) -> int | None:
    """The cheapest ordinary bid in ``legal`` worth at least ``value_at_least`` points."""
    bids = [a for a in iter_bits(legal) if PASS < a < BID_PLUNGE and bid_value(a) >= value_at_least]
    return min(bids, key=bid_value, default=None)


class HeuristicTexas42Agent:
    """Hand-strength bidder and rule-of-thumb player (see the module docstring)."""

    def act(self, view: Texas42View, rng: np.random.Generator) -> int:
        legal = view.legal_mask
        if view.phase == BID:
            return self._bid(view, legal)
        if view.phase == DECLARE:
            action = best_trump(view.hand)[0]
            return action if legal >> action & 1 else next(iter_bits(legal))
        tiles = legal >> PLAY
        if tiles & (tiles - 1) == 0:
            return PLAY + tiles.bit_length() - 1
        return PLAY + self._play(view, tiles)

    @staticmethod
    def _bid(view: Texas42View, legal: int) -> int:
        strength = best_trump(view.hand)[1]
        wish = max((value for need, value in BID_LADDER if strength >= need), default=0)
        bid = _lowest_bid(legal)
        if bid is not None and bid_value(bid) <= wish:
            return bid
        return PASS if legal & 1 << PASS else _lowest_bid(legal)

    @staticmethod
    def _play(view: Texas42View, tiles: int) -> int:
        scheme = declared_scheme(view.declaration, view.config)
        played = sum(view.played_by)
        unseen = TILES.full_mask & ~played & ~view.hand
        team = view.seat % 2

        def cheapest(ts: list[int]) -> int:
            return min(ts, key=lambda t: (COUNT[t], TILES.pips[t], t))

        def boss(t: int, suit: int) -> bool:
            power = scheme.power[suit]
            return all(power[u] < power[t] for u in iter_bits(unseen))

        hand = list(iter_bits(tiles))
        if view.declaration == NELLO and view.bidder == view.seat:  # lose every trick: play low
            return min(hand, key=lambda t: (scheme.power[scheme.lead[t]][t], t))
        if not view.trick:
            trump_tiles = [t for t in hand if scheme.lead[t] == TRUMP_SUIT]
            opp_trumps = unseen & scheme.follow[TRUMP_SUIT]
            if view.bidder % 2 == team and trump_tiles and opp_trumps:
                top = max(trump_tiles, key=lambda t: scheme.power[TRUMP_SUIT][t])
                if boss(top, TRUMP_SUIT):
                    return top
            bosses = [t for t in hand if scheme.lead[t] != TRUMP_SUIT and boss(t, scheme.lead[t])]
            if bosses:
                return max(bosses, key=lambda t: (COUNT[t], TILES.pips[t]))
            return cheapest([t for t in hand if scheme.lead[t] != TRUMP_SUIT] or hand)
        led = scheme.lead[view.trick[0][1]]
        power = scheme.power[led]
        best_seat, best_tile = max(view.trick, key=lambda st: power[st[1]])
        last = len(view.trick) == sum(1 for s in range(4) if s != view.sitting_out) - 1
        if best_seat % 2 == team:
            if last or boss(best_tile, led):
                return max(hand, key=lambda t: (COUNT[t], -power[t], -t))
            return cheapest(hand)
        winners = [t for t in hand if power[t] > power[best_tile]]
        if not winners:
            return cheapest(hand)
        safe = [t for t in winners if last or boss(t, led)]
        if safe:
            return min(safe, key=lambda t: (power[t] - 10 * COUNT[t] * last, t))
        at_stake = sum(COUNT[t] for _, t in view.trick)
        return max(winners, key=lambda t: power[t]) if at_stake else cheapest(hand)


def team_value(game: Texas42Game, seat: int) -> float:
    """Marks won minus marks lost by ``seat``'s team this hand, points breaking ties (1/100 each)."""
    result = game.last_result
    marks = result["hand_marks"]
    points = result["points_taken"]
    return marks[seat] - marks[seat ^ 1] + (points[seat] - points[seat ^ 1]) / 100


class Texas42SearchAgent:
    """Determinized search over the auction, the trump call and the play.

    ``budget`` rollouts per decision are shared out over the candidates: in the auction pass, the
    cheapest legal bid and the heuristic's bid; at the call every trump (numbers and doubles); in
    play every legal tile. Each rollout replays the public history in a sampled deal
    (``sample_texas42_world``), makes the candidate move and finishes the hand with the heuristic
    for every seat; the candidate with the best mean ``team_value`` is played.
    """

    def __init__(self, budget: int = 40):
        if budget < 1:
            raise ValueError(f"budget must be at least 1, got {budget}")
        self.budget = budget
        self.rollout = HeuristicTexas42Agent()

    def _candidates(self, view: Texas42View, rng: np.random.Generator) -> list[int]:
        legal = view.legal_mask
        if view.phase == BID:
            options = {self.rollout.act(view, rng), _lowest_bid(legal), PASS, _lowest_bid(legal, 42)}
            return sorted(a for a in options if a is not None and legal >> a & 1)
        if view.phase == DECLARE:
            trumps = [a for a in iter_bits(legal) if TRUMP <= a <= TRUMP_DOUBLES]
            return trumps or list(iter_bits(legal))
        return list(iter_bits(legal))

    def act(self, view: Texas42View, rng: np.random.Generator) -> int:
        candidates = self._candidates(view, rng)
        if len(candidates) == 1:
            return candidates[0]
        totals = np.zeros(len(candidates))
        for _ in range(max(1, self.budget // len(candidates))):
            world = sample_texas42_world(view, rng)
            for i, a in enumerate(candidates):
                game = world.clone()
                game.apply(a)
                while not game.is_terminal:
                    seat = game.current_player
                    game.apply(self.rollout.act(game.view(seat), rng))
                totals[i] += team_value(game, view.seat)
        return candidates[int(np.argmax(totals))]


register_bot("texas42", "heuristic")(HeuristicTexas42Agent)
register_bot("texas42", "search")(Texas42SearchAgent)
