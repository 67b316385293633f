"""Distillation: a trained policy learns the moves of a stronger, slower teacher, such as the search
(the ``domino-distill`` command).

    domino-distill --checkpoint domino_env/baselines/Block2p.pt \\
        --teacher "search:budget=100,network=domino_env/baselines/Block2p.pt,prior_weight=1" \\
        --games 15000 --seed 1001 --workers 2 --out runs/block_2p_distilled.pt

The second half of expert iteration (Anthony et al. 2017): the search improves on the network, and
the network learns the search's moves, so that one forward pass plays what took a search. Positions
come from games on the rules engines (the search reads seat views, which the batched engines do not
build), played by the teacher in a share of the games (``--teacher-share``) and by the network in the
rest, so that the positions its own play leads to are labelled too (DAgger, Ross et al. 2011). Every
decision with two legal moves or more is labelled with the teacher's move, or, with
``--temperature T`` and a search teacher, with the softmax of its scores (each candidate's mean margin
over the sampled worlds plus its prior bonus, divided by ``T`` points): a move nearly as good as the
best keeps nearly as much weight. The actor is then fine-tuned on them: cross-entropy on the targets
plus ``--kl-coef`` times the KL divergence from the policy it started as; the critic is kept. Game
``g`` is dealt from ``(seed, g)`` and its moves drawn from ``(seed, g, k)``, so the labels do not
depend on ``--workers``; games are played in lockstep, the teacher answering many games' decisions
in one batch (the search's batched rollouts), which does not change them either.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from domino_env.bots.base import act_batch
from domino_env.evaluation import AgentSpec, GameSetup, build_agents
from domino_env_training.agent import PolicyAgent
from domino_env_training.checkpoint_bot import CheckpointAgent
from domino_env_training.checkpoints import CheckpointError, load_checkpoint, save_checkpoint

LOCKSTEP_GAMES = 64  # games labelled together (``label_games``): the teacher's batch of decisions


@dataclass
class Labels:
    """The labelled decisions: the student's observation and legal mask, the teacher's move, the
    distribution the student learns (one-hot on that move, or the search's softmax), and whether
    the student's own greedy move was the teacher's."""

    obs: np.ndarray  # (n, obs_dim) float32
    mask: np.ndarray  # (n, num_actions) bool
    actions: np.ndarray  # (n,) int64
    targets: np.ndarray  # (n, num_actions) float32, rows summing to 1
    agrees: np.ndarray  # (n,) bool

    @staticmethod
    def join(parts: list[Labels]) -> Labels:
        return Labels(*(np.concatenate([getattr(p, f) for p in parts])
                        for f in ("obs", "mask", "actions", "targets", "agrees")))


def game_setup(checkpoint: str | Path) -> GameSetup:
    """The rules the checkpoint was trained on, as the trainer's harness plays them."""
    game = PolicyAgent.from_checkpoint(checkpoint).config.game
    return GameSetup(game.name, dict(game.options))


def soft_targets(expert: Any, views: list[Any], rngs: list[np.random.Generator], num_actions: int,
                 temperature: float) -> tuple[list[int], np.ndarray]:
    """The search's move at each view and the softmax of its candidates' scores over ``temperature``."""
    moves, targets = [], np.zeros((len(views), num_actions), np.float32)
    for row, decision in enumerate(expert.searched(views, rngs)):
        if isinstance(decision, int):
            moves.append(decision)
            targets[row, decision] = 1.0
            continue
        scores = decision.values.mean(axis=0) + decision.prior
        weights = np.exp((scores - scores.max()) / temperature)
        targets[row, decision.candidates] = weights / weights.sum()
        moves.append(expert.best(decision))
    return moves, targets


def label_games(checkpoint: str | Path, teacher: str, games: range, seed: int, teacher_share: float,
                temperature: float | None = None) -> Labels:
    """Play ``games`` (module docstring) and label every decision of two moves or more. Up to
    ``LOCKSTEP_GAMES`` games are played together, the teacher answering all their decisions in one
    batch (``act_batch``, the search's batched rollouts); a game's labels are those it gets alone."""
    setup = game_setup(checkpoint)
    student = CheckpointAgent(setup.game, checkpoint)
    (expert,) = build_agents(setup, [AgentSpec.parse(teacher)])
    if temperature is not None and not hasattr(expert, "searched"):
        raise ValueError(f"--temperature needs a teacher with scores per move (the search), got {teacher!r}")
    num_actions = student.policy.num_actions
    obs, masks, actions, targets, agrees = [], [], [], [], []
    for start in range(games.start, games.stop, LOCKSTEP_GAMES):
        chunk = range(start, min(start + LOCKSTEP_GAMES, games.stop))
        engines = {g: setup.new_engine(np.random.default_rng([seed, g])) for g in chunk}
        teacher_plays = {g: np.random.default_rng([seed, g, 1 << 30]).random() < teacher_share for g in chunk}
        move_number = dict.fromkeys(chunk, 0)
        labelled: list[tuple[int, int, np.ndarray, np.ndarray, int, np.ndarray, bool]] = []
        while live := [g for g in chunk if not engines[g].is_terminal]:
            views = [engines[g].view(engines[g].current_player) for g in live]
            encoded = [student.encode(view) for view in views]
            moves = [int(np.argmax(mask)) for _obs, mask in encoded]  # forced moves
            deciding = [i for i, (_obs, mask) in enumerate(encoded) if mask.sum() >= 2]
            if deciding:
                asked = [views[i] for i in deciding]
                rngs = [np.random.default_rng([seed, live[i], move_number[live[i]]]) for i in deciding]
                if temperature is None:
                    labels = act_batch(expert, asked, rngs)
                    wanted = np.eye(num_actions, dtype=np.float32)[labels]
                else:
                    labels, wanted = soft_targets(expert, asked, rngs, num_actions, temperature)
                own = student.most_probable([encoded[i] for i in deciding])  # the student's greedy move
                for i, label, target, mine in zip(deciding, labels, wanted, own, strict=True):
                    g = live[i]
                    labelled.append((g, move_number[g], *encoded[i], label, target, label == mine))
                    moves[i] = label if teacher_plays[g] else mine
            for g, move in zip(live, moves, strict=True):
                engines[g].apply(move)
                move_number[g] += 1
        for _g, _k, observation, mask, label, target, agree in sorted(labelled, key=lambda r: r[:2]):
            obs.append(observation)
            masks.append(mask.astype(bool))
            actions.append(label)
            targets.append(target)
            agrees.append(agree)
    width = student.policy.model.obs_dim
    return Labels(np.array(obs, np.float32).reshape(-1, width),
                  np.array(masks, bool).reshape(-1, num_actions), np.array(actions, np.int64),
                  np.array(targets, np.float32).reshape(-1, num_actions), np.array(agrees, bool))


def collect(checkpoint: str | Path, teacher: str, games: int, seed: int, teacher_share: float,
            workers: int = 1, temperature: float | None = None) -> Labels:
    """``label_games`` of games ``0..games-1``, shared by ``workers`` processes in contiguous blocks."""
    bounds = np.linspace(0, games, workers + 1).astype(int)
    blocks = [range(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    if workers == 1:
        return label_games(checkpoint, teacher, blocks[0], seed, teacher_share, temperature)
    with ProcessPoolExecutor(workers, multiprocessing.get_context("spawn")) as pool:
        parts = [pool.submit(label_games, checkpoint, teacher, block, seed, teacher_share, temperature)
                 for block in blocks]
        return Labels.join([p.result() for p in parts])


def fine_tune(agent: PolicyAgent, labels: Labels, lr: float, epochs: int, kl_coef: float, seed: int,
              batch_size: int = 512, held_out: float = 0.1) -> dict[str, float]:
    """Fine-tune ``agent``'s actor on ``labels`` (module docstring); returns the teacher's agreement
    with the greedy policy on the held-out share of the labels, before and after, and the share of
    held-out moves that changed."""
    generator = torch.Generator().manual_seed(seed)
    obs, mask = torch.from_numpy(labels.obs), torch.from_numpy(labels.mask)
    actions, targets = torch.from_numpy(labels.actions), torch.from_numpy(labels.targets)
    order = torch.randperm(len(actions), generator=generator)
    test, train = order[: int(held_out * len(actions))], order[int(held_out * len(actions)):]
    actor = agent.model.actor

    def log_policy(rows: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(actor(obs[rows]).masked_fill(~mask[rows], -1e9), dim=-1)

    with torch.no_grad():
        start = log_policy(torch.arange(len(actions)))
    before = start[test].argmax(-1)
    optimizer = torch.optim.Adam(actor.parameters(), lr=lr)
    for _ in range(epochs):
        shuffled = train[torch.randperm(len(train), generator=generator)]
        for i in range(0, len(shuffled), batch_size):
            rows = shuffled[i:i + batch_size]
            log_p = log_policy(rows)
            cross_entropy = -(targets[rows] * log_p).sum(-1).mean()
            kl = (start[rows].exp() * (start[rows] - log_p)).masked_fill(~mask[rows], 0).sum(-1).mean()
            loss = cross_entropy + kl_coef * kl
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        after = log_policy(test).argmax(-1)
    return {"held_out_agreement_before": float((before == actions[test]).float().mean()),
            "held_out_agreement_after": float((after == actions[test]).float().mean()),
            "held_out_changed": float((after != before).float().mean())}


def distill(checkpoint: str | Path, out: str | Path, teacher: str, games: int, seed: int,
            teacher_share: float = 0.5, lr: float = 3e-4, epochs: int = 8, kl_coef: float = 0.0,
            workers: int = 1, temperature: float | None = None) -> dict[str, float]:
    """Label, fine-tune, and write the checkpoint with the new actor to ``out``; the settings and
    figures are recorded in it under ``distillation``."""
    labels = collect(checkpoint, teacher, games, seed, teacher_share, workers, temperature)
    if len(labels.actions) == 0:
        raise ValueError(f"{games} games gave no decision of two moves or more to label")
    agent = PolicyAgent.from_checkpoint(checkpoint)
    figures = fine_tune(agent, labels, lr, epochs, kl_coef, seed)
    figures |= {"labels": len(labels.actions), "student_agreement": float(labels.agrees.mean())}
    payload = load_checkpoint(checkpoint)
    payload["model"] = agent.model.state_dict()
    payload["distillation"] = {"from": str(checkpoint), "teacher": teacher, "games": games, "seed": seed,
                               "teacher_share": teacher_share, "lr": lr, "epochs": epochs,
                               "kl_coef": kl_coef, "temperature": temperature, **figures}
    save_checkpoint(out, payload)
    return figures


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {text}")
    return value


def _bounded(low: float, high: float):
    def parse(text: str) -> float:
        value = float(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a number in [{low}, {high}], got {text}")
        return value
    return parse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", required=True, help="the policy to fine-tune (a .pt checkpoint)")
    parser.add_argument("--teacher", required=True,
                        help='an agent spec, as domino-evaluate takes it: "search:budget=100,network=..."')
    parser.add_argument("--games", type=_positive, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--teacher-share", type=_bounded(0.0, 1.0), default=0.5,
                        help="share of the games the teacher plays (the network plays the rest)")
    parser.add_argument("--lr", type=_bounded(1e-8, 1.0), default=3e-4)
    parser.add_argument("--epochs", type=_positive, default=8)
    parser.add_argument("--kl-coef", type=_bounded(0.0, 1e6), default=0.0)
    parser.add_argument("--temperature", type=_bounded(1e-3, 1e6), default=None,
                        help="learn the softmax of the search's scores at this temperature (points), "
                             "not its move alone")
    parser.add_argument("--workers", type=_positive, default=1)
    parser.add_argument("--out", required=True, help="where to write the fine-tuned checkpoint")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    try:
        build_agents(game_setup(args.checkpoint), [AgentSpec.parse(args.teacher)])  # refused before any game
        figures = distill(args.checkpoint, args.out, args.teacher, args.games, args.seed, args.teacher_share,
                          args.lr, args.epochs, args.kl_coef, args.workers, args.temperature)
    except (CheckpointError, ValueError) as err:
        parser.error(str(err))
    print(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items()))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
