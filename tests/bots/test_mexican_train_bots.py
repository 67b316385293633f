"""Mexican Train bots: complete legal rounds everywhere, greedy's habits on scripted positions, the
search's sampled worlds (consistent, and exact when given the true hidden tiles), no hidden input,
and greedy's edge over random play."""

from __future__ import annotations

import copy
from itertools import islice

import numpy as np
import pytest

from domino_env.bots import RandomAgent
from domino_env.bots.mexican_train import (
    GreedyMexicanTrainAgent,
    MexicanTrainSearchAgent,
    longest_chain,
    round_value,
    sample_world,
)
from domino_env.rules.mexican_train import DOUBLE_TILE, TILES, MexicanTrainConfig, MexicanTrainGame
from domino_env.rules.tiles import iter_bits

RNG = np.random.default_rng(0)  # greedy never draws on it
CONFIGS = [(n, preset) for n in (2, 4, 6, 8) for preset in ("standard", "cardinal")]


def play_round(config: MexicanTrainConfig, agents: list, seed: int) -> MexicanTrainGame:
    """One round with every move checked: a Python int, legal, and the same again from the same
    generator state."""
    rng = np.random.default_rng(seed)
    game = MexicanTrainGame(config, rng)
    while not game.is_terminal:
        view = game.view(game.current_player)
        replay = copy.deepcopy(rng)
        action = agents[game.current_player].act(view, rng)
        assert type(action) is int and action in game.legal_actions()
        assert agents[game.current_player].act(view, replay) == action
        game.apply(action)
    return game


@pytest.mark.parametrize("n, preset", CONFIGS)
def test_greedy_plays_complete_rounds_legally(n: int, preset: str) -> None:
    config = MexicanTrainConfig(num_players=n, preset=preset, episode="round")
    for seed in range(3):
        assert len(play_round(config, [GreedyMexicanTrainAgent()] * n, seed).results) == 1


@pytest.mark.parametrize("n, preset", CONFIGS)
def test_search_plays_complete_rounds_legally(n: int, preset: str) -> None:
    config = MexicanTrainConfig(num_players=n, preset=preset, episode="round")
    agents = [MexicanTrainSearchAgent(budget=2)] + [GreedyMexicanTrainAgent()] * (n - 1)
    assert len(play_round(config, agents, 0).results) == 1


def scripted(hand0: list[str], train0: list[str], marked: bool = False, others: int = 6) -> MexicanTrainGame:
    """Four players, engine 12-12, seat 0 to act with ``hand0``, its train ``train0`` laid and its
    marker on if ``marked``; the other hands hold ``others`` tiles each (nobody is about to go out),
    the rest is boneyard."""
    used = {TILES.parse(t) for t in hand0 + train0} | {DOUBLE_TILE[12]}
    rest = [t for t in np.random.default_rng(0).permutation(TILES.num_tiles).tolist() if t not in used]
    hands = [hand0] + [rest[i * others:(i + 1) * others] for i in range(3)]
    return MexicanTrainGame(MexicanTrainConfig(episode="round"), np.random.default_rng(0), deal={
        "hands": hands, "boneyard": rest[3 * others:], "first_player": 0,
        "trains": [train0, [], [], [], []], "marked": [0] if marked else []})


def greedy_move(game: MexicanTrainGame) -> str:
    return game.action_to_text(GreedyMexicanTrainAgent().act(game.view(game.current_player), RNG))


def test_greedy_plays_a_double_it_can_cover_and_not_one_it_cannot() -> None:
    assert greedy_move(scripted(["5-5", "5-9", "2-3"], ["12-5"])) == "play 5-5 own"
    # 5-5 would stand open against its player: the Mexican train takes 4-12
    assert greedy_move(scripted(["5-5", "4-12"], ["12-5"])) == "play 4-12 mexican"


def test_greedy_unmarks_its_train_and_sends_unplanned_tiles_away() -> None:
    hand = ["5-9", "9-1", "3-12"]  # the home plan is 5-9, 9-1: 3-12 goes away
    assert greedy_move(scripted(hand, ["12-5"])) == "play 3-12 mexican"
    assert greedy_move(scripted(hand, ["12-5"], marked=True)) == "play 5-9 own"  # the marker comes off


def test_greedy_opening_run_is_the_longest_chain() -> None:
    hand0 = ["12-12", "12-4", "4-8", "12-3", "3-7", "7-7", "7-1", "1-9", "0-0", "2-6"]
    config = MexicanTrainConfig(num_players=2, preset="cardinal", episode="round")
    game = MexicanTrainGame(config, np.random.default_rng(0), deal={
        "hands": [hand0, ["0-1", "2-2", "5-6", "6-6"]], "boneyard": ["0-5", "10-11"], "first_player": 0})
    greedy = GreedyMexicanTrainAgent()
    while game.current_player == 0:
        game.apply(greedy.act(game.view(0), RNG))
    laid = [f"{TILES.low[t]}-{TILES.high[t]}" for t, _s, _e in game.trains[0]]
    assert laid == ["3-12", "3-7", "7-7", "1-7", "1-9"]


def brute_longest(end: int, hand: int) -> int:
    """The longest chain's length by plain search (no cache), a double never last."""
    best = 0
    for t in iter_bits(hand & TILES.suit_mask[end]):
        rest = brute_longest(TILES.other_half(t, end), hand & ~(1 << t))
        if TILES.is_double(t) and not rest:
            continue
        best = max(best, 1 + rest)
    return best


def test_longest_chain_is_a_longest_legal_chain() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        tiles = rng.choice(TILES.num_tiles, size=int(rng.integers(3, 16)), replace=False)
        hand = sum(1 << int(t) for t in tiles)
        end = int(rng.integers(13))
        chain = longest_chain(end, hand)
        assert len(chain) == brute_longest(end, hand)
        for t in chain:
            assert hand >> t & 1 and end in (TILES.low[t], TILES.high[t])
            end = TILES.other_half(t, end)
        assert not chain or not TILES.is_double(chain[-1])


def positions(config: MexicanTrainConfig, seed: int, every: int = 7):
    """Every ``every``-th position of a random round, as the engine."""
    rng = np.random.default_rng(seed)
    game = MexicanTrainGame(config, rng)
    step = 0
    while not game.is_terminal:
        if step % every == 0:
            yield game
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
        step += 1


@pytest.mark.parametrize("n, preset", [(2, "cardinal"), (4, "standard"), (8, "standard")])
def test_sampled_worlds_are_consistent(n: int, preset: str) -> None:
    config = MexicanTrainConfig(num_players=n, preset=preset, episode="round")
    rng = np.random.default_rng(1)
    for game in positions(config, n):
        view = game.view(game.current_player)
        world = sample_world(view, rng)
        played = sum(1 << t for train in game.trains for t, _s, _e in train) | 1 << DOUBLE_TILE[game.engine]
        assert world.hands[view.seat] == view.hand
        assert [h.bit_count() for h in world.hands] == list(view.hand_sizes)
        assert len(world.boneyard) == view.boneyard_size
        hidden = sum(1 << t for t in world.boneyard)
        for s, h in enumerate(world.hands):
            hidden |= h if s != view.seat else 0
        assert not hidden & (view.hand | played)
        assert hidden | view.hand | played == TILES.full_mask
        assert world.view(view.seat)._replace(config=view.config) == view


@pytest.mark.parametrize("n, preset, double_bonus", [(3, "standard", "any"), (4, "cardinal", "cover")])
def test_a_world_with_the_true_tiles_is_the_real_position(n: int, preset: str, double_bonus: str) -> None:
    config = MexicanTrainConfig(num_players=n, preset=preset, double_bonus=double_bonus, episode="round")
    for seed in range(3):
        for game in positions(config, seed, every=3):
            view = game.view(game.current_player)
            hands = [list(iter_bits(h)) for h in game.hands]
            world = MexicanTrainGame.at_position(view, hands, list(game.boneyard), np.random.default_rng(0))
            for s in range(n):
                assert world.view(s)._replace(config=config) == game.view(s)
            real, rng = game.clone(), np.random.default_rng(seed)
            while not real.is_terminal:  # the same moves play the same round out
                assert world.legal_actions() == real.legal_actions()
                legal = real.legal_actions()
                action = legal[int(rng.integers(len(legal)))]
                real.apply(action)
                world.apply(action)
            assert world.results[-1].round_points == real.results[-1].round_points


def test_bots_never_read_hidden_tiles() -> None:
    """Two deals that differ only in the tiles seat 0 cannot see: the same view, the same moves."""
    config = MexicanTrainConfig(num_players=4, episode="round")
    for seed in range(4):
        game = next(islice(positions(config, seed, every=5), 3, None))  # the fourth position sampled
        view = game.view(game.current_player)
        world = sample_world(view, np.random.default_rng(seed + 10))
        assert [world.hands[s] for s in range(4)] != list(game.hands) or list(world.boneyard) != game.boneyard
        other = world.view(view.seat)._replace(config=view.config)
        assert other == view
        for agent in (GreedyMexicanTrainAgent(), MexicanTrainSearchAgent(budget=6)):
            assert agent.act(view, np.random.default_rng(3)) == agent.act(other, np.random.default_rng(3))


def test_greedy_beats_random() -> None:
    """One greedy seat (rotating) against three random ones over 40 seeded rounds."""
    config = MexicanTrainConfig(num_players=4, episode="round")
    margins = []
    for i in range(40):
        agents: list = [RandomAgent()] * 4
        agents[i % 4] = GreedyMexicanTrainAgent()
        game = play_round(config, agents, 100 + i)
        margins.append(round_value(game, i % 4))
    assert np.mean(margins) > 10, np.mean(margins)  # the others' points less greedy's (400 rounds: 16.3)
