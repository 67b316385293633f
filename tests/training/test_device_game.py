"""The trainer's view of a game (``rollout.DeviceGame``) is the same from the numpy and the torch engines.

Both engines get the same deals through their ``dealer`` hook and the same actions; every batch the
trainer reads (seat, observation, mask, rewards, done) and the other seats' hands it feeds a
centralized critic must agree, so a run may switch ``game.backend`` without changing what it learns from.
"""

import numpy as np
import pytest
import torch

from domino_env.games import get_game
from domino_env.vector import sample_legal
from domino_env_training.rollout import DeviceGame

# Options whose every draw within an episode is a deal (the dealer's): a first leader by the highest
# double, not at random, and Texas 42 games to 7 marks, whose shaker rotates after the first (given at
# reset). A new episode's first Texas 42 shaker comes from each engine's own generator, so a Texas 42
# game is compared until its first episode ends.
CASES = {
    "block 4p teams": ("dominoes", {"variant": "block", "num_players": 4, "teams": True,
                                    "preset": "boardpan"}),
    "draw 3p boardpan match": ("dominoes", {"variant": "draw", "num_players": 3, "preset": "boardpan",
                                           "episode": "match", "target_score": 30}),
    "texas42 to 7 marks": ("texas42", {"episode": "game"}),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_numpy_and_torch_engines_feed_the_trainer_the_same(case):
    game, options = case
    record = get_game(game)
    rules = record.config(**options)
    num_envs, tiles = 24, record.num_tiles(rules)

    def dealer() -> object:
        """Fresh streams of deals, one per game: each game's deals do not depend on which other games
        an engine asks for in the same call."""
        streams = [np.random.default_rng((3, g)) for g in range(num_envs)]
        return lambda games: np.stack([streams[g].permutation(tiles) for g in games])

    numpy_engine = record.vector_class(rules)(num_envs, seed=0, dealer=dealer(), **options)
    reference = DeviceGame(numpy_engine, torch.device("cpu"))
    first = {"shakers": np.zeros(num_envs, np.int64)} if game == "texas42" else {}
    ref_batch = reference.reset(**first)
    torch_engine = record.torch_class(rules)(num_envs, seed=0, dealer=dealer(), **options)
    candidate = DeviceGame(torch_engine, torch.device("cpu"))
    batch = candidate.reset(**first)
    want_done = torch.zeros(num_envs, dtype=torch.bool)
    rng = np.random.default_rng(5)
    live = torch.ones(num_envs, dtype=torch.bool)  # still in its first episode
    compared = 0
    for step in range(120):
        for name, want, got in zip(ref_batch._fields, ref_batch, batch, strict=True):
            if name in ("rewards", "done"):  # the step's results: every game that was live
                assert torch.equal(want[live | want_done], got[live | want_done]), f"step {step}: {name}"
            else:
                assert torch.equal(want[live], got[live]), f"step {step}: {name} differs"
        hands = reference.hidden_hands(ref_batch.seat, tiles)[live]
        assert torch.equal(hands, candidate.hidden_hands(batch.seat, tiles)[live]), f"step {step}: hands"
        compared += int(live.sum())
        actions = torch.as_tensor(sample_legal(ref_batch.mask.numpy(), rng))
        own = torch.as_tensor(sample_legal(batch.mask.numpy(), rng))  # games past their first episode
        ref_batch, batch = reference.step(actions), candidate.step(torch.where(live, actions, own))
        want_done = ref_batch.done & live
        if game == "texas42":
            live &= ~ref_batch.done
    assert compared >= 1000
