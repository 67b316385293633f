"""The opponent pool: scripted opponents, frozen trained policies and past snapshots of the learner.

Prioritized fictitious self-play: each game draws its opponent with weight
``(opponent's running win rate against the learner) ** pfsp_power`` (plus a small floor so that no
opponent is forgotten completely), so the learner spends its games on opponents it still loses to.
With probability ``latest_prob`` the game is pure self-play instead (the learner in every seat).

Every opponent acts on the batched observation and mask alone, so a whole batch of games is
answered with one forward pass per distinct opponent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields

import numpy as np
import torch

from domino_env_training.config import PoolConfig
from domino_env_training.networks import ActorCritic
from domino_env_training.scripted import ScriptedPolicy

LATEST = -1
"""Opponent id meaning "the current learner plays every seat of this game"."""

PRIORITY_FLOOR = 0.02
"""Weight added to every opponent: a beaten opponent is still met now and then."""


@dataclass
class PoolEntry:
    """One opponent and its record against the learner (plain values: checkpoint- and JSON-safe)."""

    name: str
    kind: str  # "scripted", "frozen" or "snapshot"
    win_rate: float = 0.5  # running (EMA) share of games this opponent won against the learner
    games: int = 0
    learner_wins: int = 0
    learner_losses: int = 0
    state_dict: dict[str, torch.Tensor] | None = field(default=None, repr=False)


class OpponentPool:
    """``fixed`` maps each of ``config.scripted`` and ``config.frozen`` to its batched policy
    (``domino_env_training.scripted``, ``frozen_policy``): opponents that never change."""

    def __init__(self, config: PoolConfig, make_network: Callable[[], ActorCritic],
                 fixed: dict[str, ScriptedPolicy]):
        self.config = config
        self._make_network = make_network
        self._fixed = fixed
        self.entries = ([PoolEntry(name, "scripted") for name in config.scripted]
                        + [PoolEntry(name, "frozen") for name in config.frozen])
        self._networks: dict[str, ActorCritic] = {}

    def sampler(self, device: torch.device) -> Callable[[torch.Generator, int], torch.Tensor]:
        """``draw(generator, n)``: opponent ids for ``n`` games (``LATEST`` for pure self-play) on
        ``device``, with the weights of the pool as it stands now. A rollout draws from one sampler,
        so its games' results, booked after it (``record_results``), weigh on the next rollout."""
        latest_prob = self.config.latest_prob
        if not self.entries:
            return lambda generator, n: torch.full((n,), LATEST, device=device)
        weights = np.array([e.win_rate for e in self.entries]) ** self.config.pfsp_power + PRIORITY_FLOOR
        weights = torch.as_tensor(weights / weights.sum(), dtype=torch.float32, device=device)

        def draw(generator: torch.Generator, n: int) -> torch.Tensor:
            ids = torch.multinomial(weights, n, replacement=True, generator=generator)
            latest = torch.rand(n, generator=generator, device=device) < latest_prob
            return ids.masked_fill(latest, LATEST)

        return draw

    def act(self, ids: torch.Tensor, obs: torch.Tensor, mask: torch.Tensor, generator: torch.Generator,
            actions: torch.Tensor) -> torch.Tensor:
        """``actions`` with the rows whose ``ids`` name a pool opponent replaced by that opponent's
        move (rows with ``LATEST`` keep theirs): one batched call per opponent present, found with
        one host read of the ids present."""
        for opponent in ids.unique().tolist():
            if opponent == LATEST:
                continue
            rows = (ids == opponent).nonzero()[:, 0]
            entry = self.entries[opponent]
            if entry.kind != "snapshot":
                choice = self._fixed[entry.name](obs[rows], mask[rows], generator)
            else:
                choice = self._network(entry).act(obs[rows], mask[rows], generator=generator)
            actions = actions.index_copy(0, rows, choice)
        return actions

    def record(self, opponent: int, learner_score: float) -> None:
        """Book one finished game: ``learner_score`` is 1 (learner won), 0.5 (tie) or 0 (lost)."""
        entry, learner_score = self.entries[opponent], float(learner_score)  # plain floats: checkpoint-safe
        entry.games += 1
        entry.learner_wins += int(learner_score == 1.0)
        entry.learner_losses += int(learner_score == 0.0)
        entry.win_rate += self.config.result_ema * ((1.0 - learner_score) - entry.win_rate)

    def record_results(self, opponents: np.ndarray, learner_scores: np.ndarray) -> None:
        """Book finished games in order: ``opponents[i]`` met a learner that scored ``learner_scores[i]``."""
        for opponent, score in zip(opponents.tolist(), learner_scores.tolist(), strict=True):
            self.record(opponent, score)

    def add_snapshot(self, name: str, model: ActorCritic) -> None:
        """Freeze a copy of the learner; drop the oldest snapshot beyond ``max_snapshots``."""
        if self.config.max_snapshots == 0:
            return
        state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
        self.entries.append(PoolEntry(name, "snapshot", state_dict=state))
        snapshots = [e for e in self.entries if e.kind == "snapshot"]
        if len(snapshots) > self.config.max_snapshots:
            self.entries.remove(snapshots[0])
            self._networks.pop(snapshots[0].name, None)

    def _network(self, entry: PoolEntry) -> ActorCritic:
        if entry.name not in self._networks:
            net = self._make_network()
            net.load_state_dict(entry.state_dict)
            self._networks[entry.name] = net.eval()
        return self._networks[entry.name]

    # ----- persistence -------------------------------------------------------------------------
    def state_dict(self) -> list[dict]:
        return [asdict(e) for e in self.entries]

    def load_state_dict(self, entries: list[dict]) -> None:
        self.entries = [PoolEntry(**e) for e in entries]
        self._networks.clear()

    def summary(self) -> list[dict]:
        """The pool's results without weights (written to ``pool.json`` beside the checkpoints)."""
        keys = [f.name for f in fields(PoolEntry) if f.name != "state_dict"]
        return [{k: getattr(e, k) for k in keys} for e in self.entries]


def frozen_policy(model: ActorCritic) -> ScriptedPolicy:
    """A trained network as a fixed opponent: its most probable legal action, as the ``checkpoint``
    bot plays it in evaluation (so a best response trains against the policy the harness scores)."""
    model = model.eval()
    return lambda obs, mask, generator: model.act(obs, mask, greedy=True)
