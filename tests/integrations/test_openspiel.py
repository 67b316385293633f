"""Every registered game as an OpenSpiel game: OpenSpiel's own checks, its RL loop and its IS-MCTS.

Skipped without ``pyspiel`` (``pip install -e .[openspiel]``), except the check that the core
package never imports it.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from domino_env.games import available_games, get_game

EXAMPLES = [(name, i) for name in available_games() for i in range(len(get_game(name).examples))]


def test_the_core_package_never_imports_pyspiel() -> None:
    code = (
        "import sys, domino_env, domino_env.games, domino_env.evaluation, domino_env.search.beliefs\n"
        "import domino_env.integrations\n"
        "from domino_env.bots.base import make_bot\n"
        "for name in domino_env.games.available_games():\n"
        "    domino_env.games.get_game(name).raw_env(); make_bot(name, 'random')\n"
        "assert 'pyspiel' not in sys.modules and 'open_spiel' not in sys.modules, 'pyspiel imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.fixture(scope="module")
def openspiel():
    pytest.importorskip("pyspiel")
    from domino_env.integrations import openspiel

    return openspiel


@pytest.mark.parametrize(("name", "index"), EXAMPLES)
def test_random_sim_test_passes_on_every_example(openspiel, name: str, index: int) -> None:
    """OpenSpiel's own consistency checks, serialization round trips included."""
    import pyspiel

    params = openspiel.parameters(name, **get_game(name).examples[index])
    game = pyspiel.load_game(openspiel.short_name(name), params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", available_games())
def test_games_and_states_serialize_and_pickle_at_every_step(openspiel, name: str) -> None:
    """``serialize_game_and_state`` and pickle round trips from the deal's first chance node to the end."""
    import pickle

    import pyspiel

    game = pyspiel.load_game(openspiel.short_name(name), openspiel.parameters(name, open_hands=True))
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    state, rng = game.new_initial_state(), np.random.default_rng(3)
    while True:
        _game, restored = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
        for copy in (restored, pickle.loads(pickle.dumps(state))):
            assert str(copy) == str(state)
            assert (copy.history(), copy.returns()) == (state.history(), state.returns())
            assert copy.is_terminal() or copy.legal_actions() == state.legal_actions()
        if state.is_terminal():
            break
        chance = state.is_chance_node()
        actions = [a for a, _p in state.chance_outcomes()] if chance else state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])


def test_every_registered_game_is_an_openspiel_game(openspiel) -> None:
    import pyspiel

    registered = set(pyspiel.registered_names())
    assert {openspiel.short_name(name) for name in available_games()} <= registered


def test_parameters_are_the_config_fields_with_none_mapped(openspiel) -> None:
    import pyspiel

    game = pyspiel.load_game("python_domino_env_dominoes", {"variant": "draw", "preset": "boardpan"})
    params = game.get_parameters()
    assert params["hand_size"] == -1 and params["draw_policy"] == ""  # None: the preset's value
    config = openspiel.config_of(get_game("dominoes"), params)
    assert (config.hand_size, config.draw_policy, config.target_score) == (7, "when_stuck", None)
    assert openspiel.parameters("texas42", forced_bid=True)["all_pass"] == "forced"
    with pytest.raises(ValueError, match="unknown dominoes parameter"):
        openspiel.config_of(get_game("dominoes"), {"episode": "match"})
    with pytest.raises(ValueError, match="variant must be one of"):
        pyspiel.load_game("python_domino_env_dominoes", {"variant": "chess"})


def _deal_to_play(state, rng: np.random.Generator):
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    return state


def test_the_deal_is_dealt_tile_by_tile_and_the_engine_plays_it(openspiel) -> None:
    import pyspiel

    game = pyspiel.load_game("python_domino_env_dominoes")  # Block, 2 players, 7 tiles each, leader by lot
    state = game.new_initial_state()
    chance_nodes = 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        state.apply_action(outcomes[0][0])
        chance_nodes += 1
    assert chance_nodes == 2 * 7 + 1
    engine = state._engine
    assert [sorted(engine.tiles.names(h)) for h in engine.hands] == [
        sorted(engine.tiles.name(t) for t in range(0, 7)), sorted(engine.tiles.name(t) for t in range(7, 14))
    ]
    assert state.current_player() == 0 and state.legal_actions() == engine.legal_actions()


def test_whole_hands_are_dealt_in_one_chance_node_each(openspiel) -> None:
    import pyspiel

    params = {**openspiel.parameters("dominoes", max_pips=3, hand_size=3), "deal_whole_hands": True}
    game = pyspiel.load_game("python_domino_env_dominoes", params)
    state, sizes = game.new_initial_state(), []
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        sizes.append(len(outcomes))
        state.apply_action(outcomes[-1][0])
    assert sizes == [120, 35, 2]  # C(10, 3) hands, C(7, 3) hands, the lot for the leader
    # the last outcome is the top-ranked hand of what is left: tiles 7-9, then tiles 4-6
    assert [[t for t in range(10) if h >> t & 1] for h in state._engine.hands] == [[7, 8, 9], [4, 5, 6]]
    assert game.max_chance_outcomes() == 120
    assert openspiel.hand_of_rank(openspiel.hand_rank([6, 2, 9]), 3) == [2, 6, 9]
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_both_dealing_modes_give_the_same_values(openspiel) -> None:
    """One chance node per hand or per tile: the same game, so the same value of any policy (and
    the exact tree of ``domino_env.evaluation.exploitability`` agrees)."""
    import pyspiel
    from open_spiel.python import policy as openspiel_policy
    from open_spiel.python.algorithms import expected_game_score

    from domino_env.evaluation.exploitability import build_tree, expected_value, policy_table, small_game

    def lowest_first(view):
        legal = [a for a in range(view.config.num_actions) if view.legal_mask >> a & 1]
        weights = np.array([2.0 ** -i for i in range(len(legal))])
        return dict(zip(legal, weights / weights.sum(), strict=True))

    class ViewPolicy(openspiel_policy.Policy):
        def action_probabilities(self, state, player_id=None):
            return lowest_first(state._engine.view(state.current_player()))

    params = openspiel.parameters("dominoes", max_pips=2, hand_size=2, preset="boardpan")
    values = []
    for whole in (False, True):
        game = pyspiel.load_game("python_domino_env_dominoes", {**params, "deal_whole_hands": whole})
        policy = ViewPolicy(game, [0, 1])
        values.append(expected_game_score.policy_value(game.new_initial_state(), [policy, policy])[0])
    tree = build_tree(small_game("block", max_pips=2, hand_size=2, preset="boardpan"))
    exact = expected_value(tree, policy_table(tree, lowest_first))
    assert values[0] == pytest.approx(values[1], abs=1e-12) and values[1] == pytest.approx(exact, abs=1e-12)
    assert exact != 0.0  # the policy and the leader rule favour a seat: a value worth comparing


def test_a_texas42_reshake_deals_again_by_chance_inside_the_episode(openspiel) -> None:
    import pyspiel

    state = _deal_to_play(pyspiel.load_game("python_domino_env_texas42").new_initial_state(),
                          np.random.default_rng(0))
    shaker = state._engine.shaker
    for _ in range(4):
        state.apply_action(0)  # pass
    assert state.is_chance_node() and len(state.chance_outcomes()) == 28
    _deal_to_play(state, np.random.default_rng(1))
    assert state._engine.shaker == (shaker + 1) % 4 and not state.is_terminal()


def test_returns_are_the_zero_sum_reward_per_side(openspiel) -> None:
    import pyspiel

    rng = np.random.default_rng(2)
    for name in available_games():
        game = pyspiel.load_game(openspiel.short_name(name))
        state = _deal_to_play(game.new_initial_state(), rng)
        while not state.is_terminal():
            state.apply_action(int(rng.choice(state.legal_actions())))
            _deal_to_play(state, rng)
        returns = state.returns()
        assert sum(returns) == pytest.approx(0.0) and any(returns)
        sides = get_game(name).sides(openspiel.config_of(get_game(name), game.get_parameters()))
        assert all(returns[a] == returns[b] for a in range(len(sides)) for b in range(len(sides))
                   if sides[a] == sides[b])


@pytest.mark.parametrize("name", available_games())
def test_rl_environment_runs_a_learning_agent(openspiel, name: str) -> None:
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import tabular_qlearner

    env = rl_environment.Environment(openspiel.short_name(name),
                                     chance_event_sampler=rl_environment.ChanceEventSampler(seed=0))
    num_actions = env.action_spec()["num_actions"]
    agents = [tabular_qlearner.QLearner(player_id=p, num_actions=num_actions) for p in range(env.num_players)]
    for _ in range(3):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            action = agents[player].step(time_step).action
            assert action in time_step.observations["legal_actions"][player]
            time_step = env.step([action])
        for agent in agents:
            agent.step(time_step)
        assert sum(time_step.rewards) == pytest.approx(0.0)


@pytest.mark.parametrize("name", available_games())
def test_ismcts_plays_with_resample_from_infostate(openspiel, name: str) -> None:
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(openspiel.short_name(name))
    rng = np.random.default_rng(3)
    state = _deal_to_play(game.new_initial_state(), rng)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 20, random_state=np.random.RandomState(0))
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(4):
        if state.is_terminal():
            break
        player = state.current_player()
        samples = [state.resample_from_infostate(player, sampler) for _ in range(3)]
        for sample in samples:
            assert sample.information_state_string(player) == state.information_state_string(player)
            assert sample.legal_actions() == state.legal_actions()
        assert len({str(sample) for sample in samples}) > 1  # the hidden hands are drawn anew
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        _deal_to_play(state, rng)


def test_the_evaluation_harness_seats_an_openspiel_bot(openspiel) -> None:
    from domino_env.evaluation import AgentError, AgentSpec, GameSetup, evaluate

    setup = GameSetup("dominoes", {"variant": "block", "max_pips": 3, "hand_size": 3})
    agents = [AgentSpec("ismcts", "openspiel", {"simulations": 5}), AgentSpec("random", "random")]
    first = evaluate(setup, agents, num_deals=1, seed=0)
    assert len(first.records) == 2 and first.records == evaluate(setup, agents, num_deals=1, seed=0).records
    with pytest.raises(ValueError, match="one round or hand"):
        evaluate(GameSetup("dominoes", {"target_score": 5}, match=True), agents, num_deals=1)
    with pytest.raises(AgentError, match="bot must be 'ismcts' or 'module:function'"):
        evaluate(setup, [AgentSpec("x", "openspiel", {"bot": "alphazero"}), "random"], num_deals=1)


def test_mexican_train_plays_a_later_round_and_refuses_a_random_one(openspiel) -> None:
    import pyspiel

    game = pyspiel.load_game(openspiel.short_name("mexican_train"),
                             openspiel.parameters("mexican_train", num_players=3, first_round=5))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert "engine 8-8" in str(state)
    with pytest.raises(ValueError, match="first_round must be an integer"):
        openspiel.parameters("mexican_train", first_round="random")
