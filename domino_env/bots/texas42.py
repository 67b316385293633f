"""Texas 42 agents for every form of the game (42, three-player 42, Texas 88): ``heuristic``
(hand-strength bidding, strongest trump, count-aware play) and ``search`` (determinized search over
sampled deals: exact alpha-beta endgames, bids from simulated play under every trump).

Both read the form from the view's ``config.variant`` (the engine's tables: tiles, counts, bids,
sides) rather than from its name: partners are the seats on the acting seat's side this hand (with
three players the bidder has none and the other two play together), and of two identical Texas 88
tiles the one played first wins.

The heuristic's bid comes from one strength number per possible trump: trumps held, the trump
double, other doubles (sure tricks) and count tiles held, per seven tiles held. In play it pulls
trumps when it holds the boss trump and its side bid, leads boss tiles, feeds count to a partner
who is sure to take the trick, wins a trick as cheaply as it safely can, and otherwise sheds its
least valuable tile. In Texas 88 it discards, after taking the kitty, the weakest tiles off its
best trump.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from domino_env.bots.base import register_bot
from domino_env.rules.conventions import check_choice
from domino_env.rules.texas42 import (
    BID,
    DECLARE,
    DISCARD_PHASE,
    PASS,
    PLAY_PHASE,
    TRUMP_SUIT,
    Texas42Game,
    Texas42View,
    Variant,
)
from domino_env.rules.tiles import iter_bits
from domino_env.search.determinize import sample_world
from domino_env.search.guidance import SearchGuidance
from domino_env.search.texas42_solver_compiled import Texas42Solver
from domino_env.search.texas42_worlds import sample_worlds

# Strength needed for each bid value in 42 (points, 42 = one mark); the largest reached is the wish.
# Other forms scale the value to their points per hand (a share of the hand) and the strength to
# seven tiles held.
BID_LADDER = ((16.0, 30), (18.0, 31), (20.0, 32), (22.0, 34), (27.0, 42))
LONE_BIDDER_MARGIN = 4.0  # three players: the bidder has no partner, so it needs more strength


def trump_strength(v: Variant, hand: int, trump: int) -> float:
    """How well ``hand`` plays with ``trump`` (a number 0-6, or ``TRUMP_SUIT`` for doubles)."""
    doubles = hand & v.doubles_mask
    trumps = doubles if trump == TRUMP_SUIT else hand & v.suit_mask[trump]
    top = 6 if trump == TRUMP_SUIT else trump
    has_top = any(v.low[t] == v.high[t] == top for t in iter_bits(doubles))
    count = sum(v.count[t] for t in iter_bits(hand))
    side_doubles = (doubles & ~trumps).bit_count()
    return 3.0 * trumps.bit_count() + 4.0 * has_top + 2.0 * side_doubles + count / 5


def best_trump(v: Variant, hand: int) -> tuple[int, float]:
    """The declaration action of the strongest trump for ``hand``, and its strength."""
    options = [(v.trump + n, trump_strength(v, hand, n)) for n in range(7)]
    options.append((v.trump_doubles, trump_strength(v, hand, TRUMP_SUIT)))
    return max(options, key=lambda o: (o[1], -o[0]))


def _lowest_bid(v: Variant, legal: int) -> int | None:
    """The cheapest ordinary (not Plunge) bid in ``legal``."""
    return min((a for a in iter_bits(legal) if PASS < a < v.bid_plunge), key=v.bid_value, default=None)


def _unseen(view: Texas42View) -> int:
    """Tiles the seat has not seen: neither played, nor in its hand, nor discarded by it (88)."""
    mine = sum(1 << t for t in view.discards if t >= 0)
    return view.config.variant.full_mask & ~sum(view.played_by) & ~view.hand & ~mine


class HeuristicTexas42Agent:
    """Hand-strength bidder and rule-of-thumb player (see the module docstring)."""

    def act(self, view: Texas42View, rng: np.random.Generator) -> int:
        v, legal = view.config.variant, view.legal_mask
        if view.phase == BID:
            return self._bid(view, legal)
        if view.phase == DECLARE:
            action = best_trump(v, view.hand)[0]
            return action if legal >> action & 1 else next(iter_bits(legal))
        if view.phase == DISCARD_PHASE:
            return v.discard + self._discard(v, view.hand, legal >> v.discard)
        tiles = legal >> v.play
        if tiles & (tiles - 1) == 0:
            return v.play + tiles.bit_length() - 1
        return v.play + self._play(view, tiles)

    @staticmethod
    def _bid(view: Texas42View, legal: int) -> int:
        v = view.config.variant
        strength = best_trump(v, view.hand)[1] * 7 / v.hand_size - LONE_BIDDER_MARGIN * v.lone_bidder
        wish = max((value for need, value in BID_LADDER if strength >= need), default=0)
        bid = _lowest_bid(v, legal)
        if bid is not None and v.bid_value(bid) * 42 <= wish * v.points_per_hand:  # the same share of a hand
            return bid
        return PASS if legal & 1 << PASS else _lowest_bid(v, legal)

    @staticmethod
    def _discard(v: Variant, hand: int, tiles: int) -> int:
        """The tile of ``tiles`` least worth keeping under the hand's best trump: no trump, no
        double, the fewest pips."""
        call = best_trump(v, hand)[0]
        trumps = v.doubles_mask if call == v.trump_doubles else v.suit_mask[call - v.trump]
        return min(iter_bits(tiles), key=lambda t: (trumps >> t & 1, v.doubles_mask >> t & 1, v.pips[t], t))

    @staticmethod
    def _play(view: Texas42View, tiles: int) -> int:
        v = view.config.variant
        scheme = v.scheme(view.declaration, view.config)
        unseen = _unseen(view)
        sides = v.sides(view.bidder)
        side = sides[view.seat]
        count, pips = v.count, v.pips

        def cheapest(ts: list[int]) -> int:
            return min(ts, key=lambda t: (count[t], pips[t], t))

        def boss(t: int, suit: int) -> bool:
            """No unseen tile beats ``t`` (an identical one played later loses to it)."""
            power = scheme.power[suit]
            return all(power[u] <= power[t] for u in iter_bits(unseen))

        hand = list(iter_bits(tiles))
        if view.declaration == v.nello and view.bidder == view.seat:  # lose every trick: play low
            return min(hand, key=lambda t: (scheme.power[scheme.lead[t]][t], t))
        if not view.trick:
            trump_tiles = [t for t in hand if scheme.lead[t] == TRUMP_SUIT]
            opp_trumps = unseen & scheme.follow[TRUMP_SUIT]
            if sides[view.bidder] == side and trump_tiles and opp_trumps:
                top = max(trump_tiles, key=lambda t: scheme.power[TRUMP_SUIT][t])
                if boss(top, TRUMP_SUIT):
                    return top
            bosses = [t for t in hand if scheme.lead[t] != TRUMP_SUIT and boss(t, scheme.lead[t])]
            if bosses:
                return max(bosses, key=lambda t: (count[t], pips[t]))
            return cheapest([t for t in hand if scheme.lead[t] != TRUMP_SUIT] or hand)
        led = scheme.lead[view.trick[0][1]]
        power = scheme.power[led]
        best_seat, best_tile = max(view.trick, key=lambda st: power[st[1]])  # the first of equals wins
        last = len(view.trick) == view.config.num_players - (view.sitting_out >= 0) - 1
        if sides[best_seat] == side:
            if last or boss(best_tile, led):
                return max(hand, key=lambda t: (count[t], -power[t], -t))
            return cheapest(hand)
        winners = [t for t in hand if power[t] > power[best_tile]]
        if not winners:
            return cheapest(hand)
        safe = [t for t in winners if last or boss(t, led)]
        if safe:
            return min(safe, key=lambda t: (power[t] - 10 * count[t] * last, t))
        at_stake = sum(count[t] for _, t in view.trick)
        return max(winners, key=lambda t: power[t]) if at_stake else cheapest(hand)


def team_value(game: Texas42Game, seat: int) -> float:
    """Marks won minus marks lost by ``seat``'s side this hand (the mean over the other side's seats:
    with three players each opponent of a set bidder scores), points breaking ties (1/100 each)."""
    result, sides = game.last_result, game.sides
    others = [s for s in range(game.num_players) if sides[s] != sides[seat]]
    marks = result["hand_marks"]
    points = result["points_taken"]
    lost = sum(marks[s] for s in others) / len(others)
    return marks[seat] - lost + (points[seat] - points[others[0]]) / 100


def alphabeta(game: Texas42Game, seat: int, alpha: float = -math.inf, beta: float = math.inf) -> float:
    """Exact ``team_value`` for ``seat`` with every hand visible: ``seat``'s side maximizes, the
    other side minimizes (once a bid is won, two sides in a zero-sum game, so pruning is exact)."""
    if game.is_terminal:
        return team_value(game, seat)
    maximizing = game.sides[game.current_player] == game.sides[seat]
    best = -math.inf if maximizing else math.inf
    for action in iter_bits(game.legal_mask()):
        child = game.clone(rng=game.rng)  # the hand ends before any deal: one generator serves all
        child.apply(action)
        value = alphabeta(child, seat, alpha, beta)
        if maximizing:
            best, alpha = max(best, value), max(alpha, value)
        else:
            best, beta = min(best, value), min(beta, value)
        if alpha >= beta:
            break
    return best


EXACT_TILES = 12  # play phase: solve exactly once at most this many tiles are in hands (42: 3 tricks)
EXACT_TRICKS = 3  # ... and at most this many tricks are left (three players: 9 tiles; 88: 12 is 2 tricks)
BIDDING = ("heuristic", "simulate", "network")
MAKE_RATE = 0.6  # bid when the simulated make rate reaches this (see Texas42SearchAgent)


class Texas42SearchAgent:
    """Determinized search over the auction, the trump call and the play.

    Worlds are uniformly random deals consistent with the view (``sample_world``); every candidate
    is evaluated in the same worlds (common random numbers), about ``budget`` evaluations per
    decision in all; a forced move is played without search.

    - **Play, trump call and the Texas 88 discards**: each candidate tile (or declaration, or
      discard) is made in the world, the hand is played on by the rollout policy (the heuristic, or
      the network) for every seat until at most ``exact_tiles`` tiles (and ``EXACT_TRICKS`` tricks)
      are left in hands, and that endgame is solved exactly (``alphabeta`` on ``team_value``: the
      contract's marks, count points breaking ties). The best mean value is played.
    - **Bidding** (``bidding="simulate"``, the default): in ``budget`` worlds the seat is made the
      declarer at the cheapest legal point bid and the hand is played out by the rollout policy under
      every trump; the trump with the best mean points is kept (``make_rate``). A point bid wins or
      loses one mark, so bidding is worth ``2p - 1`` marks against about 0 for passing (the hand
      goes to a contract decided by others) and a higher bid wins no more while making less: the
      seat bids the *cheapest* legal bid when its make rate reaches ``MAKE_RATE`` (0.6, above the
      break-even 0.5 because the simulation assumes the seat wins the auction there), else passes;
      it never overbids its partner. ``bidding="heuristic"`` uses the heuristic's auction.
      Measured (harness, seed 1, 40 hands, budget 32, vs heuristic): heuristic bidding (play-only
      search) +0.03 [-0.12, +0.17] marks per hand; simulated bidding +0.20 [+0.01, +0.39], and
      at seed 0 over 80 hands +0.15 [+0.02, +0.28] (docs/results.md). The
      former simulated bidder (highest level any trump made in half of 8 worlds, the best of eight
      noisy rates) lost: -0.18 [-0.35, -0.02] at budget 64.
      Limits: the simulation assumes the others play the rollout policy (which also makes the
      Texas 88 discards there); Nello, Sevens, Plunge and bids above one mark are left to the
      heuristic. ``bidding="network"`` takes the network's bid.

    ``network`` (a trained checkpoint's path) guides the search: the rollout policy of the play, the
    trump call and the simulated auction (``rollout`` defaults to ``"network"`` then), the candidate
    order and ties (its logits), ``top_moves``, ``leaf_plies`` and ``prior_weight``
    (``domino_env.search.guidance``).

    ``batched`` (the default) draws a decision's worlds together (``search.texas42_worlds``: the
    same distribution) and runs the play phase's inner loops compiled
    (``search.texas42_solver_compiled``): the endgame solve, and with the heuristic as the rollout
    policy the rollouts and the bidding simulations, which return the Python code's values exactly.
    ``batched=false`` is the plain-Python reference.
    """

    def __init__(self, budget: int = 64, exact_tiles: int = EXACT_TILES, bidding: str = "simulate",
                 network: str | None = None, rollout: str | None = None, top_moves: int | None = None,
                 leaf_plies: int | None = None, prior_weight: float = 0.0, batched: bool = True):
        if budget < 1:
            raise ValueError(f"budget must be at least 1, got {budget}")
        if not isinstance(batched, bool):
            raise ValueError(f"batched must be true or false, got {batched!r}")
        check_choice("bidding", bidding, BIDDING)
        if bidding == "network" and network is None:
            raise ValueError("bidding='network' needs network=<checkpoint path>")
        self.guidance = SearchGuidance("texas42", ("heuristic",), network, rollout, top_moves, leaf_plies,
                                       prior_weight)
        self.budget = budget
        self.bidding = bidding
        self.exact_tiles = exact_tiles
        self.heuristic = HeuristicTexas42Agent()
        self.network = self.guidance.network
        self._rollout_agent = self.network if self.guidance.rollout == "network" else self.heuristic
        self._solver = Texas42Solver() if batched else None
        # The compiled playouts are the heuristic's: with a network they stay in Python.
        self._compiled_playouts = batched and self._rollout_agent is self.heuristic

    def _worlds(self, view: Texas42View, rng: np.random.Generator, count: int, **options: object
                ) -> Iterator[Texas42Game]:
        """``count`` sampled worlds: drawn together (``sample_worlds``), or by the reference one at a
        time as they are used."""
        if self._solver is not None:
            yield from sample_worlds(view, rng, count, **options)
        else:
            for _ in range(count):
                yield sample_world(view, rng, **options)

    def _playout(self, game: Texas42Game, rng: np.random.Generator) -> None:
        while not game.is_terminal:
            game.apply(self._rollout_agent.act(game.view(game.current_player), rng))

    def _exact_at(self, game: Texas42Game) -> int:
        """Tiles in hands from which the endgame is solved: ``exact_tiles``, at most ``EXACT_TRICKS``
        tricks (alpha-beta's cost grows with the tricks left: four tricks of three players took
        seconds a move)."""
        return min(self.exact_tiles, EXACT_TRICKS * (game.num_players - (game.sitting_out >= 0)))

    def evaluate(self, game: Texas42Game, seat: int, rng: np.random.Generator) -> float:
        """``team_value`` for ``seat``: rollout moves, then the exact value of the endgame (or the
        network's value once ``leaf_plies`` rollout moves are played)."""
        plies = 0
        while not game.is_terminal:
            if self._compiled_playouts and self.guidance.leaf_plies is None and game.phase == PLAY_PHASE:
                return self._solver.rollout_value(game, seat, self._exact_at(game))
            if game.phase == PLAY_PHASE and sum(h.bit_count() for h in game.hands) <= self._exact_at(game):
                return self._solver.value(game, seat) if self._solver else alphabeta(game, seat)
            leaf = self.guidance.leaf_value(game, plies, game.sides[game.current_player] == game.sides[seat])
            if leaf is not None:
                return leaf
            game.apply(self._rollout_agent.act(game.view(game.current_player), rng))
            plies += 1
        return team_value(game, seat)

    def make_rate(self, view: Texas42View, bid: int, rng: np.random.Generator) -> float:
        """How often the seat makes ``bid`` when it wins the auction at that bid and declares the
        trump with the best mean points, over ``budget`` sampled worlds played out by the rollout policy.

        The trump is chosen by mean points over all the worlds, not per bid level: the best of
        eight make rates each estimated from a few worlds is biased upwards, and so overbids."""
        v = view.config.variant
        trumps = [*range(v.trump, v.trump + 7), v.trump_doubles]
        points = np.zeros((self.budget, len(trumps)))
        for w, world in enumerate(self._worlds(view, rng, self.budget, stop_when_decided=False)):
            world.apply(bid)
            while world.phase == BID:
                world.apply(PASS)
            while world.phase == DISCARD_PHASE:  # Texas 88: the kitty taken, two tiles go
                world.apply(self._rollout_agent.act(world.view(view.seat), rng))
            for i, trump in enumerate(trumps):
                if self._compiled_playouts:  # nothing is drawn before the next deal: one generator
                    game = world.clone(rng=world.rng)
                    game.apply(trump)
                    points[w, i] = self._solver.playout_points(game, view.seat)
                    continue
                game = world.clone()
                game.apply(trump)
                self._playout(game, rng)
                points[w, i] = game.last_result["points_taken"][view.seat]
        best = int(np.argmax(points.mean(axis=0)))
        return float((points[:, best] >= v.bid_value(bid)).mean())

    def _bid(self, view: Texas42View, rng: np.random.Generator) -> int:
        legal, v = view.legal_mask, view.config.variant
        can_pass = bool(legal >> PASS & 1)
        bids = [a for a in iter_bits(legal)
                if PASS < a < v.bid_plunge and v.bid_value(a) <= v.points_per_hand]
        high = max(range(v.num_players), key=lambda s: v.bid_value(view.bids[s]))
        sides = v.sides(high)  # a partner of the highest bidder is on its side (none with three players)
        partner_leads = view.bids[high] > PASS and sides[high] == sides[view.seat]
        if not bids or (partner_leads and can_pass):
            return PASS if can_pass else self.heuristic.act(view, rng)
        cheapest = min(bids, key=v.bid_value)
        if not can_pass or self.make_rate(view, cheapest, rng) >= MAKE_RATE:
            return cheapest
        return PASS

    def act(self, view: Texas42View, rng: np.random.Generator) -> int:
        legal, v = view.legal_mask, view.config.variant
        if legal & (legal - 1) == 0:
            return legal.bit_length() - 1
        if view.phase == BID:
            if self.bidding == "simulate":
                return self._bid(view, rng)
            return (self.network if self.bidding == "network" else self.heuristic).act(view, rng)
        candidates = list(iter_bits(legal))
        if view.phase == DECLARE:
            candidates = [a for a in candidates if v.trump <= a <= v.trump_doubles] or candidates
        candidates, prior = self.guidance.ranked(view, candidates)  # the network's order (and ties), if any
        if len(candidates) == 1:
            return candidates[0]
        totals = np.zeros(len(candidates))
        num_worlds = max(1, self.budget // len(candidates))
        for world in self._worlds(view, rng, num_worlds):
            for i, a in enumerate(candidates):
                game = world.clone()
                game.apply(a)
                totals[i] += self.evaluate(game, view.seat, rng)
        totals += num_worlds * prior
        return candidates[int(np.argmax(totals))]


register_bot("texas42", "heuristic")(HeuristicTexas42Agent)
register_bot("texas42", "search")(Texas42SearchAgent)
