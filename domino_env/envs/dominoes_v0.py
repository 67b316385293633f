"""
# Dominoes (Block and Draw line games)

| Import             | `from domino_env import dominoes_v0`                       |
|--------------------|------------------------------------------------------------|
| Actions            | Discrete                                                   |
| Parallel API       | No                                                         |
| Manual Control     | No                                                         |
| Agents             | `agents= ['player_0', 'player_1']` (2 to 4 players)        |
| Agents             | 2, 3 or 4                                                  |
| Action Shape       | Discrete(2T + 2): 58 with double-six                       |
| Action Values      | Discrete(58)                                               |
| Observation Shape  | (132,) Block 2p, (174,) 3p, (216,) 4p with double-six      |
| Observation Values | [0, 1]                                                     |

The line games of docs/rules.md section 2: **Block** (undealt tiles are out of play) and **Draw** (they
form a stock), for 2, 3 or 4 players or two teams of two (seats 0+2 against 1+3), with the
`pagat` and `boardpan` presets and every option on its own (`hand_size`, `draw_reserve`,
`draw_policy`, `first_leader`, `scoring`, `target_score`, `max_pips` 2-12, `open_hands`).
An episode is one round (`episode="round"`, the default) or a whole match to `target_score`
(`episode="match"`; 1 to 1000 points; the lead passes to the left and the set is reshuffled every
round). Every option is checked whatever the episode: a bad `target_score` is refused even in a
one-round episode, which then ignores it.

`reset(seed=..., options={"deal": {"hands": [["6-6", "0-4"], ...], "stock": ["1-2", ...],
"leader": 0}})` sets up an exact first round: any hand sizes, the stock drawn from the front (Draw
only), and the preset's leader rule when `leader` is omitted.

### Observation Space

A dict: `"observation"`, a float32 vector from the encoder named by `observation_encoder`
(`"default"`: `domino_env.encoders.line.DefaultLineEncoder`, every slot documented by its slot
table: own hand, the line by who played each tile, open ends one-hot, hand sizes, stock and
out-of-play counts, draws, the open ends at each pass, passes in a row, who acts and who led,
scores, seat and team; all relative to the observing seat), and `"action_mask"`.

### Legal Actions Mask

`observation["action_mask"]`, int8 of length `2T + 2`: 1 for each legal action of the seat to act.
Every other seat, and every seat once the episode is over, sees all zeros.

### Action Space

With `T` tiles in the set (28 for double-six): action `2*t + s` places tile `t` (canonical index
`0-0, 0-1, ..., 6-6`) on side `s` (0 = left end, 1 = right end; the opening tile always uses side 0),
`2T` draws a tile, `2T + 1` passes. `env.unwrapped.action_to_text(a)` gives `"play 6-5 left"`,
`"draw"`, `"pass"`, and `action_from_text` reads them back.

### Rewards

Rewards are given to every seat at the step that ends a round (zero at all other steps). Let `p_k`
be the points side `k` (a player, or a team) scored in the round and `K` the number of sides.

- `reward="zero_sum"` (default): seat `i` on side `k` gets `p_k - (sum_j p_j - p_k) / (K - 1)`,
  so rewards sum to 0 at every step (two sides: `+p` to the winner, `-p` to the loser).
- `reward="points"`: seat `i` gets `p_k`, its side's raw points (partners alike).
- `reward="win_loss"`: only when the episode ends, the same zero-sum formula applied to `w_k = 1`
  for the side that won the episode (the round winner, or the side that reached the target) and 0
  otherwise; a round nobody wins gives 0 to all.

With `illegal_action="penalize"` an illegal move ends the episode with `-illegal_penalty` (a
finite number >= 0, default 1) for the offender and 0 for the others; `"raise"` (the default of
`raw_env()`; `env()` defaults to `"penalize"`) raises `IllegalActionError` (a `ValueError`) naming
the move and the legal moves, and leaves the state untouched.

When a round ends, every agent's info holds `"round_points"` (indexed by seat, partners equal) and
`"scores"` (match totals, same layout), until that agent's next move (as rewards accumulate).
After `reset()` every info holds the same two keys with zeros (nothing scored yet), so libraries
that size their info fields from the reset infos (TorchRL's `PettingZooWrapper`) pass results on.

### Version History

* v0: Initial release (0.1.0)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from domino_env.encoders.base import Encoder, get_encoder
from domino_env.envs.base import DominoAECEnv, RoundResultEnv
from domino_env.games import DOMINOES
from domino_env.rules.line import LineGame


class raw_env(RoundResultEnv):
    """Block / Draw dominoes as a PettingZoo AEC environment (no wrappers; see ``env()``)."""

    metadata = {**DominoAECEnv.metadata, "name": "dominoes_v0"}

    def __init__(
        self,
        variant: str = "block",
        num_players: int = 2,
        teams: bool = False,
        preset: str = "pagat",
        episode: str = "round",
        target_score: int | str | None = "preset",
        hand_size: int | None = None,
        draw_reserve: int | None = None,
        draw_policy: str | None = None,
        first_leader: str | None = None,
        scoring: str | None = None,
        max_pips: int = 6,
        open_hands: bool = False,
        reward: str = "zero_sum",
        observation_encoder: str = "default",
        illegal_action: str = "raise",
        illegal_penalty: float = 1.0,
        render_mode: str | None = None,
    ):
        self.config = DOMINOES.config(
            episode=episode, reward=reward,
            variant=variant, num_players=num_players, teams=teams, preset=preset, max_pips=max_pips,
            hand_size=hand_size, draw_reserve=draw_reserve, draw_policy=draw_policy,
            first_leader=first_leader, scoring=scoring, open_hands=open_hands, target_score=target_score,
        )
        self.episode = episode
        self.reward_mode = reward
        self.encoder = get_encoder("dominoes", observation_encoder)
        # encode_with_mask(game.view(seat)), or the encoder's cheaper way to the same arrays (_observe)
        self._observer_of: Encoder | None = None
        self._observer: Callable[[LineGame, int], tuple[np.ndarray, np.ndarray]] | None = None
        self._sides = [self.config.side_of(s) for s in range(num_players)]
        super().__init__(
            num_players=num_players,
            num_actions=self.config.num_actions,
            observation_space=self.encoder.space(self.config),
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            render_mode=render_mode,
        )

    def _new_game(self, rng: np.random.Generator, options: dict | None) -> LineGame:
        # Other keys are ignored, as PettingZoo's api_test expects of reset options.
        options = options or {}
        self._reset_round_infos()
        return LineGame(self.config, rng, deal=options.get("deal"))

    def _observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """The view's ``legal_mask`` is the seat's legal moves when it is to act, else 0."""
        if self._observer_of is not self.encoder:  # built on first use, and again if encoder is replaced
            self._observer_of, self._observer = self.encoder, self.encoder.observer(self.num_actions)
        return self._observer(self.game, seat)

    def _round_side_points(self) -> list[float]:
        """A side's points are any of its seats' (partners score alike)."""
        side_points = [0.0] * self.config.num_sides
        for seat, points in enumerate(self.game.results[-1].round_points):
            side_points[self._sides[seat]] = points
        return side_points

    def _episode_wins(self) -> list[float]:
        """The episode is the round (its winners), or the match (the side that reached the target)."""
        wins = [0.0] * self.config.num_sides
        if self.episode == "round":
            winners = self.game.results[-1].winners
        else:
            target = self.config.target_score
            winners = tuple(s for s, score in enumerate(self.game.scores) if score >= target)
        for seat in winners:
            wins[self._sides[seat]] = 1.0
        return wins
