"""The lockstep evaluation (``evaluate(..., lockstep=True)``) plays the games of the one-at-a-time
harness: the same records, hence the same report, for agents with and without ``act_batch``."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.bots.base import act_batch, make_bot
from domino_env.evaluation import AgentError, GameSetup, evaluate, harness

CASES = [
    (GameSetup("dominoes", {"variant": "block"}), ["trained", "greedy", "random"], 30),
    (GameSetup("dominoes", {"variant": "draw", "num_players": 3}), ["greedy", "random"], 12),
    (GameSetup("dominoes", {"variant": "block", "num_players": 4, "teams": True}),
     ["greedy", "search:budget=8"], 4),
    (GameSetup("texas42"), ["trained", "heuristic"], 6),
]


@pytest.mark.parametrize(("setup", "agents", "deals"), CASES, ids=lambda c: getattr(c, "game", None))
def test_lockstep_plays_the_games_of_one_at_a_time(setup: GameSetup, agents: list[str], deals: int,
                                                   monkeypatch) -> None:
    monkeypatch.setattr(harness, "LOCKSTEP_DEALS", 4)  # several chunks, the last one short
    one_by_one = evaluate(setup, agents, deals, seed=3)
    lockstep = evaluate(setup, agents, deals, seed=3, lockstep=True)
    assert lockstep.records == one_by_one.records
    assert lockstep.to_markdown() == one_by_one.to_markdown()


def test_lockstep_shares_the_deals_among_the_workers_and_plays_the_same_games() -> None:
    assert harness.lockstep_chunk_deals(300, 2) == 150  # not 256 + 44: both workers busy
    assert harness.lockstep_chunk_deals(2000, 2) == harness.LOCKSTEP_DEALS
    assert harness.lockstep_chunk_deals(7, 1) == 7 and harness.lockstep_chunk_deals(1, 4) == 1
    setup, agents = GameSetup("dominoes", {"variant": "block"}), ["greedy", "random"]
    one_by_one = evaluate(setup, agents, 9, seed=5)
    assert evaluate(setup, agents, 9, seed=5, workers=2, lockstep=True).records == one_by_one.records


def test_checkpoint_act_batch_plays_its_act() -> None:
    trained = make_bot("dominoes", "trained", task="Block2p")
    setup = GameSetup("dominoes", {"variant": "block"})
    views, rng = [], np.random.default_rng(0)
    for deal in range(20):
        engine = setup.new_engine(np.random.default_rng(deal))
        for _ in range(int(rng.integers(0, 6))):
            engine.apply(trained.act(engine.view(engine.current_player), rng))
        if not engine.is_terminal:
            views.append(engine.view(engine.current_player))
    rngs = [np.random.default_rng(0) for _ in views]
    assert act_batch(trained, views, rngs) == [trained.act(v, r) for v, r in zip(views, rngs, strict=True)]


def test_lockstep_names_the_agent_that_fails() -> None:
    setup = GameSetup("dominoes", {"variant": "block", "num_players": 3})
    with pytest.raises(AgentError, match="agent 'net'.*trained on other rules"):
        evaluate(setup, ["net=checkpoint:path=domino_env/baselines/Block2p.pt", "greedy"], 2, lockstep=True)
