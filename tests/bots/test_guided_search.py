"""The search bots guided by a trained network (``make_bot(game, "search", network=...)``, line games
and Texas 42): legal and reproducible, bad values refused, the critic as leaf value, the network's
move order, and stronger than random."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from domino_env.bots import make_bot  # noqa: E402
from domino_env.evaluation import AgentSpec, GameSetup, evaluate  # noqa: E402
from domino_env.evaluation.tasks import baseline_path  # noqa: E402
from domino_env.rules.line import LineConfig, LineGame  # noqa: E402
from domino_env.rules.texas42 import (  # noqa: E402
    DECLARE,
    PLAY_PHASE,
    TRUMP,
    TRUMP_DOUBLES,
    Texas42Config,
    Texas42Game,
)
from domino_env.search.determinize import sample_world  # noqa: E402

BLOCK2P = str(baseline_path("Block2p"))
GUIDED = [
    {"budget": 6, "network": BLOCK2P, "exact_tiles": 0},  # network rollouts to the end
    {"budget": 6, "network": BLOCK2P, "exact_tiles": 6, "top_moves": 2},
    {"budget": 6, "network": BLOCK2P, "rollout": "greedy", "leaf_plies": 2},
    {"budget": 6, "network": BLOCK2P, "rollout": "auto", "leaf_plies": 0, "exact_tiles": 0},
]


def options_id(kwargs: dict) -> str:
    return ",".join(f"{key}={value}" for key, value in kwargs.items() if key != "network")


@pytest.mark.parametrize("kwargs", GUIDED, ids=options_id)
def test_guided_search_plays_legal_moves_reproducibly(kwargs: dict) -> None:
    agent = make_bot("dominoes", "search", **kwargs)
    for seed in range(2):
        game = LineGame(LineConfig(variant="block"), np.random.default_rng(seed))
        rng = np.random.default_rng(seed + 100)
        while not game.is_terminal:
            view = game.view(game.current)
            replay = copy.deepcopy(rng)
            action = agent.act(view, rng)
            assert type(action) is int and action in game.legal_actions()
            assert agent.act(view, replay) == action
            game.apply(action)


def _match_trained(tmp_path: Path) -> str:
    """The BlockTeams4p policy recorded as trained on whole matches (no shipped policy is any more):
    its critic's values are then no round margins."""
    from domino_env_training.checkpoints import load_checkpoint, save_checkpoint

    policy = load_checkpoint(baseline_path("BlockTeams4p"))
    options = policy["config"]["game"]["options"]
    policy["config"]["game"]["options"] = {**options, "episode": "match", "target_score": 100}
    path = tmp_path / "match.pt"
    save_checkpoint(path, policy)
    return str(path)


def test_guided_search_refuses_bad_values(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="network must be the path of a checkpoint file, got 'nowhere.pt'"):
        make_bot("dominoes", "search", network="nowhere.pt")
    with pytest.raises(ValueError, match="need network=<checkpoint path>"):
        make_bot("dominoes", "search", rollout="network")
    with pytest.raises(ValueError, match="need network=<checkpoint path>"):
        make_bot("dominoes", "search", top_moves=2)
    with pytest.raises(ValueError, match="top_moves must be at least 1"):
        make_bot("dominoes", "search", network=BLOCK2P, top_moves=0)
    with pytest.raises(ValueError, match="leaf_plies must be at least 0"):
        make_bot("dominoes", "search", network=BLOCK2P, leaf_plies=-1)
    with pytest.raises(ValueError, match="need network=<checkpoint path>"):
        make_bot("dominoes", "search", prior_weight=2)
    for bad in (-1, float("nan"), float("inf"), "heavy", True):
        with pytest.raises(ValueError, match="prior_weight must be a finite number >= 0"):
            make_bot("dominoes", "search", network=BLOCK2P, prior_weight=bad)
    with pytest.raises(ValueError, match="rollout"):
        make_bot("dominoes", "search", network=BLOCK2P, rollout="sampled")
    with pytest.raises(ValueError, match="trained on 'texas42', not 'dominoes'"):
        make_bot("dominoes", "search", network=str(baseline_path("Texas42")))
    match_network = _match_trained(tmp_path)
    with pytest.raises(ValueError, match="leaf_plies: .*episode='round'"):
        make_bot("dominoes", "search", network=match_network, leaf_plies=2)
    # A network of other rules is refused at the first position it is asked about.
    other_rules = make_bot("dominoes", "search", network=str(baseline_path("BlockTeams4p")))
    view = LineGame(LineConfig(variant="block"), np.random.default_rng(0)).view(0)
    with pytest.raises(ValueError, match="trained on other rules"):
        other_rules.act(view, np.random.default_rng(0))


def test_prior_bonus_is_the_weighted_log_probability_among_legal_moves() -> None:
    """``prior_weight`` times the network's log-softmax over the legal moves, per candidate; zeros
    without a prior."""
    plain = make_bot("dominoes", "search", network=BLOCK2P)
    agent = make_bot("dominoes", "search", network=BLOCK2P, prior_weight=2.5)
    game = LineGame(LineConfig(variant="block"), np.random.default_rng(8))
    checked = 0
    while not game.is_terminal:
        view = game.view(game.current)
        candidates, prior = agent.candidates(view)
        plain_candidates, plain_prior = plain.candidates(view)
        assert plain_candidates == candidates and not plain_prior.any()
        if len(candidates) > 1:
            logits = agent.network.logits(view)[game.legal_actions()].astype(float)
            log_probs = dict(zip(game.legal_actions(), logits - np.log(np.exp(logits).sum()), strict=True))
            assert prior == pytest.approx([2.5 * log_probs[a] for a in candidates], abs=1e-9)
            checked += 1
        game.apply(candidates[0])
    assert checked >= 3


TEAMS = {"variant": "block", "num_players": 4, "teams": True}


@pytest.mark.parametrize("options", [{"variant": "block"}, TEAMS], ids=["2p", "teams"])
def test_an_overwhelming_prior_plays_the_networks_move(options: dict) -> None:
    """A prior weight far above any round margin leaves the search the network's own choice: the
    bonus is in the move's score, for decisions solved from the position and rolled out alike."""
    network = str(baseline_path("BlockTeams4p")) if options is TEAMS else BLOCK2P
    agent = make_bot("dominoes", "search", budget=8, network=network, rollout="greedy", prior_weight=1e6)
    game = LineGame(LineConfig(**options), np.random.default_rng(9))
    rng = np.random.default_rng(0)
    while not game.is_terminal:
        view = game.view(game.current)
        expected = agent.network.act(view, rng)
        assert agent.act(view, rng) == expected
        game.apply(expected)


def test_leaf_values_are_the_critics_margin_for_the_searching_side() -> None:
    """With ``leaf_plies=0`` a position where the searching side moves is scored by the critic of
    that seat's own view; the other side's move is played out first."""
    agent = make_bot("dominoes", "search", network=BLOCK2P, leaf_plies=0, exact_tiles=0)
    game = LineGame(LineConfig(variant="block"), np.random.default_rng(3))
    world = sample_world(game.view(game.current), np.random.default_rng(4))
    side = world.config.side_of(world.current)
    expected = agent.network.value(world.view(world.current))
    assert agent.play_out(world.clone(), side, np.random.default_rng(0)) == pytest.approx(expected)
    other = 1 - side  # the other side must wait for one move: then its own seat's view is scored
    after = world.clone()
    after.apply(agent.network.act(after.view(after.current), np.random.default_rng(0)))
    expected = agent.network.value(after.view(after.current))
    assert agent.play_out(world.clone(), other, np.random.default_rng(0)) == pytest.approx(expected)


def test_guided_search_beats_random_on_duplicate_deals() -> None:
    """Strength check (not timed): at a tiny budget over 30 duplicate deals, the guided search's
    margin interval lies above an even game."""
    agents = [AgentSpec("guided", "search", {"budget": 4, "network": BLOCK2P, "exact_tiles": 0}),
              AgentSpec("random", "random")]
    result = evaluate(GameSetup("dominoes", {"variant": "block"}), agents, 30, seed=11)
    guided = next(row for row in result.summary if row["agent"] == "guided")
    assert guided["margin"][1] > 0, guided


TEXAS42 = str(baseline_path("Texas42"))
TEXAS_GUIDED = [
    {"budget": 4, "network": TEXAS42, "exact_tiles": 0},  # network rollouts and simulated bids
    {"budget": 4, "network": TEXAS42, "top_moves": 2, "bidding": "network"},
    {"budget": 4, "network": TEXAS42, "rollout": "heuristic", "leaf_plies": 3, "bidding": "heuristic"},
]


def play_texas42_hand(agent, seed: int) -> None:
    """``agent`` on seats 0 and 2, the heuristic on 1 and 3, for one hand: each of the agent's moves
    legal and the same from a copied generator. (A network that passes every opening bid, as an
    earlier shipped one did, would on all four seats with ``bidding="network"`` have the hand dealt
    again forever; the heuristic team always lets the hand start.)"""
    game = Texas42Game(Texas42Config(), np.random.default_rng(seed))
    heuristic = make_bot("texas42", "heuristic")
    rng = np.random.default_rng(seed + 100)
    while not game.is_terminal:
        view = game.view(game.current_player)
        if view.seat % 2:
            game.apply(heuristic.act(view, rng))
            continue
        replay = copy.deepcopy(rng)
        action = agent.act(view, rng)
        assert type(action) is int and game.legal_mask() >> action & 1
        assert agent.act(view, replay) == action
        game.apply(action)


@pytest.mark.parametrize("kwargs", TEXAS_GUIDED, ids=options_id)
def test_texas42_guided_search_plays_legal_moves_reproducibly(kwargs: dict) -> None:
    play_texas42_hand(make_bot("texas42", "search", **kwargs), seed=3)


@pytest.mark.parametrize("kwargs", [{"top_moves": 1}, {"rollout": "heuristic", "prior_weight": 1e6}],
                         ids=["top_moves=1", "overwhelming_prior"])
def test_texas42_guided_search_told_to_plays_the_networks_move(kwargs: dict) -> None:
    """``top_moves=1`` leaves the network's most probable move as the only candidate in play and
    trump calls; an overwhelming ``prior_weight`` outweighs every searched mean, as in the line games;
    with ``bidding="network"`` the auction is the network's too."""
    agent = make_bot("texas42", "search", budget=4, network=TEXAS42, bidding="network", **kwargs)
    heuristic = make_bot("texas42", "heuristic")  # on seats 1 and 3: somebody bids (see above)
    for seed in range(2):
        game = Texas42Game(Texas42Config(), np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        while not game.is_terminal:
            view = game.view(game.current_player)
            if view.seat % 2:
                game.apply(heuristic.act(view, rng))
                continue
            expected = agent.network.act(view, rng)
            if game.phase == DECLARE:  # the search calls trumps only: the network's favourite trump
                logits = agent.network.logits(view)
                expected = max(range(TRUMP, TRUMP_DOUBLES + 1), key=lambda a: logits[a])
            assert agent.act(view, rng) == expected
            game.apply(expected)


def test_texas42_leaf_values_are_the_critics_marks_for_the_searching_team() -> None:
    agent = make_bot("texas42", "search", network=TEXAS42, leaf_plies=0, exact_tiles=0)
    heuristic = make_bot("texas42", "heuristic")
    game = Texas42Game(Texas42Config(), np.random.default_rng(5))
    rng = np.random.default_rng(0)
    while game.phase != PLAY_PHASE:
        game.apply(heuristic.act(game.view(game.current_player), rng))
    world = sample_world(game.view(game.current_player), np.random.default_rng(4))
    seat = world.current_player
    expected = agent.network.value(world.view(seat))
    assert agent.evaluate(world.clone(), seat, rng) == pytest.approx(expected)
    after = world.clone()  # the other team waits one move, then its own seat's view is scored
    after.apply(agent.network.act(after.view(seat), rng))
    expected = agent.network.value(after.view(after.current_player))
    assert agent.evaluate(world.clone(), (seat + 1) % 4, rng) == pytest.approx(expected)


def test_texas42_guided_search_refuses_bad_values() -> None:
    with pytest.raises(ValueError, match="bidding='network' needs network=<checkpoint path>"):
        make_bot("texas42", "search", bidding="network")
    with pytest.raises(ValueError, match="need network=<checkpoint path>"):
        make_bot("texas42", "search", leaf_plies=2)
    with pytest.raises(ValueError, match="trained on 'dominoes', not 'texas42'"):
        make_bot("texas42", "search", network=BLOCK2P)
    with pytest.raises(ValueError, match=r"rollout must be one of \('heuristic', 'network'\)"):
        make_bot("texas42", "search", network=TEXAS42, rollout="greedy")


def test_texas42_guided_search_beats_random_on_duplicate_deals() -> None:
    agents = [AgentSpec("guided", "search", {"budget": 2, "network": TEXAS42, "exact_tiles": 0}),
              AgentSpec("random", "random")]
    result = evaluate(GameSetup("texas42", {}), agents, 12, seed=11)
    guided = next(row for row in result.summary if row["agent"] == "guided")
    assert guided["margin"][1] > 0, guided
