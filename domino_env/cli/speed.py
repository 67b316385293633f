"""Random-play speed (throughput); each section is a named function in ``SECTIONS``.

    domino-speed                 # every section
    domino-speed --only line     # one section
    domino-speed --seconds 5     # longer runs, steadier figures

``line``: full random Block 2-player rounds through ``dominoes_v0.raw_env`` and ``env`` (observation
and mask read at every step, as an agent would), each with the lean loop and with PettingZoo's
documented loop (``documented_games``), the bare engine, and OpenSpiel's
``python_block_dominoes`` stepped with ``observation_tensor()`` at each decision. Games per second
is the comparable figure (OpenSpiel has no pass action and counts chance moves as steps).
``texas42``: random Texas 42 through ``texas42_v0.raw_env`` and ``env`` (observation and mask each
step), the bare engine, and ``raw_env`` with every option on playing whole games.
``vector``: ``VectorLineGame`` stepping 4,096 games at once (random legal actions from the masks,
the compact observation every step) for several line options, then ``VectorTexas42Game`` (standard,
and every option with whole games), each one's ratio to OpenSpiel in the same run,
and Block 2p throughput by batch size.
``encoders``: ``raw_env`` with each registered observation encoder (Block 2p, Texas 42 standard),
then the time of one ``encode`` on prebuilt views as a fraction of one ``raw_env`` agent-step with
that encoder (the measure that matters to an agent) and of one engine step, all interleaved.
Other games add a function to ``SECTIONS``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

Result = tuple[int, int, float]  # games, agent steps, seconds


def timed(play_one: Callable[[], int], seconds: float) -> Result:
    """Run ``play_one`` (returns the decisions of one game) until ``seconds`` have passed."""
    games = steps = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        steps += play_one()
        games += 1
    return games, steps, elapsed


def interleaved(
    runs: dict[str, Callable[[], int]], seconds: float, slice_s: float = 0.25
) -> dict[str, Result]:
    """Time every runner for ``seconds`` in alternating short slices.

    The machine is shared, so its load drifts; alternating slices spreads that drift evenly over
    the runners, which keeps the ratios between them honest.
    """
    totals = {name: (0, 0, 0.0) for name in runs}
    for _ in range(max(1, round(seconds / slice_s))):
        for name, play in runs.items():
            games, steps, elapsed = timed(play, slice_s)
            g, s, e = totals[name]
            totals[name] = (g + games, s + steps, e + elapsed)
    return totals


def aec_games(make_env: Callable, rng: np.random.Generator) -> Callable[[], int]:
    env = make_env()
    env.reset(seed=0)  # seeded once; later resets continue the env's generator, as training loops do

    def play_one() -> int:
        env.reset()
        steps = 0
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
            else:
                legal = obs["action_mask"].nonzero()[0]  # the mask is 1-D: no ravel (np.flatnonzero) needed
                env.step(int(legal[rng.integers(len(legal))]))
                steps += 1
        return steps

    return play_one


def documented_games(make_env: Callable, rng: np.random.Generator, choice: bool = False) -> Callable[[], int]:
    """PettingZoo's documented AEC loop as a user copies it: ``agent_iter``, ``last``, ``step``, a
    random legal action from ``legal = np.flatnonzero(mask)`` drawn as ``legal[rng.integers(len(legal))]``
    (a numpy integer goes to ``step``; ``choice=True``: ``rng.choice(legal)``), the env seeded once.
    ``aec_games`` is the leaner loop (a Python int drawn from ``mask.nonzero()[0]``)."""
    env = make_env()
    env.reset(seed=0)

    def play_one() -> int:
        env.reset()
        steps = 0
        for _agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = rng.choice(legal) if choice else legal[rng.integers(len(legal))]
                steps += 1
            env.step(action)
        return steps

    return play_one


def engine_games(rng: np.random.Generator) -> Callable[[], int]:
    from domino_env.rules.line import LineConfig, LineGame

    config = LineConfig(variant="block", num_players=2, target_score=None)

    def play_one() -> int:
        game = LineGame(config, rng)
        steps = 0
        while not game.is_terminal:
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
            steps += 1
        return steps

    return play_one


def openspiel_games(rng: np.random.Generator, name: str = "python_block_dominoes") -> Callable[[], int]:
    """Random legal play of the OpenSpiel game ``name`` (registered python games included), the
    observation tensor read at every decision."""
    import open_spiel.python.games  # noqa: F401  (registers the python games)
    import pyspiel

    game = pyspiel.load_game(name)

    def play_one() -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():  # the deal: uniform over the tiles left
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        return steps

    return play_one


def line_section(seconds: float) -> dict[str, Result]:
    from domino_env import dominoes_v0

    rng = np.random.default_rng(0)
    runs = {
        "raw_env (obs + mask each step)": aec_games(lambda: dominoes_v0.raw_env(variant="block"), rng),
        "raw_env, PettingZoo's documented loop": documented_games(dominoes_v0.raw_env, rng),
        "raw_env, documented loop, rng.choice": documented_games(dominoes_v0.raw_env, rng, choice=True),
        "env (wrapped)": aec_games(lambda: dominoes_v0.env(variant="block"), rng),
        "env, PettingZoo's documented loop": documented_games(dominoes_v0.env, rng),
        "engine only (LineGame)": engine_games(rng),
    }
    try:
        runs["OpenSpiel python_block_dominoes"] = openspiel_games(rng)
    except ImportError:
        print("open-spiel is not installed (pip install -e '.[bench]'): OpenSpiel row skipped")
    return interleaved(runs, seconds)


def texas42_section(seconds: float) -> dict[str, Result]:
    """Standard 42, one hand per episode, then every option on with whole games to 7 marks."""
    from domino_env import texas42_v0
    from domino_env.rules.texas42 import Texas42Config, Texas42Game

    rng = np.random.default_rng(0)
    every = {"nello": "low", "plunge": True, "sevens": True, "forced_bid": True, "episode": "game"}
    config = Texas42Config()

    def engine_hand() -> int:
        game, steps = Texas42Game(config, rng), 0
        while not game.is_terminal:
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
            steps += 1
        return steps

    runs = {
        "raw_env (obs + mask each step)": aec_games(texas42_v0.raw_env, rng),
        "env (wrapped)": aec_games(texas42_v0.env, rng),
        "engine only (Texas42Game)": engine_hand,
        "raw_env, every option, games": aec_games(lambda: texas42_v0.raw_env(**every), rng),
    }
    return interleaved(runs, seconds)


VECTOR_OPTIONS: dict[str, dict] = {
    "Block 2p": {},
    "Block 3p boardpan": {"num_players": 3, "preset": "boardpan"},
    "Block 4p teams": {"num_players": 4, "teams": True},
    "Draw 2p pagat": {"variant": "draw"},
    "Draw 3p boardpan": {"variant": "draw", "num_players": 3, "preset": "boardpan"},
    "Draw 4p teams boardpan": {"variant": "draw", "num_players": 4, "teams": True, "preset": "boardpan"},
    "Block 2p match to 100": {"episode": "match"},
    "Draw 2p open hands": {"variant": "draw", "open_hands": True},
    "Draw 3p double-9": {"variant": "draw", "num_players": 3, "max_pips": 9},
    "Draw 4p double-12": {"variant": "draw", "num_players": 4, "max_pips": 12},
}
VECTOR_TEXAS42_OPTIONS: dict[str, dict] = {
    "Texas 42 standard": {},
    "Texas 42 every option, games": {
        "nello": "low",
        "plunge": True,
        "sevens": True,
        "forced_bid": True,
        "episode": "game",
    },
}


def vector_run(options: dict, num_envs: int, seconds: float, game: str = "dominoes") -> Result:
    """The batched engine of ``game`` (its registry record) with random legal actions sampled from
    each step's masks."""
    from domino_env.games import get_game
    from domino_env.vector import sample_legal

    rng = np.random.default_rng(0)
    record = get_game(game)
    vec = record.vector_class(record.config(**options))(num_envs, seed=0, **options)
    batch = vec.reset()
    games = steps = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        batch = vec.step(sample_legal(batch.mask, rng))
        games += int(batch.done.sum())
        steps += num_envs
    return games, steps, elapsed


def vector_section(seconds: float) -> dict[str, Result]:
    """Batched line games (4,096 per batch) against OpenSpiel, then Block 2p by batch size."""
    batch = 4096
    results = {f"vector {name}": vector_run(opts, batch, seconds) for name, opts in VECTOR_OPTIONS.items()}
    for name, opts in VECTOR_TEXAS42_OPTIONS.items():
        results[f"vector {name}"] = vector_run(opts, batch, seconds, game="texas42")
    try:
        reference = timed(openspiel_games(np.random.default_rng(0)), seconds)
    except ImportError:
        print("open-spiel is not installed (pip install -e '.[bench]'): no ratios")
    else:
        results["OpenSpiel python_block_dominoes (1 game)"] = reference
        print(f"\nagent-steps/s against OpenSpiel python_block_dominoes, batches of {batch}:")
        for name, (_games, steps, elapsed) in list(results.items())[:-1]:
            print(f"  {name:<34} {steps / elapsed / (reference[1] / reference[2]):>8.0f}x")
    print("\nBlock 2p by batch size (games | agent-steps/s):")
    for size in (1, 16, 256, 1024, 4096, 16384, 65536):
        _games, steps, elapsed = vector_run({}, size, max(seconds / 2, 4 * 65536 / 1e6))
        print(f"  {size:>6} | {steps / elapsed:>10.0f}")
    return results


def random_views(new_game: Callable[[], object], rng: np.random.Generator, count: int) -> list:
    """Views of the seat to act along random games (built before timing, so encoders alone are timed)."""
    views: list = []
    while len(views) < count:
        game = new_game()
        while not game.is_terminal:
            views.append(game.view(game.current_player))
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
    return views


def encoders_section(seconds: float) -> dict[str, Result]:
    """Every registered encoder through ``raw_env`` (Block 2p, Texas 42 standard), and the cost of one
    ``encode`` on prebuilt views as a fraction of one ``raw_env`` agent-step with that encoder (the
    measure that matters: the compact encoder at most a third of a step) and of one engine step
    (``legal_actions`` + ``apply``). A game's rows run interleaved, so load drift hits them alike."""
    from domino_env.encoders.base import Encoder, available_encoders, get_encoder
    from domino_env.games import available_games, get_game

    rng = np.random.default_rng(0)
    games = {}
    for name in available_games():
        record = get_game(name)
        config = record.config()
        games[name] = (record.raw_env, lambda record=record, config=config: record.new_engine(config, rng))

    def encode_all(encoder: Encoder, views: list) -> Callable[[], int]:
        def play_one() -> int:
            for view in views:
                encoder.encode(view)
            return len(views)

        return play_one

    results, costs = {}, []
    for game, (make_env, new_game) in games.items():

        def engine_game(new_game: Callable = new_game) -> int:
            state, steps = new_game(), 0
            while not state.is_terminal:
                legal = state.legal_actions()
                state.apply(legal[rng.integers(len(legal))])
                steps += 1
            return steps

        views = random_views(new_game, rng, 2000)
        names = available_encoders(game)
        runs = {f"{game} engine only": engine_game}
        for name in names:
            env = aec_games(lambda m=make_env, n=name: m(observation_encoder=n), rng)
            runs[f"{game} raw_env, {name}"] = env
            runs[f"{game} encode, {name}"] = encode_all(get_encoder(game, name), views)
        timings = interleaved(runs, seconds)
        per_call = {row: elapsed / steps for row, (_games, steps, elapsed) in timings.items()}
        for name in names:
            encode = per_call[f"{game} encode, {name}"]
            step, engine = per_call[f"{game} raw_env, {name}"], per_call[f"{game} engine only"]
            costs.append((f"{game} {name}", encode, encode / step, encode / engine))
        results.update((row, result) for row, result in timings.items() if "encode" not in row)
    print("\none encode (views built beforehand) as a fraction of one raw_env agent-step with that")
    print("encoder, and of one engine step (legal_actions + apply), interleaved in the same run:")
    print(f"  {'encoder':<20} {'encode':>10} {'/ raw_env step':>15} {'/ engine step':>14}")
    for name, cost, of_step, of_engine in costs:
        print(f"  {name:<20} {cost * 1e6:>7.1f} us {of_step:>15.2f} {of_engine:>14.2f}")
    return results


SECTIONS: dict[str, Callable[[float], dict[str, Result]]] = {
    "line": line_section, "texas42": texas42_section, "vector": vector_section,
    "encoders": encoders_section,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=sorted(SECTIONS), action="append", help="sections to run")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per row")
    args = parser.parse_args()
    for name in args.only or SECTIONS:
        results = SECTIONS[name](args.seconds)
        print(f"\n## {name}: random play, {args.seconds:g} s per row")
        print(f"{'runner':<40} {'games/s':>10} {'agent-steps/s':>14}")
        for runner, (games, steps, elapsed) in results.items():
            print(f"{runner:<40} {games / elapsed:>10.0f} {steps / elapsed:>14.0f}")
        reference = results.get("OpenSpiel python_block_dominoes")
        if reference:
            print("games per second against OpenSpiel python_block_dominoes, same run:")
            for runner, (games, _steps, elapsed) in results.items():
                if runner.startswith(("raw_env", "env")):
                    print(f"  {runner:<38} {(games / elapsed) / (reference[0] / reference[2]):.2f}x")


if __name__ == "__main__":
    main()
