"""
# All Fives (Muggins) and Fives and Threes

| Import             | `from domino_env import fives_v0`                                  |
|--------------------|--------------------------------------------------------------------|
| Actions            | Discrete                                                           |
| Parallel API       | No                                                                 |
| Manual Control     | No                                                                 |
| Agents             | `agents= ['player_0', 'player_1']` (2 to 4 players)                |
| Agents             | 2, 3 or 4                                                          |
| Action Shape       | Discrete(114) All Fives, Discrete(58) Fives and Threes             |
| Action Values      | Discrete(114); Discrete(58)                                        |
| Observation Shape  | (331,) All Fives 2p, (245,) Fives and Threes 2p (grows with seats) |
| Observation Values | [0, 1]                                                             |

The Fives games of RULES-new-games.md sections 2 and 4 (docs/rules_fives.md), chosen by `variant`:

- **All Fives** (`variant="all_fives"`, Muggins): a Draw game on a double-six set whose first double is
  a **spinner** built on from four sides (W, E, N, S); a play scores at once when the open ends add
  up to a multiple of five, and the hand's end scores the opponents' pips rounded to five. Presets
  `standard` (Pagat) and `classic`, and every option on its own: `teams`, `hand_size`, `spinner`,
  `draw_policy`, `draw_reserve`, `lead_rule`, `next_leader`, `double_count`, `hand_rounding`,
  `blocked_scoring`, `score_unit`, `target_score` (100), `target_check`.
- **Fives and Threes** (`variant="fives_and_threes"`): a Block game (no stock, no spinner) scoring the
  count's fives plus its threes (15 scores 8), a chip-out bonus (`chip_out_bonus`), first to
  `target_score` 61 (`"exact_61"`: a score passing 61 is not counted).

Two, three or four players; four play in teams (seats 0+2 against 1+3) by default. An episode is
the whole match (`episode="match"`, the default) or one hand (`episode="hand"`); `open_hands` shows
every hand. `reset(seed=..., options={"deal": {"hands": [["5-5", "6-4"], ...], "stock": [...],
"leader": 0}})` sets up an exact first hand (All Fives draws the stock from the front).

### Observation Space

A dict: `"observation"`, a float32 vector from the encoder named by `observation_encoder`
(`"default"`: `domino_env.encoders.fives.DefaultFivesEncoder`, every slot in its slot table: own
hand, the centre's and each arm's tiles and who played them, the spinner and its covered sides,
the open ends one-hot per end, the count, hand sizes, stock and out-of-play counts, draws, the ends
at each pass, passes in a row, who acts and who led, scores, seat and team; all relative to the
observing seat; `"history"`: the hand's moves as padded tokens), and `"action_mask"`.

### Legal Actions Mask

`observation["action_mask"]`, int8 of length `num_actions`: 1 for each legal action of the seat to
act. Every other seat, and every seat once the episode is over, sees all zeros.

### Action Space

All Fives: action `4*t + e` places tile `t` (canonical index `0-0, 0-1, ..., 6-6`) on end `e`
(0 = W, 1 = E, 2 = N, 3 = S; the lead uses `e = 0`), 112 draws, 113 passes. Fives and Threes:
`2*t + s` (0 = left, 1 = right), 56 draws (never legal), 57 passes (a knock).
`env.unwrapped.action_to_text(a)` gives `"play 3-5 east"`, `"draw"`, `"pass"`; `action_from_text`
reads them back.

### Rewards

Points are scored during play (the count) and at the end of a hand, so rewards come at any step
that scores. Let `p_k` be the points side `k` (a player, or a team) scored on this step and `K`
the number of sides.

- `reward="zero_sum"` (default): seat `i` on side `k` gets `p_k - (sum_j p_j - p_k) / (K - 1)`,
  so rewards sum to 0 at every step.
- `reward="points"`: seat `i` gets `p_k`, its side's points (partners alike).
- `reward="win_loss"`: only when the episode ends, the same zero-sum formula applied to `w_k = 1`
  for the side(s) with the highest total and 0 for the others (all tied: 0 to all).

With `illegal_action="penalize"` an illegal move ends the episode with `-illegal_penalty` for the
offender and 0 for the others; `"raise"` (the default of `raw_env()`; `env()` defaults to
`"penalize"`) raises `IllegalActionError` naming the move and the legal moves.

Every info holds `"hand_points"` (the last finished hand's points, by seat, partners equal) and
`"scores"` (match totals by seat); zeros until a hand ends.

### Version History

* v0: Initial release
"""

from __future__ import annotations

import numpy as np

from domino_env.encoders.base import get_encoder
from domino_env.envs.base import DominoAECEnv
from domino_env.games import FIVES
from domino_env.rules.fives import FivesGame


class raw_env(DominoAECEnv):
    """All Fives / Fives and Threes as a PettingZoo AEC environment (no wrappers; see ``env()``)."""

    metadata = {**DominoAECEnv.metadata, "name": "fives_v0"}

    def __init__(
        self,
        variant: str = "all_fives",
        num_players: int = 2,
        teams: bool | None = None,
        preset: str = "standard",
        episode: str = "match",
        target_score: int | str | None = "preset",
        hand_size: int | None = None,
        spinner: str | None = None,
        draw_policy: str | None = None,
        draw_reserve: int | None = None,
        lead_rule: str | None = None,
        next_leader: str | None = None,
        double_count: str | None = None,
        hand_rounding: str | None = None,
        blocked_scoring: str | None = None,
        score_unit: str | None = None,
        target_check: str | None = None,
        chip_out_bonus: int | None = None,
        exact_target: bool | None = None,
        open_hands: bool = False,
        reward: str = "zero_sum",
        observation_encoder: str = "default",
        illegal_action: str = "raise",
        illegal_penalty: float = 1.0,
        render_mode: str | None = None,
    ):
        self.config = FIVES.config(
            episode=episode, reward=reward, variant=variant, num_players=num_players, teams=teams,
            preset=preset, target_score=target_score, hand_size=hand_size, spinner=spinner,
            draw_policy=draw_policy, draw_reserve=draw_reserve, lead_rule=lead_rule, next_leader=next_leader,
            double_count=double_count, hand_rounding=hand_rounding, blocked_scoring=blocked_scoring,
            score_unit=score_unit, target_check=target_check, chip_out_bonus=chip_out_bonus,
            exact_target=exact_target, open_hands=open_hands,
        )
        self.reward_mode = reward
        self.encoder = get_encoder("fives", observation_encoder)
        self._sides = FIVES.sides(self.config)
        self._first_seat = [self._sides.index(k) for k in range(self.config.num_sides)]
        self._scores: list[int] = []  # the scores after the last step that scored
        self._hands_reported = 0
        super().__init__(
            num_players=num_players,
            num_actions=self.config.num_actions,
            observation_space=self.encoder.space(self.config),
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            render_mode=render_mode,
        )

    def _new_game(self, rng: np.random.Generator, options: dict | None) -> FivesGame:
        """Other ``options`` keys are ignored, as PettingZoo's API test expects of a reset."""
        self._scores = [0] * self.config.num_players
        self._hands_reported = -1  # infos with zeros at the reset
        return FivesGame(self.config, rng, deal=(options or {}).get("deal"))

    def _observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """The view's ``legal_mask`` is the seat's legal moves when it is to act, else 0."""
        return self.encoder.encode_with_mask(self.game.view(seat), self.num_actions)

    def _apply(self, action: int) -> list[float] | None:
        game = self.game
        game.apply(action)
        scores = game.scores
        if self.reward_mode == "win_loss":
            if not game.is_terminal:
                return None
            top = max(scores)
            return self._side_rewards([float(scores[s] == top) for s in self._first_seat])
        if scores == self._scores:  # most steps score nothing
            return None
        # A side's points this step: the rise of its first seat's score (partners' scores are equal).
        side_points = [float(scores[s] - self._scores[s]) for s in self._first_seat]
        self._scores = list(scores)
        return self._side_rewards(side_points)

    def _infos(self) -> list[dict] | None:
        """The last finished hand's points and the scores; ``None`` while no hand has ended since."""
        game = self.game
        if len(game.results) == self._hands_reported:
            return None
        self._hands_reported = len(game.results)
        n = self.config.num_players
        points = list(game.results[-1].points) if game.results else [0] * n
        scores = list(game.scores) if game.results else [0] * n
        return [{"hand_points": list(points), "scores": list(scores)} for _ in range(n)]
