"""The All Fives / Fives and Threes bots (``domino_env/bots/fives.py``) and their belief sampler
(``domino_env/search/fives_beliefs.py``): legal play in every shape of game, the club player's
choices in scripted positions, deals consistent with the view, no hidden information read, and
greedy's edge over random play."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.bots.base import RandomAgent, make_bot
from domino_env.bots.fives import FivesSearchAgent, FivesWeights, GreedyFivesAgent
from domino_env.rules.fives import FivesConfig, FivesGame, Layout, count_points
from domino_env.rules.tiles import DOUBLE_SIX
from domino_env.search.decisions import Decision
from domino_env.search.fives_beliefs import rebuild_fives, sample_fives_deal, table_mask
from domino_env.search.line_solver import margin

SHAPES = [
    {"variant": "all_fives", "num_players": 2},
    {"variant": "all_fives", "num_players": 3},
    {"variant": "all_fives", "num_players": 4},  # partnerships
    {"variant": "all_fives", "num_players": 4, "preset": "classic"},  # four alone
    {"variant": "all_fives", "num_players": 2, "draw_policy": "may_draw", "lead_rule": "highest_double",
     "spinner": "none", "double_count": "one_half", "draw_reserve": 2, "score_unit": "fives"},
    {"variant": "fives_and_threes", "num_players": 2},
    {"variant": "fives_and_threes", "num_players": 3},
    {"variant": "fives_and_threes", "num_players": 4},  # partnerships
]


def _one_hand(**options: object) -> FivesConfig:
    return FivesConfig(target_score=None, **options)


def _play(game: FivesGame, agents: list, rng: np.random.Generator) -> None:
    while not game.is_terminal:
        seat = game.current_player
        game.apply(agents[seat].act(game.view(seat), rng))  # apply raises on an illegal move


def test_registered_for_fives() -> None:
    assert isinstance(make_bot("fives", "greedy"), GreedyFivesAgent)
    assert make_bot("fives", "search", budget=7).budget == 7
    with pytest.raises(ValueError, match="budget"):
        make_bot("fives", "search", budget=0)
    with pytest.raises(ValueError, match="rollout"):
        make_bot("fives", "search", rollout="oracle")


def test_layout_follows_the_engine() -> None:
    """``Layout`` (greedy's look-ahead) gives the engine's count, open ends and play scores."""
    rng = np.random.default_rng(0)
    for options in SHAPES:
        cfg = _one_hand(**options)
        spins = cfg.spinner == "first_double"
        for k in range(15):
            game = FivesGame(cfg, np.random.default_rng(k))
            while not game.is_terminal:
                layout = Layout.of(game.view(game.current_player))
                assert layout.count(cfg.double_count) == game.count
                assert layout.open_ends() == game.open_ends()
                for a in game.legal_actions():
                    if a < game.draw_action:
                        t, e = divmod(a, game.stride)
                        after = game.clone()
                        after.apply(a)
                        placed = layout.place(t, e, spins)
                        assert count_points(cfg, placed.count(cfg.double_count)) == after.history[-1][2]
                        if not after.is_terminal:
                            assert placed == Layout.of(after)
                legal = game.legal_actions()
                game.apply(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("options", SHAPES, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_bots_play_legally_to_the_end(options: dict) -> None:
    """Greedy plays whole matches, search whole hands, beside random seats, in every shape of game."""
    rng = np.random.default_rng(1)
    n = options["num_players"]
    greedy, search = GreedyFivesAgent(), FivesSearchAgent(budget=6, rollout="fast")
    match = FivesGame(FivesConfig(target_score=40 if options.get("score_unit") != "fives" else 8, **options),
                      np.random.default_rng(2))
    _play(match, [greedy if s % 2 == 0 else RandomAgent() for s in range(n)], rng)
    assert match.is_terminal and max(match.scores) >= match.config.target_score
    hand = FivesGame(_one_hand(**options), np.random.default_rng(3))
    _play(hand, [search if s % 2 == 0 else greedy for s in range(n)], rng)
    assert hand.is_terminal and len(hand.results) == 1


def test_greedy_takes_fifteen_over_five() -> None:
    """Seat 1 led the 6-6 spinner, seat 0 laid 6-4 west (count 16). Seat 1 may score 15 (3-4 west:
    3 + 12) or 5 (1-6 east: 4 + 1), or nothing; greedy takes the 15."""
    deal = {"hands": ["1-0 4-0 4-2 5-4 2-2 6-4 5-5 6-5 4-4".split(),
                      "4-3 6-3 3-0 6-6 6-1 2-0 6-2 5-0 5-2".split()],
            "stock": "3-3 0-0 5-3 3-1 2-1 4-1 6-0 1-1 3-2 5-1".split(), "leader": 1}
    game = FivesGame(_one_hand(), np.random.default_rng(0), deal=deal)
    game.apply(game.action_from_text("play 6-6 west"))
    game.apply(game.action_from_text("play 6-4 west"))
    scores = {}
    for a in game.legal_actions():
        after = game.clone()
        after.apply(a)
        scores[game.action_to_text(a)] = after.history[-1][2]
    assert sorted(set(scores.values())) == [0, 5, 15]
    choice = GreedyFivesAgent().act(game.view(1), np.random.default_rng(0))
    assert game.action_to_text(choice) == "play 3-4 west"


def test_greedy_denies_a_sure_count() -> None:
    """Fourteen tiles each, no stock: seat 1 knows seat 0's hand exactly (the unseen tiles). Over the
    6-6 spinner (count 12) both 4-6 and 1-6 west score nothing, but after 4-6 seat 0 surely scores
    (3-4 west: 3 + 12 = 15) and after 1-6 it cannot score; greedy lays 1-6 where a points-only
    choice (``FivesWeights(reply=0)``) lays the heavier 4-6."""
    deal = {"hands": ["4-3 4-0 4-1 5-1 6-6 2-0 6-5 6-0 5-2 5-4 3-0 6-3 2-1 0-0".split(),
                      "5-3 6-1 3-3 2-2 1-1 5-0 6-2 3-2 4-4 3-1 5-5 6-4 1-0 4-2".split()], "leader": 0}
    game = FivesGame(_one_hand(hand_size=14), np.random.default_rng(0), deal=deal)
    game.apply(game.action_from_text("play 6-6 west"))

    def best_reply(move: str) -> int:
        after = game.clone()
        after.apply(after.action_from_text(move))
        assert after.history[-1][2] == 0
        replies = []
        for a in after.legal_actions():
            reply = after.clone()
            reply.apply(a)
            replies.append(reply.history[-1][2])
        return max(replies)

    assert best_reply("play 4-6 west") > 0 and best_reply("play 1-6 west") == 0
    points_only = GreedyFivesAgent(FivesWeights(reply=0)).act(game.view(1), np.random.default_rng(0))
    assert game.action_to_text(points_only) == "play 4-6 west"
    choice = GreedyFivesAgent().act(game.view(1), np.random.default_rng(0))
    assert game.action_to_text(choice) == "play 1-6 west"


def _positions(options: dict, hands: int, seed: int):
    """Views of the seat to act along random hands (random play: many passes and draws)."""
    rng = np.random.default_rng(seed)
    cfg = _one_hand(**options)
    for k in range(hands):
        game = FivesGame(cfg, np.random.default_rng(seed + k))
        while not game.is_terminal:
            yield game, game.view(game.current_player)
            legal = game.legal_actions()
            game.apply(legal[int(rng.integers(len(legal)))])


def test_sampled_deals_are_consistent_with_the_view() -> None:
    """Sampled hands hold none of the seat's own tiles nor any tile on the table; a seat that passed
    at ends (a, b ...) and has not drawn since gets no tile with a or b; the public history replays."""
    rng = np.random.default_rng(5)
    checked_passes = 0
    for options in SHAPES:
        for game, view in _positions(options, 4, 11):
            world = rebuild_fives(view, sample_fives_deal(view, rng), rng)
            assert world.view(view.seat)._replace(config=view.config) == view
            seen = view.hand | table_mask(view)
            for s in range(view.config.num_players):
                if s != view.seat:
                    assert world.hands[s] & seen == 0
                    assert world.hands[s].bit_count() == view.hand_sizes[s]
            for s in range(view.config.num_players):
                own = [(a, ends) for seat, a, _p, ends in view.history if seat == s]
                if own and own[-1][0] == game.pass_action:
                    for v in own[-1][1]:
                        if v >= 0:
                            assert world.hands[s] & DOUBLE_SIX.suit_mask[v] == 0
                            checked_passes += 1
    assert checked_passes > 50


def test_search_keeps_greedys_move_unless_another_gains_more_than_one_standard_error() -> None:
    """``best`` plays the candidate of the highest ``scores``: its mean gain over greedy's move (the
    first candidate) in the same worlds less one standard error; greedy's move scores 0."""
    greedy_margins = np.array([0.0, 10.0, -4.0, 6.0])
    decision = Decision(None, [7, 8, 9], 0, np.column_stack([
        greedy_margins,
        greedy_margins + [1.0, 1.0, 1.0, 1.0],  # +1 in every world: no error, it wins
        greedy_margins + [14.0, -8.0, 14.0, -8.0],  # +3 on average, but noisy: it loses
    ]), np.zeros(3))
    scores = FivesSearchAgent.scores(decision)
    assert scores[0] == 0.0 and scores[1] == 1.0
    assert scores[2] == pytest.approx(3.0 - np.std([14, -8, 14, -8], ddof=1) / 2)
    assert FivesSearchAgent.best(decision) == 8
    decision.values[:, 1] = decision.values[:, 0] - 1.0  # now worse everywhere: greedy's move stands
    assert FivesSearchAgent.best(decision) == 7


def test_sampler_refuses_a_finished_match() -> None:
    game = FivesGame(_one_hand(), np.random.default_rng(0))
    _play(game, [RandomAgent(), RandomAgent()], np.random.default_rng(0))
    with pytest.raises(ValueError, match="over"):
        sample_fives_deal(game.view(0), np.random.default_rng(0))


@pytest.mark.parametrize("options", [SHAPES[0], SHAPES[2], SHAPES[5]], ids=["af2", "af4", "ft2"])
def test_decisions_ignore_hidden_tiles(options: dict) -> None:
    """Two engines (``deal=``) at the same view of the acting seat but with the hidden tiles dealt
    differently get the same decisions from both bots (the search with the same seed)."""
    rng = np.random.default_rng(7)
    greedy, search = GreedyFivesAgent(), FivesSearchAgent(budget=8, rollout="fast")
    pairs = 0
    for i, (game, view) in enumerate(_positions(options, 3, 21)):
        if i % 3 or not view.legal_mask & ((1 << game.draw_action) - 1):
            continue
        other = rebuild_fives(view, sample_fives_deal(view, rng), rng)
        twin = other.view(view.seat)
        assert twin._replace(config=view.config) == view
        if other.hands == game.hands:
            continue
        pairs += 1
        twin = twin._replace(config=view.config)
        assert greedy.act(view, rng) == greedy.act(twin, rng)
        assert search.act(view, np.random.default_rng(i)) == search.act(twin, np.random.default_rng(i))
    assert pairs >= 5


@pytest.mark.parametrize(("variant", "floor"), [("all_fives", 15.0), ("fives_and_threes", 1.5)])
def test_greedy_beats_random(variant: str, floor: float) -> None:
    """Duplicate deals (each dealt hand played twice, seats swapped), 2 players: greedy's mean margin
    per hand is far above random's (measured +31 and +4.0 points over 500 deals, docs/rules_fives.md)."""
    cfg = _one_hand(variant=variant)
    rng = np.random.default_rng(3)
    total = 0.0
    deals = 100
    for d in range(deals):
        for greedy_seat in (0, 1):
            game = FivesGame(cfg, np.random.default_rng(1000 + d))
            agents = [GreedyFivesAgent(), RandomAgent()][::1 if greedy_seat == 0 else -1]
            _play(game, agents, rng)
            total += margin(game.results[-1].points, greedy_seat)
    assert total / (2 * deals) > floor
