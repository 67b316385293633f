"""Deals consistent with one seat's view of Mexican Train (``rules/mexican_train.py``).

The same determinization as ``beliefs.py`` gives the line games, on the Mexican Train view: every
tile the seat cannot see (the other hands and the boneyard) is dealt at random, keeping what the
view proves (RULES-new-games.md 5): hand sizes, every train and who played each tile, and what
each draw and pass proves the hand then lacked (``encoders.mexican_train_compact.proofs``). Drawn
tiles join a hand later, so a proof binds only the tiles held at that moment, and the allocation
keeps only hands some history of deals and draws explains (``beliefs._SeatHistory``, the line
games' machinery), which also says which tile each draw brought, the seat's own draws included
(a draw never shows its tile).

The proofs are sound but not complete, so a sampled deal is replayed (``rebuild_mexican_train``)
and drawn again when the rules refuse a move, up to ``MAX_TRIES`` times: the sample is consistent,
and uniform among the allocations the proofs allow that the rules accept (with draws: among those
with a consistent history, not weighted by their number, as in ``beliefs.py``).

With ``engine_source="holder"`` the tiles drawn automatically to find the engine are dealt straight
into the hands that drew them, and the engine into its holder's hand: the same position.
``rebuild_mexican_train`` replays the round on such a deal at the view's round; of past rounds a
view keeps only the round points.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from domino_env.encoders.mexican_train import table_tiles
from domino_env.encoders.mexican_train_compact import proofs
from domino_env.rules.errors import IllegalActionError
from domino_env.rules.mexican_train import (
    DOUBLE_TILE,
    NUM_TILES,
    SUIT,
    TILES,
    MexicanTrainGame,
    MexicanTrainResult,
    MexicanTrainView,
    engine_value,
)
from domino_env.rules.tiles import iter_bits
from domino_env.search.beliefs import _allocate, _HistoryTally, _SeatHistory, register_beliefs

MAX_TRIES = 1_000  # replays before giving up: views from real play pass within a few
QUICK_TRIES = 300  # allocations under the last proofs alone before the exact, slow one

Deal = dict[str, Any]


def _histories(view: MexicanTrainView) -> list[_SeatHistory]:
    """Per seat: its draws, plays and the tiles each draw or pass proves it lacked."""
    n = view.config.num_players
    draw = NUM_TILES * (n + 1)
    seats = [_SeatHistory() for _ in range(n)]
    for index, (seat, action) in enumerate(view.history):
        if action < draw:
            seats[seat].plays[action // (n + 1)] = index
        elif action == draw:
            seats[seat].draws.append(index)
    for index, seat, lacks in proofs(view):
        banned = 0
        for v in iter_bits(lacks):
            banned |= SUIT[v]
        seats[seat].constraints.append((index, banned))
    return seats


def sample_mexican_train_deal(view: MexicanTrainView, rng: np.random.Generator) -> Deal:
    """A round-start deal ``{"hands", "boneyard", "first_player"}`` (tile ids) consistent with
    ``view`` (module docstring), which ``rebuild_mexican_train`` replays to ``view``'s position."""
    if view.current_player is None:
        raise ValueError("the episode is over: nothing is left to sample")
    for _ in range(MAX_TRIES):
        deal = _draw_deal(view, rng)
        try:
            rebuild_mexican_train(view, deal, rng)
        except IllegalActionError:
            continue
        return deal
    raise ValueError(f"no consistent deal found in {MAX_TRIES} tries")


def rebuild_mexican_train(view: MexicanTrainView, deal: Deal, rng: np.random.Generator) -> MexicanTrainGame:
    """The engine at ``view``'s position on ``deal``: the round's history replayed (``IllegalActionError``
    when the deal cannot play it, or reaches another view); ``rng`` deals later rounds."""
    first = view.round_index - len(view.round_points)  # the episode's first round
    results = [  # a view keeps only the round points of past rounds
        MexicanTrainResult(i, engine_value(i), 0, "blocked", None, points, points)
        for i, points in enumerate(view.round_points, start=first)
    ]
    game = MexicanTrainGame.__new__(MexicanTrainGame)
    game._setup(view.config, rng, list(view.scores), results, view.round_index)
    game._start_round(game._parse_deal(deal))
    for seat, action in view.history:
        if game.current != seat:
            raise IllegalActionError(f"seat {game.current} is to act, the history has seat {seat}")
        game.apply(action)
    if game.view(view.seat) != view:  # e.g. an opening run this deal ends by itself, or goes on
        raise IllegalActionError("the deal plays the history but reaches another position")
    return game


def _draw_deal(view: MexicanTrainView, rng: np.random.Generator) -> Deal:
    """One allocation the proofs allow, with the history of deals and draws that explains it.

    Allocating under the history tallies is exact but slow (Mexican Train has many draws), so the
    current hands are first drawn under the last proofs alone (``banned_now``) and kept when some
    history explains them, up to ``QUICK_TRIES`` times: the same distribution, by rejection."""
    n = view.config.num_players
    histories = _histories(view)
    known = list(view.hands) if view.hands is not None else [view.hand * (s == view.seat) for s in range(n)]
    hidden = TILES.full_mask & ~table_tiles(view) & ~sum(known)
    room = [view.hand_sizes[s] - known[s].bit_count() for s in range(n)]
    banned = [h.banned_now() for h in histories]
    initial = [view.hand_sizes[s] + len(h.plays) - len(h.draws) for s, h in enumerate(histories)]
    for _ in range(QUICK_TRIES):
        hands = list(known)
        rest = _allocate(hidden, hands, room, banned, rng)
        starts = [h.dealt_and_drawn(hands[s], initial[s]) for s, h in enumerate(histories)]
        if all(start is not None for start in starts):
            return _deal(view, starts, rest)
    items = list(iter_bits(hidden))
    tallies = [_HistoryTally(h, initial[s], items, known[s]) if h.draws else None
               for s, h in enumerate(histories)]
    hands = list(known)
    rest = _allocate(hidden, hands, room, banned, rng, tallies=tallies)
    starts = [h.dealt_and_drawn(hands[s], initial[s]) for s, h in enumerate(histories)]
    if any(start is None for start in starts):
        raise RuntimeError("internal error: an allocation the tallies accepted has no history")
    return _deal(view, starts, rest)


def _deal(view: MexicanTrainView, starts: list, rest: list[int]) -> Deal:
    """The deal of each seat's round-start hand and drawn tiles (``starts``) and the boneyard's rest."""
    dealt = [start[0] for start in starts]
    if view.engine_holder is not None:
        dealt[view.engine_holder].append(DOUBLE_TILE[view.engine])
    drawn = [iter(start[1]) for start in starts]
    draw = NUM_TILES * (view.config.num_players + 1)
    front = [next(drawn[seat]) for seat, action in view.history if action == draw]
    return {"hands": dealt, "boneyard": front + rest, "first_player": view.first_player}


register_beliefs(MexicanTrainView, sample_mexican_train_deal, rebuild_mexican_train)
