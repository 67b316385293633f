"""Scripted opponents that act on the batched API's (observation, mask) alone.

The trainer steps games through ``domino_env.vector``, which hands out only each acting seat's
compact observation and legal mask, not seat views, so the view-based bots of ``domino_env.bots``
cannot play there. The opponents here re-derive their decision from the same public information:

- ``random``: uniform over the legal actions (every game).
- ``greedy`` (line games): ``bots.line.GreedyLineAgent``'s one-ply score of every placement,
  computed for a whole batch from the compact observation (``encoders.line_compact``): heaviest tile
  (pips weighted 10x once a Block round is about to block), doubles first, ends kept on numbers I
  still hold, ends an opponent is proven void in (and not ones my partner is void in); no placement
  means draw when allowed, else pass. Its void information is the compact ``voids`` slot. In Block
  that slot holds exactly the numbers the view-based bot sees as passed on, so the two play the same
  move (``tests/training/test_scripted.py`` checks it on random positions); in Draw under
  ``draw_policy="when_stuck"`` the slot also keeps the ends a seat drew on, which the view-based bot
  forgets at a draw, so there it approximates ``greedy`` from slightly more public information.

- ``heuristic`` (Texas 42): ``bots.texas42.HeuristicTexas42Agent`` itself, asked once per row with
  a view decoded from the compact observation (``encoders.texas42_compact``). Seats are relative to
  the acting seat, which keeps every relation the bot reads (my team, the bidder's team, the Nello
  sitter), so the move is the bot's own (``tests/training/test_scripted.py`` checks it). A Python
  call per row, not a tensor program: a second implementation of the bot's bidding, trump call and
  count-aware play would have to be kept in step with the first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import torch

from domino_env.bots.line import GreedyWeights
from domino_env.bots.texas42 import HeuristicTexas42Agent
from domino_env.encoders import line_compact, texas42_compact
from domino_env.rules.texas42 import TRUMP, Texas42View

if TYPE_CHECKING:
    from training.config import GameConfig

ScriptedPolicy = Callable[[torch.Tensor, torch.Tensor, torch.Generator], torch.Tensor]
"""``policy(obs (n, obs_dim), mask (n, A) bool, generator) -> actions (n,)``."""

def random_actions(obs: torch.Tensor, mask: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """The scripted ``random`` opponent: uniform over each row's legal actions (``obs`` unused)."""
    return torch.multinomial(mask.float(), 1, generator=generator).squeeze(-1)


class BatchedLineGreedy:
    """``bots.line.GreedyLineAgent``'s score (its ``GreedyWeights``), for a batch of compact observations."""

    def __init__(self, options: dict, weights: GreedyWeights | None = None):
        from domino_env.vector.line import VectorLineGame

        self.w = weights or GreedyWeights()
        cfg = VectorLineGame(1, **options).config  # the engine's own reading of the options
        ts = cfg.tiles
        self.t, self.v, self.n = ts.num_tiles, cfg.max_pips + 1, cfg.num_players
        self.block = cfg.variant == "block"
        self.lay = line_compact.slot_slices(cfg)
        tiles = torch.arange(self.t)
        self.low = torch.tensor(ts.low)[tiles.repeat_interleave(2)]  # per placement action
        self.high = torch.tensor(ts.high)[tiles.repeat_interleave(2)]
        self.side = torch.arange(2 * self.t) % 2
        self.pips = torch.tensor(ts.pips, dtype=torch.float64).repeat_interleave(2)
        self.double = (self.low == self.high).double()
        # suit[t, v]: tile t holds number v.
        holds = [[v in (ts.low[i], ts.high[i]) for v in range(self.v)] for i in range(self.t)]
        self.suit = torch.tensor(holds, dtype=torch.float64)
        relative = np.arange(1, self.n)
        partner = (relative % 2 == 0) if cfg.teams else np.zeros(self.n - 1, bool)
        self.partner = torch.as_tensor(partner)

    def __call__(self, obs: torch.Tensor, mask: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        t, v, lay = self.t, self.v, self.lay
        device = obs.device  # scored on the CPU: a few small tensor ops per decision
        obs = obs.double().cpu()
        hand, unknown = obs[:, lay["hand"]], obs[:, lay["unknown"]]
        left_hot, right_hot = obs[:, lay["left_end"]], obs[:, lay["right_end"]]
        empty = left_hot.sum(-1) == 0
        left, right = left_hot.argmax(-1), right_hot.argmax(-1)

        # Open ends after each placement (pips - matched end is the tile's other half).
        total = (self.low + self.high)[None, :]
        new_left = torch.where(self.side == 0, total - left[:, None], left[:, None])
        new_right = torch.where(self.side == 1, total - right[:, None], right[:, None])
        new_left = torch.where(empty[:, None], self.low[None, :], new_left).clamp(0, v - 1)
        new_right = torch.where(empty[:, None], self.high[None, :], new_right).clamp(0, v - 1)

        # Tiles left in hand on each new end (the played tile no longer counts).
        held = hand @ self.suit  # (B, V) tiles in hand per number
        suit_a = self.suit.repeat_interleave(2, dim=0)  # (2T, V)
        keep = sum(held.gather(1, e) - suit_a.T[e, torch.arange(2 * t)] for e in (new_left, new_right))

        # Voids of the other seats, relative seats 1..n-1, on either new end.
        voids = obs[:, lay["voids"]].reshape(-1, self.n - 1, v)
        void_on = (voids.gather(2, new_left[:, None, :].expand(-1, self.n - 1, -1))
                   + voids.gather(2, new_right[:, None, :].expand(-1, self.n - 1, -1))) > 0
        opponents = void_on[:, ~self.partner].sum(1).double()
        partners = void_on[:, self.partner].sum(1).double()

        w = self.w
        pip_weight = torch.full((obs.shape[0],), w.pips, dtype=torch.float64)
        if self.block:  # at most one unknown tile fits an open end: lower the pip total
            fits = ((self.suit.T[left] + self.suit.T[right]) > 0).double()
            near_block = ~empty & ((unknown * fits).sum(-1) <= 1)
            pip_weight = torch.where(near_block, w.blocking_pips, w.pips)

        score = (pip_weight[:, None] * self.pips + w.double * self.double + w.keep * keep
                 + w.opponent_void * opponents - w.partner_void * partners)
        mask = mask.cpu()
        placements = mask[:, : 2 * t]
        score = score.masked_fill(~placements, -torch.inf)
        best = score.argmax(-1)  # first maximum: ties go to the lowest action id, as in the bot
        fallback = torch.where(mask[:, 2 * t], 2 * t, 2 * t + 1)
        return torch.where(placements.any(-1), best, fallback).to(device)


class BatchedTexas42Heuristic:
    """``bots.texas42.HeuristicTexas42Agent``'s move for a batch of compact observations."""

    def __init__(self, options: dict):
        from domino_env.vector.texas42 import VectorTexas42Game

        self.config = VectorTexas42Game(1, **options).config  # the engine's own reading of the options
        self.lay = texas42_compact.slot_slices(self.config)
        self.bot = HeuristicTexas42Agent()
        self.rng = np.random.default_rng(0)  # the heuristic draws nothing; act() takes a generator

    def __call__(self, obs: torch.Tensor, mask: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        bits = obs.cpu().numpy() > 0.5  # only 0/1 slots are read
        lay = self.lay

        def as_ints(columns: np.ndarray) -> list[int]:
            """Each row's 0/1 columns as a little-endian bit set."""
            packed = np.packbits(columns, axis=1, bitorder="little")
            return [int.from_bytes(row.tobytes(), "little") for row in packed]

        def marked(name: str, offset: int = 0) -> list[int]:
            """One-hot slot -> the marked category + ``offset``, -1 where none is marked."""
            one_hot = bits[:, lay[name]]
            return np.where(one_hot.any(1), one_hot.argmax(1) + offset, -1).tolist()

        hands, played = as_ints(bits[:, lay["hand"]]), as_ints(bits[:, lay["played"]])
        legal = as_ints(mask.cpu().numpy().astype(bool))
        phases = bits[:, lay["phase"]].argmax(1).tolist()
        declarations = marked("declaration", TRUMP)  # declaration action ids
        bidders, sitting_out, leaders = marked("bidder"), marked("sitting_out"), marked("trick_leader")
        trick_bits = bits[:, lay["trick"]].reshape(len(bits), 4, -1)
        in_trick, trick_tiles = trick_bits.any(2).tolist(), trick_bits.argmax(2).tolist()
        actions = []
        for i in range(len(bits)):
            order = [(leaders[i] + k) % 4 for k in range(4)]
            trick = tuple((s, trick_tiles[i][s]) for s in order if in_trick[i][s])
            # Fields the heuristic does not read (the auction record, scores, voids) are left empty.
            view = Texas42View(
                self.config, 0, phases[i], 0, hands[i], (), -1, (), bidders[i], -1, -1, declarations[i],
                sitting_out[i], trick, (), (), (played[i], 0, 0, 0), (), (0, 0), (0, 0), legal[i],
            )
            actions.append(self.bot.act(view, self.rng))
        return torch.tensor(actions, dtype=torch.long, device=obs.device)


BATCHED_BOTS: dict[tuple[str, str], Callable[[dict], ScriptedPolicy]] = {
    ("dominoes", "greedy"): BatchedLineGreedy,
    ("texas42", "heuristic"): BatchedTexas42Heuristic,
}
"""``(game, name) -> factory(game options)``: the batched scripted opponents beside ``random``."""


def scripted_opponents(game: str) -> list[str]:
    """The names ``pool.scripted`` and ``imitation.teacher`` accept for ``game``."""
    return ["random", *(name for g, name in BATCHED_BOTS if g == game)]


def make_scripted(name: str, game: GameConfig) -> ScriptedPolicy:
    """The batched policy of scripted opponent ``name`` for ``game`` (names validated by the config)."""
    if name == "random":
        return random_actions
    if (game.name, name) not in BATCHED_BOTS:
        raise ValueError(f"no batched scripted opponent {name!r} for {game.name}; "
                         f"known: {scripted_opponents(game.name)}")
    return BATCHED_BOTS[game.name, name](dict(game.options))
