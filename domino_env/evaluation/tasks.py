"""Named benchmark tasks: fixed rules, episode and evaluation protocol, and their environment ids.

A task is what a published result names: ``BlockTeams4p`` means partnership Block (pagat rules, one
round per episode), scored on duplicate deals ``0 .. num_deals - 1`` of the task's evaluation seed,
every lineup of the agents on the sides (so each agent holds every seat and team with the same
tiles), margin per round against the mean of the other sides with a normal 95% interval over deals,
win share and cross-play share with percentile-bootstrap intervals over deals, and Elo ratings by
one Bradley-Terry fit (``domino_env.evaluation``). docs/leaderboard.md describes the protocol and
holds the ladder of baselines.

**Evaluation seeds.** Every task's seed lies in ``EVALUATION_SEEDS`` (``[2**63, 2**64)``), a range
the trainer refuses (``domino_env_training.config``: ``seed`` < ``EVALUATION_SEEDS.start``). The harness
seeds deal ``d`` with ``SeedSequence([task.seed, d])``; every generator the trainer makes is seeded
from entropy that starts with the training seed (``[seed, iteration]``, ``[seed, "imitation"]``,
``[seed, deal]`` in its harness) or from one 32-bit word drawn from those, so no training game is
ever dealt from a benchmark deal's stream.

Importing this module registers each task's PettingZoo AEC id (``pettingzoo.make("aec",
task.pettingzoo_id)``); ``import domino_env.wrappers`` registers the Gymnasium ids
(``gymnasium.make(task.gymnasium_id)``: one learning seat or team against ``random``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from domino_env.envs.base import register_aec
from domino_env.evaluation.harness import GameSetup
from domino_env.games import get_game

EVALUATION_SEEDS = range(2**63, 2**64)
"""Seeds reserved for benchmark evaluation; training configs may not use them."""

METRIC = ("margin per round or hand (own side's score minus the mean of the other sides'), averaged "
          "within each deal first")
INTERVALS = ("95%: margin normal over deals; win share, cross-play share and Elo percentile "
             "bootstrap over deals")
SEAT_ROTATION = ("every lineup of the agents on the scoring sides, each deal replayed once per lineup "
                 "(duplicate deals: each agent holds every seat and team with the same tiles)")
VERSUS = ("a candidate's share against each opponent: its cross-play share at one table with all the "
          "opponents; in games of three sides or more, from the candidate and that opponent alone at "
          "the table on the same deals (a third agent decides too many of their comparisons: in "
          "three-player 42 `random` wins most auctions and the two others, defending, tie)")


@dataclass(frozen=True)
class Task:
    """One benchmark task: rules, episode, evaluation protocol and environment ids."""

    name: str
    title: str
    game: str
    options: dict[str, Any]
    """rule options (``get_game(game).config(**options)``), without ``episode``"""
    match: bool
    """``True``: an episode is a whole match (line games, to ``target_score``) or game (42)"""
    seed: int
    """the evaluation seed (in ``EVALUATION_SEEDS``); deals ``0 .. num_deals - 1`` of it"""
    num_deals: int
    """duplicate deals of the full protocol"""
    references: tuple[str, ...] = field(default=())
    """the fixed opponents a candidate is scored against (``domino-ladder``); empty: random and
    the game's default bot"""
    search_budgets: tuple[int, int] | None = (1, 4)
    """the two budgets of the ``search`` baselines in the ladder (small: search is by far the ladder's
    slowest agent); ``None``: no search on the task's ladder, where even budget 1 would take hours at
    the task's protocol"""

    @property
    def setup(self) -> GameSetup:
        return GameSetup(self.game, dict(self.options), match=self.match)

    @property
    def config(self) -> Any:
        """The rules config of one episode of the task (what a seat's ``view.config`` is)."""
        return self.setup.config

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """Keyword options of the PettingZoo env (and of ``SingleAgentEnv``) for this task."""
        record = get_game(self.game)
        return {**self.options, "episode": record.episodes[self.match]}

    @property
    def pettingzoo_id(self) -> str:
        return f"domino_env/{self.name}-v0"

    @property
    def gymnasium_id(self) -> str:
        return f"domino_env/{self.name}-v0"

    @property
    def gymnasium_kwargs(self) -> dict[str, Any]:
        """``SingleAgentEnv`` keywords: the game, its options, and ``team`` for four-player partnerships
        (the wrapper's teams are seats ``s`` and ``s + 2``: Texas 88's learner is one seat of its team)."""
        return {"game": self.game, **self.env_kwargs, **({"team": True} if self.partnership else {})}

    @property
    def opponents(self) -> tuple[str, ...]:
        return self.references or ("random", get_game(self.game).default_bot)

    @property
    def partnership(self) -> bool:
        return self.setup.num_sides == 2 and self.setup.num_players == 4

    def baselines(self) -> list[str]:
        """The ladder's agents: random, the scripted bot, search at two budgets (unless the task has
        none), the trained policy (when shipped), as ``label=bot:options`` specs."""
        specs = ["random", get_game(self.game).default_bot]
        if self.search_budgets is not None:
            specs += [f"search{budget}=search:budget={budget}" for budget in self.search_budgets]
        if baseline_path(self.name).is_file():
            specs.append(f"trained=trained:task={self.name}")
        return specs


_BASE = 2**63
TASKS: dict[str, Task] = {task.name: task for task in (
    Task("Block2p", "Block, 2 players, pagat rules, one round", "dominoes",
         {"variant": "block", "num_players": 2, "preset": "pagat"}, False, _BASE + 1, 2000,
         search_budgets=(4, 16)),
    Task("Draw2p", "Draw, 2 players, pagat rules, one round", "dominoes",
         {"variant": "draw", "num_players": 2, "preset": "pagat"}, False, _BASE + 2, 2000,
         search_budgets=(4, 16)),
    Task("Draw3pBoardpan", "Draw, 3 players, boardpan rules, one round", "dominoes",
         {"variant": "draw", "num_players": 3, "preset": "boardpan"}, False, _BASE + 3, 1000),
    Task("BlockTeams4p", "Block, 4 players in two teams, pagat rules, one round", "dominoes",
         {"variant": "block", "num_players": 4, "teams": True, "preset": "pagat"}, False, _BASE + 4, 2000,
         search_budgets=(2, 8)),
    Task("DrawTeams4pBoardpanMatch", "Draw, 4 players in two teams, boardpan rules, a match to 100",
         "dominoes", {"variant": "draw", "num_players": 4, "teams": True, "preset": "boardpan",
                      "target_score": 100}, True, _BASE + 5, 300),
    Task("Texas42", "Texas 42, standard rules, one hand", "texas42", {"preset": "standard"}, False,
         _BASE + 6, 1000),
    Task("Texas42N42PA", "Texas 42, N42PA tournament rules, one hand", "texas42", {"preset": "n42pa"},
         False, _BASE + 7, 1000),
    Task("Texas42ThreePlayer", "Three-player 42 (the bid winner alone against the other two), one hand",
         "texas42", {"preset": "standard", "num_players": 3}, False, _BASE + 8, 1000),
    Task("Texas88", "Texas 88, six players in two teams with a kitty, one hand", "texas42",
         {"preset": "texas88"}, False, _BASE + 9, 1000),
    # A match of All Fives to 100 lasts about three hands (points come during play), yet with greedy at the
    # table it costs two to three times a DrawTeams4pBoardpanMatch match: the same 300 deals, a few minutes.
    # (All Fives is the fives game's default variant, so its tasks name no variant option.)
    Task("AllFives2p", "All Fives, 2 players, standard rules, a match to 100", "fives",
         {"num_players": 2, "preset": "standard", "target_score": 100}, True, _BASE + 10, 300),
    Task("AllFivesTeams4p", "All Fives, 4 players in two teams, standard rules, a match to 100", "fives",
         {"num_players": 4, "teams": True, "preset": "standard", "target_score": 100}, True, _BASE + 11, 300),
    # One hand of Fives and Threes costs about a two-player line round: 2000 deals, like Block2p.
    Task("FivesAndThrees2p", "Fives and Threes, 2 players, one hand", "fives",
         {"variant": "fives_and_threes", "num_players": 2}, False, _BASE + 12, 2000),
    # Four sides put 36 lineups of a candidate and its two opponents on every deal (two sides: 6), six
    # sides 540: 300 one-round deals, 30 thirteen-round matches and 20 six-player deals each play about
    # 11,000-14,000 rounds per candidate, as many as DrawTeams4pBoardpanMatch's 300 matches. No search on
    # their ladders: `search:budget=1` took 0.9 s a round at four players (one deal's 14 rounds against
    # greedy, 12.7 s), and the four-player ladder would seat two searches in each of 7,200 rounds.
    Task("MexicanTrain4p", "Mexican Train, 4 players, standard rules, one round (engine 12-12)",
         "mexican_train", {"num_players": 4, "preset": "standard"}, False, _BASE + 13, 300,
         search_budgets=None),
    Task("MexicanTrain4pMatch", "Mexican Train, 4 players, standard rules, the 13-round match",
         "mexican_train", {"num_players": 4, "preset": "standard"}, True, _BASE + 14, 30,
         search_budgets=None),
    Task("MexicanTrain6p", "Mexican Train, 6 players, standard rules, one round (engine 12-12)",
         "mexican_train", {"num_players": 6, "preset": "standard"}, False, _BASE + 15, 20,
         search_budgets=None),
)}


def available_tasks() -> list[str]:
    return list(TASKS)


def get_task(name: str) -> Task:
    """The task called ``name``; an unknown name raises ``ValueError`` listing the tasks."""
    try:
        return TASKS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown benchmark task {name!r}; tasks: {available_tasks()}") from None


def task_of_config(config: Any) -> Task:
    """The task whose episode rules are ``config`` (a seat view's ``config``)."""
    for task in TASKS.values():
        if type(task.config) is type(config) and task.config == config:
            return task
    raise ValueError(f"no benchmark task plays these rules ({config}); tasks: {available_tasks()} "
                     "(name one: trained:task=...)")


BASELINE_DIR = "baselines"
"""Package folder (``domino_env/baselines``) of the shipped trained policies, ``<task>.pt``, each with
``<task>.json``: the training config and the recorded evaluation."""


def baseline_path(task: str) -> Path:
    """Where the trained baseline policy of ``task`` is shipped (it may be absent)."""
    return Path(str(resources.files("domino_env") / BASELINE_DIR / f"{get_task(task).name}.pt"))


for _task in TASKS.values():
    if _task.pettingzoo_id == get_game(_task.game).env_id:  # the game's own id (Texas42-v0), whose
        importlib.import_module(get_game(_task.game).env_module)  # defaults are the task's (tested)
        continue
    register_aec(_task.pettingzoo_id, get_game(_task.game).env_module + ":env", kwargs=_task.env_kwargs)
