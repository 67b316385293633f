"""Scripted opponents that act on the batched API's (observation, mask) alone, in numpy.

The batched engines (``domino_env.vector``) hand out only each acting seat's compact observation
and legal mask, not seat views, so the view-based bots of ``domino_env.bots`` cannot play there.
The policies here re-derive their decision from the same public information, for a whole batch:
``policy(obs (n, obs_dim) float32, mask (n, A) bool, rng) -> actions (n,) int64``.

- ``random``: uniform over the legal actions (every game).
- ``greedy`` (line games): ``bots.line.GreedyLineAgent``'s one-ply score of every placement,
  computed from the compact observation (``encoders.line_compact``): heaviest tile (pips weighted
  10x once a Block round is about to block), doubles first, ends kept on numbers I still hold, ends
  an opponent is proven void in (and not ones my partner is void in); no placement means draw when
  allowed, else pass. Its void information is the compact ``voids`` slot. In Block that slot holds
  exactly the numbers the view-based bot sees as passed on, so the two play the same move
  (``tests/training/test_scripted.py`` checks it on random positions); in Draw under
  ``draw_policy="when_stuck"`` the slot also keeps the ends a seat drew on, which the view-based bot
  forgets at a draw, so there it approximates ``greedy`` from slightly more public information.
- ``greedy`` (All Fives, Fives and Threes): ``bots.fives.GreedyFivesAgent``'s scoring of every
  legal play, term for term in a compiled loop, from the facts it reads decoded from the compact
  observation (``BatchedFivesGreedy``); the test checks the bot's own move on reference positions.
- ``greedy`` (Mexican Train): ``bots.mexican_train.GreedyMexicanTrainAgent``'s own move, asked once
  per row with the facts it reads decoded from the compact observation (``BatchedMexicanTrainGreedy``).
- ``heuristic`` (Texas 42, three-player 42, Texas 88): ``bots.texas42.HeuristicTexas42Agent``
  itself, asked once per row with a view decoded from the compact observation
  (``encoders.texas42_compact``). Seats are relative to the acting seat, which keeps every relation
  the bot reads (my team: every other seat of four or six; the lone bidder of three; the Nello
  sitter), and the 88 bid winner's own discards are in the observation, so the move is the bot's
  own. A Python call per row, not an array program: a second
  implementation of the bot's bidding, trump call and count-aware play would have to be kept in
  step with the first.

They live here, not in ``training``, so that the Gymnasium vector environments
(``domino_env.wrappers.vector_env``) can seat them without ``domino_env`` importing the trainer;
``domino_env_training.scripted`` adapts them to torch tensors.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch
from numba import njit

from domino_env.bots.fives import GreedyFivesAgent
from domino_env.bots.line import GreedyWeights
from domino_env.bots.mexican_train import GreedyMexicanTrainAgent
from domino_env.bots.texas42 import HeuristicTexas42Agent
from domino_env.encoders import line_compact
from domino_env.encoders.base import get_encoder
from domino_env.encoders.fives_compact import NUMBERS
from domino_env.games import get_game
from domino_env.rules.fives import END_STRIDE, NUM_TILES, TILE_HIGH, TILE_LOW, count_points_table
from domino_env.rules.mexican_train import DOUBLE_TILE
from domino_env.rules.mexican_train import NUM_TILES as MEXICAN_TILES
from domino_env.rules.mexican_train import TILES as MEXICAN_SET
from domino_env.rules.texas42 import BID, DECLARE, DISCARD_PHASE, PLAY_PHASE, Texas42View
from domino_env.rules.tiles import DOUBLE_SIX, iter_bits
from domino_env.vector.batch import sample_legal
from domino_env.vector.fives import layout_after

BatchedPolicy = Callable[[np.ndarray, np.ndarray, np.random.Generator], np.ndarray]
"""``policy(obs (n, obs_dim), mask (n, A) bool, rng) -> actions (n,) int64``."""


def random_actions(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The scripted ``random`` opponent: uniform over each row's legal actions (``obs`` unused)."""
    return sample_legal(np.asarray(mask, bool), rng)


class BatchedLineGreedy:
    """``bots.line.GreedyLineAgent``'s score (its ``GreedyWeights``), for a batch of compact observations.

    One torch program: given numpy arrays it answers in numpy (on the CPU), given tensors it answers
    on their device, so the trainer's rollouts on a GPU seat it without a copy to the host."""

    def __init__(self, options: Mapping[str, Any], weights: GreedyWeights | None = None):
        from domino_env.vector.line import VectorLineGame

        self.w = weights or GreedyWeights()
        cfg = VectorLineGame(1, **options).config  # the engine's own reading of the options
        ts = cfg.tiles
        self.t, self.v, self.n = ts.num_tiles, cfg.max_pips + 1, cfg.num_players
        self.block = cfg.variant == "block"
        self.lay = line_compact.slot_slices(cfg)
        per_action = np.arange(self.t).repeat(2)  # placement action 2t + side plays tile t
        low, high = np.array(ts.low)[per_action], np.array(ts.high)[per_action]
        # suit[t, v]: tile t holds number v.
        suit = np.array([[v in (ts.low[i], ts.high[i]) for v in range(self.v)] for i in range(self.t)],
                        np.float64)
        relative = np.arange(1, self.n)
        self._tables = {
            "low": low, "high": high, "side": np.arange(2 * self.t) % 2,
            "pips": np.array(ts.pips, np.float64)[per_action], "double": (low == high).astype(np.float64),
            "suit": suit, "suit_by_action": suit.repeat(2, axis=0).T,  # (V, 2T)
            "partner": (relative % 2 == 0) if cfg.teams else np.zeros(self.n - 1, bool),
        }
        self._on: dict[torch.device, dict[str, torch.Tensor]] = {}

    def _tables_on(self, device: torch.device) -> dict[str, torch.Tensor]:
        if device not in self._on:
            self._on[device] = {k: torch.as_tensor(v, device=device) for k, v in self._tables.items()}
        return self._on[device]

    def __call__(self, obs: Any, mask: Any, rng: Any = None) -> Any:
        if isinstance(obs, torch.Tensor):
            return self.scores_to_actions(obs, torch.as_tensor(mask, dtype=torch.bool, device=obs.device))
        obs, mask = torch.from_numpy(np.asarray(obs)), torch.from_numpy(np.asarray(mask, bool))
        return self.scores_to_actions(obs, mask).numpy()

    def scores_to_actions(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The greedy move of every row: the best-scoring placement, else draw, else pass."""
        t, v, lay, k = self.t, self.v, self.lay, self._tables_on(obs.device)
        obs = obs.to(torch.float64)
        hand, unknown = obs[:, lay["hand"]], obs[:, lay["unknown"]]
        left_hot, right_hot = obs[:, lay["left_end"]], obs[:, lay["right_end"]]
        empty = left_hot.sum(-1) == 0
        left, right = left_hot.argmax(-1), right_hot.argmax(-1)

        # Open ends after each placement (pips - matched end is the tile's other half).
        low, high, side = k["low"][None, :], k["high"][None, :], k["side"][None, :]
        new_left = torch.where(side == 0, low + high - left[:, None], left[:, None])
        new_right = torch.where(side == 1, low + high - right[:, None], right[:, None])
        new_left = torch.where(empty[:, None], low, new_left).clamp(0, v - 1)
        new_right = torch.where(empty[:, None], high, new_right).clamp(0, v - 1)

        # Tiles left in hand on each new end (the played tile no longer counts).
        held = hand @ k["suit"]  # (B, V) tiles in hand per number
        actions = torch.arange(2 * t, device=obs.device)
        keep = sum(held.gather(1, e) - k["suit_by_action"][e, actions] for e in (new_left, new_right))

        # Voids of the other seats, relative seats 1..n-1, on either new end.
        voids = obs[:, lay["voids"]].reshape(-1, self.n - 1, v)
        reach = (-1, self.n - 1, 2 * t)
        void_on = (voids.gather(2, new_left[:, None, :].expand(reach))
                   + voids.gather(2, new_right[:, None, :].expand(reach))) > 0
        partner = k["partner"]
        opponents = void_on[:, ~partner].sum(1).to(torch.float64)
        partners = void_on[:, partner].sum(1).to(torch.float64)

        w = self.w
        pip_weight = torch.full((obs.shape[0],), w.pips, dtype=torch.float64, device=obs.device)
        if self.block:  # at most one unknown tile fits an open end: lower the pip total
            suit_t = k["suit"].T
            fits = ((suit_t[left] + suit_t[right]) > 0).to(torch.float64)
            near_block = ~empty & ((unknown * fits).sum(-1) <= 1)
            pip_weight = torch.where(near_block, w.blocking_pips, w.pips)

        score = (
            pip_weight[:, None] * k["pips"]
            + w.double * k["double"]
            + w.keep * keep
            + w.opponent_void * opponents
            - w.partner_void * partners
        )
        placements = mask[:, : 2 * t]
        score = score.masked_fill(~placements, -torch.inf)
        best = score.argmax(-1)  # first maximum: ties go to the lowest action id, as in the bot
        fallback = torch.where(mask[:, 2 * t], 2 * t, 2 * t + 1)
        return torch.where(placements.any(-1), best, fallback)


def _engine_layout(game: str, options: Mapping[str, Any]) -> tuple[Any, dict[str, slice]]:
    """The batched engine's own reading of ``options`` (its rules config) and the compact observation's
    slots, by name: what a bot asked row by row decodes each observation with."""
    module, _, engine = get_game(game).vector_engine.partition(":")
    config = getattr(importlib.import_module(module), engine)(1, **options).config
    slots = get_encoder(game, "compact").slots(config)
    return config, {s.name: slice(s.start, s.start + s.length) for s in slots}


class BatchedFivesGreedy:
    """``bots.fives.GreedyFivesAgent``'s move for a batch of compact observations
    (``encoders.fives_compact``), All Fives and Fives and Threes alike.

    Each row's layout, hand, legal moves and the next opponent's possible tiles and hand size are
    decoded from the observation (the open ends, the outer doubles, the arms holding a tile and the
    spinner give the layout exactly, and the voids slot is what the bot's ``proven_absent`` replays
    from the history), then every legal play is scored as the bot's ``play_scores`` scores it, in a
    compiled loop (``_fives_greedy_moves``; a Python call per row made the bot 20x the engine's step).
    The layout after a play is the batched engine's own ``layout_after``; the test plays the bot's
    moves on reference positions."""

    def __init__(self, options: Mapping[str, Any]):
        self.config, self.lay = _engine_layout("fives", options)
        cfg = self.config
        weights = GreedyFivesAgent().weights
        self.weights = np.array([weights.reply, weights.pips, weights.keep, weights.double, weights.setup])
        self.points = count_points_table(cfg)
        self.stride, self.spins = END_STRIDE[cfg.variant], cfg.spinner == "first_double"
        self.both_halves = cfg.double_count != "one_half"
        suits = np.array(DOUBLE_SIX.suit_mask)
        self.suits = (suits[:, None] >> np.arange(NUM_TILES)) & 1 == 1  # (number, tile)
        self.other_side = np.array([cfg.side_of(r) != cfg.side_of(0) for r in range(cfg.num_players)])

    def __call__(
        self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        obs = np.asarray(obs)
        bits = obs > 0.5  # the 0/1 slots; hand sizes are read from their scaled slot
        lay, n = self.lay, self.config.num_players
        rows = np.arange(len(bits))
        hands, tables = bits[:, lay["hand"]], bits[:, lay["table"]]
        voids = bits[:, lay["voids"]].reshape(len(bits), n - 1, NUMBERS)
        sizes = np.rint(obs[:, lay["hand_sizes"]] * NUM_TILES).astype(np.int64)
        # The next opponent: the first relative seat on another side that still holds tiles.
        replies = self.other_side[None, :] & (sizes > 0)
        replies[:, 0] = False
        opponent = np.where(replies.any(1), replies.argmax(1), 0)
        held = np.where(opponent > 0, sizes[rows, opponent], 0)
        lacked = voids[rows, np.maximum(opponent - 1, 0)] & (opponent > 0)[:, None]
        absent = (lacked[:, :, None] & self.suits[None]).any(1)
        pool = ~hands & ~tables & ~absent & (held > 0)[:, None]
        # The layout as the batched engine keeps it: per end its number and share of the count, the
        # W and E arms started, the spinner's number; a closed end is a bare side of the spinner.
        end_bits = bits[:, lay["ends"]].reshape(-1, 4, NUMBERS)
        spinner = np.where(bits[:, lay["spinner"]].any(1), bits[:, lay["spinner"]].argmax(1), -1)
        ends = np.where(end_bits.any(2), end_bits.argmax(2), spinner[:, None])
        filled = bits[:, lay["arms"]]
        twice = bits[:, lay["end_doubles"]] & self.both_halves
        counted = np.where(spinner[:, None] >= 0, filled, np.arange(4) < 2)
        value = np.where(counted, ends << twice.astype(np.int64), 0)
        return _fives_greedy_moves(
            np.asarray(mask, bool), hands, pool, held, tables.sum(1), ends, value, filled[:, :2], spinner,
            self.stride, self.spins, self.both_halves, TILE_LOW, TILE_HIGH, self.suits, self.points,
            self.weights)


@njit(cache=True)
def _fives_greedy_moves(mask, hands, pool, held, plays, ends, value, arm, spinner, stride, spins,
                        both_halves, low, high, suits, points, weights):
    """``GreedyFivesAgent.play_scores`` then ``greedy_choice`` for every row, term for term in the
    bot's order (so equal scores tie as they do there): the count the play scores, less the next
    opponent's expected best reply, plus the tile's pips, the tiles left that fit, a double, and the
    best this hand scores next."""
    w_reply, w_pips, w_keep, w_double, w_setup = weights[0], weights[1], weights[2], weights[3], weights[4]
    draw = stride * NUM_TILES
    moves = np.empty(mask.shape[0], np.int64)
    best = np.empty(NUM_TILES, np.int64)  # per tile, the most it scores laid next (-1: fits nowhere)
    after_ends, after_value = np.empty(4, np.int64), np.empty(4, np.int64)
    after_arm = np.empty(2, np.bool_)
    for g in range(mask.shape[0]):
        in_pool = 0
        for u in range(NUM_TILES):
            in_pool += pool[g, u]
        chance = min(1.0, held[g] / in_pool) if in_pool else 0.0
        move, top, top_pips = -1, -np.inf, -1
        for a in range(draw):
            if not mask[g, a]:
                continue
            t, e = a // stride, a % stride
            e0, e1, e2, e3, v0, v1, v2, v3, a0, a1, count, sp = layout_after(
                t, e, plays[g] == 0, ends[g], value[g], arm[g], spinner[g], spins, both_halves, low, high)
            after_ends[0], after_ends[1], after_ends[2], after_ends[3] = e0, e1, e2, e3
            after_value[0], after_value[1], after_value[2], after_value[3] = v0, v1, v2, v3
            after_arm[0], after_arm[1] = a0, a1
            _next_points(best, after_ends, after_value, after_arm, sp, spins, both_halves, low, high, suits,
                         points)
            rest, setup, keep = 0, 0, 0
            for u in range(NUM_TILES):
                if hands[g, u] and u != t:
                    rest += 1
                    setup = max(setup, best[u])
                    keep += best[u] >= 0
            reply = _expected_best(best, pool[g], chance) if rest else 0.0
            pips = low[t] + high[t]
            score = (points[count] - w_reply * reply + w_pips * pips + w_keep * keep
                     + w_double * (1.0 if low[t] == high[t] else 0.0) + w_setup * setup)
            if score > top or (score == top and pips > top_pips):
                move, top, top_pips = a, score, pips
        if move < 0:  # no play: draw when allowed, else pass
            move = draw if mask[g, draw] else draw + 1
        moves[g] = move
    return moves


@njit(cache=True, inline="always")
def _next_points(best, ends, value, arm, sp, spins, both_halves, low, high, suits, points):
    """``rules.fives.tile_points`` of a layout (``layout_after``'s form) into ``best``: per tile, the
    most it scores laid on an open end next, -1 where it fits none."""
    best[:] = -1
    for end in range(4 if sp >= 0 and arm[0] and arm[1] else 2):  # N and S open once W and E hold tiles
        for u in range(NUM_TILES):
            if suits[ends[end], u]:
                count = layout_after(u, end, False, ends, value, arm, sp, spins, both_halves, low, high)[10]
                best[u] = max(best[u], points[count])


@njit(cache=True, inline="always")
def _expected_best(best, pool, chance):
    """``GreedyFivesAgent._expected_best`` of the pool's tiles' scores ``best[pool]``."""
    ranked = np.sort(best[pool])
    expected, missing = 0.0, 1.0
    for i in range(len(ranked) - 1, -1, -1):
        if ranked[i] <= 0:
            break
        expected += missing * chance * ranked[i]
        missing *= 1.0 - chance
    return expected


class BatchedMexicanTrainGreedy:
    """``bots.mexican_train.GreedyMexicanTrainAgent``'s move for a batch of compact observations
    (``encoders.mexican_train_compact``), scored for every play of every row at once.

    Everything the bot's ``play_scores`` reads is a slot of the observation: the home plan (the
    longest chain, ``plan`` and ``plan_first``, which the batched engine builds in compiled code), the
    doubles the hand can cover, the marker, the opening run and the others' hand sizes. So no row's
    chain is searched again here; the scores are the bot's own, summed in its order."""

    def __init__(self, options: Mapping[str, Any]):
        self.config, self.lay = _engine_layout("mexican_train", options)
        self.weights = GreedyMexicanTrainAgent().weights
        stride = self.config.num_players + 1
        plays = np.arange(MEXICAN_TILES * stride)
        self.tile, self.at_home = plays // stride, plays % stride == 0
        self.pips = np.array(MEXICAN_SET.pips, np.float64)[self.tile]
        self.double = np.isin(self.tile, DOUBLE_TILE)
        self.number = np.array(MEXICAN_SET.low)[self.tile]  # of a double, the number it shows
        self.stride, self.stop = stride, MEXICAN_TILES * stride + 2

    def __call__(
        self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        obs, mask = np.asarray(obs), np.asarray(mask, bool)
        lay, w = self.lay, self.weights
        sizes = np.rint(obs[:, lay["hand_sizes"]] * MEXICAN_TILES).astype(np.int64)
        late = (sizes[:, 1:] <= w.late_tiles).any(1)
        marked, in_run = obs[:, lay["marked"].start] > 0.5, obs[:, lay["in_run"].start] > 0.5
        first = obs[:, lay["plan_first"]] > 0.5
        # Only the legal plays are scored: a handful per row of the several hundred play ids.
        row, play = np.nonzero(mask[:, : len(self.tile)])
        tile = self.tile[play]
        planned = obs[row, lay["plan"].start + tile] > 0.5
        covered = (obs[row, lay["coverable"].start + self.number[play]] > 0.5) | late[row]
        score = np.where(late[row], w.late_pips, w.pips) * self.pips[play]
        score = score + np.where(self.double[play], np.where(covered, w.double, -w.uncovered), 0.0)
        home = w.unmark * marked[row] + w.plan * first[row, tile]
        score = score + np.where(self.at_home[play], home, np.where(planned, -w.plan_break, w.away))
        # Each row's best play, ties to the lowest action id (pairs come sorted by row, then id).
        best = np.full(len(obs), -np.inf)
        np.maximum.at(best, row, score)
        top = np.flatnonzero(score == best[row])
        rows_with_plays, first_top = np.unique(row[top], return_index=True)
        moves = mask.argmax(1)  # no play: the one forced move (draw or pass)
        moves[rows_with_plays] = play[top[first_top]]
        # The opening run: the plan's first tile at home while it is legal, then stop.
        run_move = np.where(first.any(1), first.argmax(1) * self.stride, 0)
        run_legal = first.any(1) & mask[np.arange(len(obs)), run_move]
        moves = np.where(in_run & ~run_legal & mask[:, self.stop], self.stop, moves)
        return np.where(in_run & run_legal, run_move, moves).astype(np.int64)


def _as_ints(columns: np.ndarray) -> list[int]:
    """Each row's 0/1 columns as a little-endian bit set."""
    packed = np.packbits(columns, axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


_PHASES = (BID, DECLARE, PLAY_PHASE, DISCARD_PHASE)  # the phase id of each entry of the compact one-hot


class BatchedTexas42Heuristic:
    """``bots.texas42.HeuristicTexas42Agent``'s move for a batch of compact observations (every form
    of the game the batched engine plays)."""

    def __init__(self, options: Mapping[str, Any]):
        self.config, self.lay = _engine_layout("texas42", options)
        self.bot = HeuristicTexas42Agent()
        self.rng = np.random.default_rng(0)  # the heuristic draws nothing; act() takes a generator

    def __call__(
        self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        bits = np.asarray(obs) > 0.5  # only 0/1 slots are read
        lay, n, v = self.lay, self.config.num_players, self.config.variant

        def marked(name: str, offset: int = 0) -> list[int]:
            """One-hot slot -> the marked category + ``offset``, -1 where none is marked."""
            one_hot = bits[:, lay[name]]
            return np.where(one_hot.any(1), one_hot.argmax(1) + offset, -1).tolist()

        hands, played = _as_ints(bits[:, lay["hand"]]), _as_ints(bits[:, lay["played"]])
        legal = _as_ints(np.asarray(mask, bool))
        phases = [_PHASES[p] for p in bits[:, lay["phase"]].argmax(1).tolist()]
        declarations = marked("declaration", v.trump)  # declaration action ids
        bidders, sitting_out, leaders = marked("bidder"), marked("sitting_out"), marked("trick_leader")
        trick_bits = bits[:, lay["trick"]].reshape(len(bits), n, -1)
        in_trick, trick_tiles = trick_bits.any(2).tolist(), trick_bits.argmax(2).tolist()
        # Texas 88: the bid winner's own discards (the bot counts them as seen); nobody else's.
        discards = _as_ints(bits[:, lay["discards"]]) if "discards" in lay else [0] * len(bits)
        nobody = (0,) * (n - 1)
        actions = []
        for i in range(len(bits)):
            order = [(leaders[i] + k) % n for k in range(n)]
            trick = tuple((s, trick_tiles[i][s]) for s in order if in_trick[i][s])
            # Fields the heuristic does not read (the auction record, scores, voids) are left empty.
            view = Texas42View(
                self.config,
                0,
                phases[i],
                0,
                hands[i],
                (),
                -1,
                (),
                bidders[i],
                -1,
                -1,
                declarations[i],
                sitting_out[i],
                trick,
                (),
                (),
                (played[i], *nobody),
                (),
                (0, 0),
                (0, 0),
                legal[i],
                None,
                tuple(iter_bits(discards[i])),
            )
            actions.append(self.bot.act(view, self.rng))
        return np.array(actions, np.int64)


def batched_bots(game: str) -> list[str]:
    """The names ``make_batched_bot`` accepts for ``game`` (its registry record's ``batched_bots``)."""
    return ["random", *get_game(game).batched_bots]


def make_batched_bot(game: str, name: str, options: Mapping[str, Any] | None = None) -> BatchedPolicy:
    """The batched policy of scripted bot ``name`` for ``game`` played with ``options``."""
    if name == "random":
        return random_actions
    known = get_game(game).batched_bots
    if name not in known:
        raise ValueError(f"no batched scripted opponent {name!r} for {game}; known: {batched_bots(game)}")
    return get_game(game).batched_bot_class(name)(dict(options or {}))


class BatchedPolicyAgent:
    """A batched policy as a seat-view ``Agent`` (``act(view, rng)``), e.g. to evaluate a policy
    trained on the vector environments with ``domino_env.evaluation``: the view is encoded with the
    ``compact`` encoder, the observation the batched engines give, and asked as a batch of one."""

    def __init__(self, policy: BatchedPolicy, game: str, num_actions: int):
        self.policy, self.num_actions = policy, num_actions
        self.encoder = get_encoder(game, "compact")

    def act(self, view: Any, rng: np.random.Generator) -> int:
        obs, mask = self.encoder.encode_with_mask(view, self.num_actions)
        return int(self.policy(obs[None], mask[None].astype(bool), rng)[0])
