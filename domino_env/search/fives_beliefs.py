"""Deals consistent with one seat's view of All Fives or Fives and Threes (``rules/fives.py``).

The same determinization as ``beliefs.py`` gives the line games, on the fives view: every tile the
seat cannot see (other hands, the stock, the tiles out of play) is dealt at random, keeping what the
view proves (RULES-new-games.md 5):

- hand sizes, the layout and who played each tile;
- a **pass** on open ends ``a, b, ...`` proves the hand then held none of those numbers;
- a **draw** under ``draw_policy="must_play"`` proves the same of the hand before the draw
  (``may_draw``: nothing); drawn tiles join the hand later, so a constraint binds only the tiles
  held at that moment, and the allocation keeps only hands some history of deals and draws
  explains (``beliefs._SeatHistory``, the line games' machinery);
- the first hand under ``lead_rule="highest_double"``: the lead was the top-ranked tile of all
  hands dealt, so no seat was dealt a higher one (drawn later, it may be held).

The allocation is uniform over the hands satisfying those constraints (with draws: over those that
have a consistent history, not weighted by their number, as in ``beliefs.py``); the stock order is a
uniform shuffle. ``rebuild_fives`` replays the hand's public history on such a deal.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from domino_env.rules.fives import END_STRIDE, FivesConfig, FivesGame, FivesView
from domino_env.rules.line import lead_rank
from domino_env.rules.tiles import DOUBLE_SIX, iter_bits
from domino_env.search.beliefs import _allocate, _HistoryTally, _SeatHistory, register_beliefs

Deal = dict[str, Any]


def table_mask(view: FivesView) -> int:
    """The tiles on the table (the centre and every arm)."""
    if view.centre is None:
        return 0
    mask = 1 << view.centre[0]
    for arm in view.arms:
        for record in arm:
            mask |= 1 << record[0]
    return mask


def _histories(view: FivesView) -> list[_SeatHistory]:
    """Per seat: its draws, plays and the tiles each pass (or forced draw) proves it lacked."""
    cfg = view.config
    stride = END_STRIDE[cfg.variant]
    draw_action = stride * DOUBLE_SIX.num_tiles
    seats = [_SeatHistory() for _ in range(cfg.num_players)]
    for index, (seat, action, _points, ends) in enumerate(view.history):
        lacked = 0
        for v in ends:
            if v >= 0:
                lacked |= DOUBLE_SIX.suit_mask[v]
        if action == draw_action:
            seats[seat].draws.append(index)
            if cfg.draw_policy == "must_play":
                seats[seat].constraints.append((index, lacked))
        elif action == draw_action + 1:
            seats[seat].constraints.append((index, lacked))
        else:
            seats[seat].plays[action // stride] = index
    if cfg.lead_rule == "highest_double" and view.hand_index == 0 and view.history:
        top = lead_rank(DOUBLE_SIX, view.history[0][1] // stride)
        above = sum(1 << t for t in range(DOUBLE_SIX.num_tiles) if lead_rank(DOUBLE_SIX, t) > top)
        for history in seats:
            history.constraints.insert(0, (0, above))
    return seats


def sample_fives_deal(view: FivesView, rng: np.random.Generator) -> Deal:
    """A random hand-start deal ``{"hands", "stock", "leader"}`` consistent with ``view`` (module
    docstring), in the form ``FivesGame(config, rng, deal=...)`` takes; tiles in neither are out of
    play. A view of a finished match is refused: nothing is left to decide."""
    if view.current_player is None:
        raise ValueError("the match is over: nothing is left to sample")
    n = view.config.num_players
    histories = _histories(view)
    known = [view.hand if s == view.seat else 0 for s in range(n)] if view.hands is None else list(view.hands)
    hidden = DOUBLE_SIX.full_mask & ~table_mask(view) & ~sum(known)
    room = [view.hand_sizes[s] - known[s].bit_count() for s in range(n)]
    banned = [h.banned_now() for h in histories]
    initial = [view.hand_sizes[s] + len(h.plays) - len(h.draws) for s, h in enumerate(histories)]
    items = list(iter_bits(hidden))
    tallies = [
        _HistoryTally(h, initial[s], items, known[s]) if h.draws else None for s, h in enumerate(histories)
    ]
    hands = list(known)
    rest = _allocate(hidden, hands, room, banned, rng, tallies=tallies)
    starts = [h.dealt_and_drawn(hands[s], initial[s]) for s, h in enumerate(histories)]
    if any(start is None for start in starts):
        raise RuntimeError("internal error: an allocation the tallies accepted has no history")
    drawn = [iter(start[1]) for start in starts]
    draw_action = END_STRIDE[view.config.variant] * DOUBLE_SIX.num_tiles
    front = [next(drawn[seat]) for seat, action, _p, _e in view.history if action == draw_action]
    return {"hands": [start[0] for start in starts], "stock": front + rest[:view.stock_size],
            "leader": view.leader}


def rebuild_fives(view: FivesView, deal: Deal, rng: np.random.Generator) -> FivesGame:
    """A one-hand engine at ``view``'s position on ``deal``: the hand's public history replayed.

    The world plays this hand to its end whatever the match target (the search values a move by the
    hand's margin); ``rng`` is the world's generator."""
    return _replayed(FivesGame(one_hand_rules(view.config), rng, deal=deal), view)


def one_hand_rules(config: FivesConfig) -> FivesConfig:
    """``config`` playing one hand alone, whatever the match target: the search's worlds' rules."""
    return replace(config, target_score=None, exact_target=None if config.is_all_fives else False)


def rebuild_fives_match(view: FivesView, deal: Deal, rng: np.random.Generator) -> FivesGame:
    """The engine at ``view``'s position on ``deal`` under the view's own rules (``beliefs.rebuild``):
    the hand's public history replayed; ``rng`` deals later hands."""
    return _replayed(FivesGame(view.config, rng, deal=deal), view)


def _replayed(game: FivesGame, view: FivesView) -> FivesGame:
    """``game``, just dealt, brought to ``view``'s hand: its index, the scores when it began (the
    points its plays scored taken off, partners alike), then its moves."""
    cfg = view.config
    game.scores, game.hand_index = list(view.scores), view.hand_index
    for seat, _action, points, _ends in view.history:
        for s in range(cfg.num_players):
            game.scores[s] -= points * (cfg.side_of(s) == cfg.side_of(seat))
    for _seat, action, _points, _ends in view.history:
        game.apply(action)
    return game


register_beliefs(FivesView, sample_fives_deal, rebuild_fives_match)
