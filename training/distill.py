"""Distillation: a trained policy learns the moves of a stronger, slower teacher, such as the search
(the ``domino-distill`` command).

    domino-distill --checkpoint domino_env/baselines/Block2p.pt \\
        --teacher "search:budget=100,network=domino_env/baselines/Block2p.pt,prior_weight=1" \\
        --games 15000 --seed 1001 --workers 2 --out runs/block_2p_distilled.pt

The second half of expert iteration (Anthony et al. 2017): the search improves on the network, and the
network learns the search's moves, so that one forward pass plays what took a search. Positions come
from games on the rules engines (the search reads seat views, which the batched engines do not build),
played by the teacher in a share of the games (``--teacher-share``) and by the network in the rest, so
that the positions its own play leads to are labelled too (DAgger, Ross et al. 2011). Every decision
with two legal moves or more is labelled with the teacher's move, or, with ``--temperature T`` and a
search teacher, with the softmax of its scores divided by ``T`` points: a move nearly as good as the
best keeps nearly as much weight. ``--soften mean`` takes each candidate's mean margin over the sampled
worlds plus its prior bonus; ``--soften move`` the score the search's own move maximizes (``scores``:
the same for the line games; in the Fives games the gain over ``greedy``'s move less one standard error,
so the targets peak on the search's move). ``--save-labels`` writes the labelled decisions with both
scores, and ``--load-labels`` fine-tunes on such files (several are joined: the rounds of DAgger
aggregated) instead of playing, so that the fine-tune's settings can be compared on one collection. The
actor is then fine-tuned on the targets: cross-entropy on them plus ``--kl-coef`` times the KL
divergence from the policy it started as; the critic is kept. Game ``g`` is dealt from ``(seed, g)`` and
its moves drawn from ``(seed, g, k)``, so the labels do not depend on ``--workers``; games are played in
lockstep, the teacher answering many games' decisions in one batch (the search's batched rollouts),
which does not change them either.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from domino_env.bots.base import act_batch
from domino_env.evaluation import AgentSpec, GameSetup, build_agents
from domino_env_training.agent import PolicyAgent
from domino_env_training.checkpoint_bot import CheckpointAgent
from domino_env_training.checkpoints import CheckpointError, load_checkpoint, save_checkpoint

LOCKSTEP_GAMES = 64  # games labelled together (``label_games``): the teacher's batch of decisions


SOFTENED = ("mean", "move")  # what ``--temperature`` softens (module docstring)


@dataclass
class Labels:
    """The labelled decisions: the student's observation and legal mask, the teacher's move, the
    teacher's scores of the legal moves under each rule of ``SOFTENED`` (-inf elsewhere; a teacher
    without scores gives 0 to its move alone), and whether the student's own greedy move was the
    teacher's."""

    obs: np.ndarray  # (n, obs_dim) float32
    mask: np.ndarray  # (n, num_actions) bool
    actions: np.ndarray  # (n,) int64
    mean_scores: np.ndarray  # (n, num_actions) float32
    move_scores: np.ndarray  # (n, num_actions) float32
    agrees: np.ndarray  # (n,) bool

    FIELDS = ("obs", "mask", "actions", "mean_scores", "move_scores", "agrees")

    @staticmethod
    def join(parts: list[Labels]) -> Labels:
        return Labels(*(np.concatenate([getattr(p, f) for p in parts]) for f in Labels.FIELDS))

    def targets(self, temperature: float | None = None, soften: str = "mean") -> np.ndarray:
        """What the student learns: one-hot on the teacher's move, or the softmax of the ``soften``
        scores over ``temperature`` points."""
        if temperature is None:
            return np.eye(self.mask.shape[1], dtype=np.float32)[self.actions]
        if soften not in SOFTENED:
            raise ValueError(f"soften must be one of {SOFTENED}, got {soften!r}")
        scores = self.mean_scores if soften == "mean" else self.move_scores
        weights = np.exp((scores - scores.max(axis=1, keepdims=True)) / temperature)
        return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)

    def save(self, path: str | Path, about: dict[str, Any]) -> None:
        """Write the labels and ``about`` (how they were collected) to one ``.npz`` file."""
        np.savez_compressed(path, about=json.dumps(about), **{f: getattr(self, f) for f in self.FIELDS})

    @staticmethod
    def load(path: str | Path) -> tuple[Labels, dict[str, Any]]:
        """The labels and their ``about`` written by ``save``."""
        with np.load(path) as data:
            missing = [f for f in (*Labels.FIELDS, "about") if f not in data]
            if missing:
                raise ValueError(f"{path} is not a labels file of domino-distill --save-labels: "
                                 f"it lacks {', '.join(missing)}")
            return Labels(*(data[f] for f in Labels.FIELDS)), json.loads(str(data["about"]))

    @staticmethod
    def load_many(paths: list[str | Path]) -> tuple[Labels, dict[str, Any]]:
        """Several collections as one (DAgger's aggregate of rounds): one file's ``about`` as it is,
        several files' as ``collections``, with their teachers and whether all were scored."""
        loaded = [Labels.load(path) for path in paths]
        if len(loaded) == 1:
            return loaded[0]
        abouts = [about for _labels, about in loaded]
        return Labels.join([labels for labels, _about in loaded]), {
            "teacher": ", ".join(dict.fromkeys(a["teacher"] for a in abouts)),
            "scored": all(a["scored"] for a in abouts), "collections": abouts}


def game_setup(checkpoint: str | Path) -> GameSetup:
    """The rules the checkpoint was trained on, as the trainer's harness plays them."""
    game = PolicyAgent.from_checkpoint(checkpoint).config.game
    return GameSetup(game.name, dict(game.options))


def scored(expert: Any, views: list[Any], rngs: list[np.random.Generator], num_actions: int,
           ) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The teacher's move at each view and its scores of the legal moves under each rule of
    ``SOFTENED`` (``Labels``); a teacher without scores (``searched``) gives 0 to its move alone."""
    if not hasattr(expert, "searched"):
        moves = act_batch(expert, views, rngs)
        only = np.full((len(views), num_actions), -np.inf, np.float32)
        only[np.arange(len(views)), moves] = 0.0
        return moves, only, only.copy()
    moves = []
    means, rules = (np.full((len(views), num_actions), -np.inf, np.float32) for _ in SOFTENED)
    for row, decision in enumerate(expert.searched(views, rngs)):
        if isinstance(decision, int):
            moves.append(decision)
            means[row, decision] = rules[row, decision] = 0.0
            continue
        means[row, decision.candidates] = decision.mean_scores()
        rules[row, decision.candidates] = expert.scores(decision)
        moves.append(expert.best(decision))
    return moves, means, rules


def label_games(checkpoint: str | Path, teacher: str, games: range, seed: int,
                teacher_share: float, progress: bool = False) -> Labels:
    """Play ``games`` (module docstring) and label every decision of two moves or more. Up to
    ``LOCKSTEP_GAMES`` games are played together, the teacher answering all their decisions in one
    batch (``act_batch``, the search's batched rollouts); a game's labels are those it gets alone.
    ``progress`` shows the games labelled so far (a search's collection takes hours)."""
    setup = game_setup(checkpoint)
    student = CheckpointAgent(setup.game, checkpoint)
    (expert,) = build_agents(setup, [AgentSpec.parse(teacher)])
    num_actions = student.policy.num_actions
    obs, masks, actions, means, rules, agrees = [], [], [], [], [], []
    bar = tqdm(total=len(games), desc=f"games {games.start}-{games.stop - 1}", unit="game", mininterval=30,
               disable=not progress)
    for start in range(games.start, games.stop, LOCKSTEP_GAMES):
        chunk = range(start, min(start + LOCKSTEP_GAMES, games.stop))
        engines = {g: setup.new_engine(np.random.default_rng([seed, g])) for g in chunk}
        teacher_plays = {g: np.random.default_rng([seed, g, 1 << 30]).random() < teacher_share for g in chunk}
        move_number = dict.fromkeys(chunk, 0)
        labelled: list[tuple[int, int, np.ndarray, np.ndarray, int, np.ndarray, np.ndarray, bool]] = []
        while live := [g for g in chunk if not engines[g].is_terminal]:
            views = [engines[g].view(engines[g].current_player) for g in live]
            encoded = [student.encode(view) for view in views]
            moves = [int(np.argmax(mask)) for _obs, mask in encoded]  # forced moves
            deciding = [i for i, (_obs, mask) in enumerate(encoded) if mask.sum() >= 2]
            if deciding:
                asked = [views[i] for i in deciding]
                rngs = [np.random.default_rng([seed, live[i], move_number[live[i]]]) for i in deciding]
                labels, mean_scores, move_scores = scored(expert, asked, rngs, num_actions)
                own = student.most_probable([encoded[i] for i in deciding])  # the student's greedy move
                for i, label, mean, rule, mine in zip(deciding, labels, mean_scores, move_scores, own,
                                                      strict=True):
                    g = live[i]
                    labelled.append((g, move_number[g], *encoded[i], label, mean, rule, label == mine))
                    moves[i] = label if teacher_plays[g] else mine
            for g, move in zip(live, moves, strict=True):
                engines[g].apply(move)
                move_number[g] += 1
        bar.update(len(chunk))
        for _g, _k, observation, mask, label, mean, rule, agree in sorted(labelled, key=lambda r: r[:2]):
            obs.append(observation)
            masks.append(mask.astype(bool))
            actions.append(label)
            means.append(mean)
            rules.append(rule)
            agrees.append(agree)
    bar.close()
    width = student.policy.model.obs_dim
    return Labels(np.array(obs, np.float32).reshape(-1, width),
                  np.array(masks, bool).reshape(-1, num_actions), np.array(actions, np.int64),
                  np.array(means, np.float32).reshape(-1, num_actions),
                  np.array(rules, np.float32).reshape(-1, num_actions), np.array(agrees, bool))


def collect(checkpoint: str | Path, teacher: str, games: int, seed: int, teacher_share: float,
            workers: int = 1, progress: bool = False) -> Labels:
    """``label_games`` of games ``0..games-1``, shared by ``workers`` processes in contiguous blocks
    (``progress``: each shows its block's)."""
    bounds = np.linspace(0, games, workers + 1).astype(int)
    blocks = [range(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    if workers == 1:
        return label_games(checkpoint, teacher, blocks[0], seed, teacher_share, progress)
    with ProcessPoolExecutor(workers, multiprocessing.get_context("spawn")) as pool:
        parts = [pool.submit(label_games, checkpoint, teacher, block, seed, teacher_share, progress)
                 for block in blocks]
        return Labels.join([p.result() for p in parts])


def fine_tune(agent: PolicyAgent, labels: Labels, targets: np.ndarray, lr: float, epochs: int, kl_coef: float,
              seed: int, batch_size: int = 512, held_out: float = 0.1) -> dict[str, float]:
    """Fine-tune ``agent``'s actor toward ``targets`` at ``labels``' decisions (module docstring);
    returns the teacher's agreement with the greedy policy on the held-out share of the labels,
    before and after, and the share of held-out moves that changed."""
    generator = torch.Generator().manual_seed(seed)
    obs, mask = torch.from_numpy(labels.obs), torch.from_numpy(labels.mask)
    actions, targets = torch.from_numpy(labels.actions), torch.from_numpy(targets)
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


def distill(checkpoint: str | Path, out: str | Path, labels: Labels, about: dict[str, Any], lr: float = 3e-4,
            epochs: int = 8, kl_coef: float = 0.0, temperature: float | None = None, soften: str = "mean",
            seed: int = 0) -> dict[str, float]:
    """Fine-tune the checkpoint on ``labels`` and write it with the new actor to ``out``; how the labels
    were collected (``about``), the fine-tune's settings and its figures are recorded in it under
    ``distillation``."""
    if len(labels.actions) == 0:
        raise ValueError(f"no decision of two moves or more to learn from (labels of {about})")
    agent = PolicyAgent.from_checkpoint(checkpoint)
    if labels.obs.shape[1] != agent.model.obs_dim or labels.mask.shape[1] != agent.num_actions:
        raise ValueError(f"the labels hold observations of width {labels.obs.shape[1]} and "
                         f"{labels.mask.shape[1]} actions; {checkpoint} takes {agent.model.obs_dim} "
                         f"and {agent.num_actions}: they come from another game or encoder")
    figures = fine_tune(agent, labels, labels.targets(temperature, soften), lr, epochs, kl_coef, seed)
    figures |= {"labels": len(labels.actions), "student_agreement": float(labels.agrees.mean())}
    payload = load_checkpoint(checkpoint)
    payload["model"] = agent.model.state_dict()
    payload["distillation"] = {"from": str(checkpoint), **about, "lr": lr, "epochs": epochs,
                               "kl_coef": kl_coef, "temperature": temperature, "soften": soften,
                               "fine_tune_seed": seed, **figures}
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


def _labels_file(text: str) -> str:
    if not text.endswith(".npz"):
        raise argparse.ArgumentTypeError(f"must name a .npz file, got {text}")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", required=True, help="the policy to fine-tune (a .pt checkpoint)")
    parser.add_argument("--teacher",
                        help='an agent spec, as domino-evaluate takes it: "search:budget=100,network=..."')
    parser.add_argument("--games", type=_positive, help="games to play and label")
    parser.add_argument("--seed", type=int, default=0, help="the games' seed, and the fine-tune's")
    parser.add_argument("--teacher-share", type=_bounded(0.0, 1.0), default=0.5,
                        help="share of the games the teacher plays (the network plays the rest)")
    parser.add_argument("--lr", type=_bounded(1e-8, 1.0), default=3e-4)
    parser.add_argument("--epochs", type=_positive, default=8)
    parser.add_argument("--kl-coef", type=_bounded(0.0, 1e6), default=0.0)
    parser.add_argument("--temperature", type=_bounded(1e-3, 1e6), default=None,
                        help="learn the softmax of the search's scores at this temperature (points), "
                             "not its move alone")
    parser.add_argument("--soften", choices=SOFTENED, default="mean",
                        help="the scores --temperature softens: each move's mean margin, or the score the "
                             "search's own move maximizes")
    parser.add_argument("--workers", type=_positive, default=1)
    parser.add_argument("--save-labels", type=_labels_file, help="also write the labels to this .npz file")
    parser.add_argument("--load-labels", type=_labels_file, nargs="+",
                        help="fine-tune on labels written by --save-labels (one file or several, joined) "
                             "instead of playing games")
    parser.add_argument("--out", required=True, help="where to write the fine-tuned checkpoint")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars while labelling")
    args = parser.parse_args(argv)
    if args.load_labels is not None and (args.teacher, args.games, args.save_labels) != (None, None, None):
        parser.error("--load-labels fine-tunes on saved labels: "
                     "it takes no --teacher, --games or --save-labels")
    if args.load_labels is None and None in (args.teacher, args.games):
        parser.error("give --teacher and --games to label games, or --load-labels to fine-tune on saved ones")
    torch.set_num_threads(1)
    try:
        if args.load_labels is not None:
            labels, about = Labels.load_many(args.load_labels)
        else:
            (expert,) = build_agents(game_setup(args.checkpoint), [AgentSpec.parse(args.teacher)])
            about = {"teacher": args.teacher, "games": args.games, "seed": args.seed,
                     "teacher_share": args.teacher_share, "scored": hasattr(expert, "searched")}
        if args.temperature is not None and not about["scored"]:  # refused before any game
            raise ValueError(f"--temperature needs a teacher with scores per move (the search), "
                             f"got {about['teacher']!r}")
        if args.load_labels is None:
            labels = collect(args.checkpoint, args.teacher, args.games, args.seed, args.teacher_share,
                             args.workers, not args.no_progress)
            if args.save_labels is not None:
                labels.save(args.save_labels, about)
        figures = distill(args.checkpoint, args.out, labels, about, args.lr, args.epochs, args.kl_coef,
                          args.temperature, args.soften, args.seed)
    except (CheckpointError, ValueError, OSError) as err:
        parser.error(str(err))
    print(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items()))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
