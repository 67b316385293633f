"""BenchMARL's MAPPO on Block (two players) through ``DominoTask``, no glue: BenchMARL's own
experiment, algorithm, model and its default YAML configs, a few settings changed.

    .venv-benchmarl/bin/python scripts/benchmarl_mappo.py --iterations 30
    .venv-benchmarl/bin/python scripts/benchmarl_mappo.py --task TEXAS42 --iterations 200

One policy plays both seats (BenchMARL's ``share_policy_params``), a centralized critic reads the
full-information ``state``. Self-play rewards sum to 0, so BenchMARL's ``episode_reward`` logs (its
progress bar, its CSV under ``--save-folder``) stay near 0 however well it plays; progress shows in
the line this script prints after each BenchMARL evaluation: the deterministic policy against
``random`` on duplicate deals. The run ends with the score against ``random`` and the scripted bot
(``domino_env.integrations.scoring``). BenchMARL pins torchrl: its own venv,
``scripts/ci_benchmarl.sh`` (the ``benchmarl`` extra).
"""

from __future__ import annotations

import argparse
import tempfile

import numpy as np
import torch
from benchmarl.algorithms import MappoConfig
from benchmarl.experiment import Experiment, ExperimentConfig
from benchmarl.experiment.callback import Callback
from benchmarl.models.mlp import MlpConfig
from tensordict import TensorDict
from torchrl.envs.utils import ExplorationType, set_exploration_type

from domino_env.bots.batched import BatchedPolicy
from domino_env.evaluation.tasks import Task as BenchmarkTask
from domino_env.integrations.benchmarl import DominoTask
from domino_env.integrations.scoring import score_policy, scores_text

GROUP = "agents"


def batched_policy(experiment: Experiment) -> BatchedPolicy:
    """The experiment's policy, deterministic, as a batched policy ``(obs, mask, rng) -> actions``
    on compact observations (what ``score_policy`` seats): each row is asked as the group's first
    seat, the other seats given the same row (the policy is shared, so they do not matter)."""
    n_agents = len(experiment.group_map[GROUP])

    @torch.no_grad()
    def policy(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
        rows = torch.as_tensor(obs, dtype=torch.float32)[:, None].expand(-1, n_agents, -1)
        legal = torch.as_tensor(np.asarray(mask, bool))[:, None].expand(-1, n_agents, -1)
        shape = [len(obs), n_agents]
        observation = TensorDict({"observation": rows}, shape)  # the wrapper nests the dict's other key
        group = TensorDict({"observation": observation, "action_mask": legal}, shape)
        td = TensorDict({GROUP: group}, [len(obs)])
        with set_exploration_type(ExplorationType.DETERMINISTIC):
            return experiment.policy(td)[GROUP, "action"][:, 0].numpy()

    return policy


class ScoreAgainstRandom(Callback):
    """After each BenchMARL evaluation, print the policy's margin against ``random``."""

    def __init__(self, task: BenchmarkTask, num_deals: int):
        super().__init__()
        self.task, self.num_deals = task, num_deals

    def on_evaluation_end(self, rollouts: list) -> None:
        scores = score_policy(batched_policy(self.experiment), self.task.game, self.task.options,
                              num_deals=self.num_deals, opponents=("random",))
        (m, low, high) = scores["random"]["margin"]
        print(f"iteration {self.experiment.n_iters_performed}: margin against random {m:+.2f} "
              f"[{low:+.2f}, {high:+.2f}] over {self.num_deals} deals", flush=True)


def build(task: str = "BLOCK2P", iterations: int = 30, frames: int = 4000, evaluate_every: int = 10,
          seed: int = 0, save_folder: str | None = None) -> Experiment:
    """A MAPPO experiment on ``task`` (a ``DominoTask`` member), ``iterations`` batches of
    ``frames`` steps, BenchMARL's evaluation (and the score against random) every ``evaluate_every``."""
    domino_task = DominoTask[task].get_task({"observation_encoder": "compact"})  # what score_policy encodes
    config = ExperimentConfig.get_from_yaml()
    config.max_n_iters = iterations
    config.max_n_frames = None
    config.on_policy_collected_frames_per_batch = frames
    config.on_policy_n_envs_per_worker = 20
    config.on_policy_n_minibatch_iters = 4
    config.on_policy_minibatch_size = 1000
    config.lr = 3e-4
    config.gamma = 1.0  # one round per episode
    config.evaluation_interval = frames * evaluate_every
    config.evaluation_episodes = 4
    config.render = False
    config.loggers = ["csv"]
    config.create_json = False
    config.save_folder = save_folder or tempfile.mkdtemp(prefix="benchmarl_")
    return Experiment(
        task=domino_task,
        algorithm_config=MappoConfig.get_from_yaml(),
        model_config=MlpConfig.get_from_yaml(),
        critic_model_config=MlpConfig.get_from_yaml(),
        seed=seed,
        config=config,
        callbacks=[ScoreAgainstRandom(DominoTask[task].benchmark, num_deals=50)],
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="BLOCK2P", choices=[t.name for t in DominoTask])
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--frames", type=int, default=4000, help="steps collected per iteration")
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals of the final score")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save-folder", help="BenchMARL's logs and checkpoints; default: a temporary folder")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # a small network: more threads only contend, ten times slower on two cores
    experiment = build(args.task, args.iterations, args.frames, seed=args.seed, save_folder=args.save_folder)
    experiment.run()
    task = DominoTask[args.task].benchmark
    scores = score_policy(batched_policy(experiment), task.game, task.options, num_deals=args.deals)
    print(scores_text(scores, task.game))


if __name__ == "__main__":
    main()
