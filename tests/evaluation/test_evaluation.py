"""Evaluation harness: duplicate lineups, interval math, reproducibility, worker independence."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from domino_env.evaluation import (
    AgentSpec,
    GameSetup,
    bootstrap_interval,
    crossplay_interval,
    evaluate,
    lineups,
    mean_interval,
)


def test_lineups_cover_every_side_assignment() -> None:
    assert lineups(2, 2) == [(0, 1), (1, 0)]
    assert sorted(lineups(3, 3)) == sorted(itertools.permutations(range(3)))
    mixed = lineups(2, 3)  # two agents, three players: every mix using both
    assert len(mixed) == 6 and all(set(x) == {0, 1} for x in mixed)
    for side in range(3):  # each agent holds each seat equally often
        assert sum(x[side] == 0 for x in mixed) == 3
    assert len(lineups(3, 2)) == 6  # three head-to-head matchups, both ways round


def test_mean_interval_known_case() -> None:
    mean, low, high = mean_interval([1, 2, 3, 4, 5])
    assert mean == 3
    assert high - mean == pytest.approx(1.959964 * np.sqrt(2.5) / np.sqrt(5), rel=1e-6)  # 1.3859
    assert low == pytest.approx(3 - 1.385904, abs=1e-5)


def test_bootstrap_interval_is_seeded_and_bounded() -> None:
    values = [0, 1] * 50
    mean, low, high = bootstrap_interval(values, seed=1)
    assert mean == 0.5 and bootstrap_interval(values, seed=1) == (mean, low, high)
    assert low == pytest.approx(0.5 - 0.098, abs=0.02) and high == pytest.approx(0.5 + 0.098, abs=0.02)
    assert bootstrap_interval([1.0] * 10, seed=0) == (1.0, 1.0, 1.0)


def test_crossplay_interval_takes_the_deal_as_the_unit() -> None:
    # Deal 0: four comparisons all won; deal 1: one lost. Per game the share would be 0.8; per deal
    # it is (1 + 0) / 2, and with two deals the bootstrap can only draw 0, 0.5 or 1.
    mean, low, high = crossplay_interval({0: [1.0, 1.0, 1.0, 1.0], 1: [0.0]}, seed=0)
    assert (mean, low, high) == (0.5, 0.0, 1.0)
    # 100 deals alternating won / half-won (a tie): mean 0.75, sd 0.25 -> 1.96 * 0.25 / 10 ~ 0.049.
    mean, low, high = crossplay_interval({d: [1.0 if d % 2 else 0.5] for d in range(100)}, seed=0)
    assert mean == 0.75 and low == pytest.approx(0.701, abs=0.012) and high == pytest.approx(0.799, abs=0.012)


def test_agent_spec_parsing() -> None:
    assert AgentSpec.parse("greedy") == AgentSpec("greedy", "greedy", {})
    assert AgentSpec.parse("fast=search:budget=20,rollout=auto") == AgentSpec(
        "fast", "search", {"budget": 20, "rollout": "auto"})
    with pytest.raises(ValueError, match="key=value"):
        AgentSpec.parse("search:budget")


def test_duplicate_deals_replay_the_same_tiles() -> None:
    # random vs random on one deal: both lineups start from the same hands, so the two games of
    # a deal are the same deal with the seats swapped; a symmetric agent set sums to zero margin.
    result = evaluate(GameSetup("dominoes", {"variant": "block"}), ["a=random", "b=random"], 30, seed=5)
    assert len(result.records) == 60
    assert [r["lineup"] for r in result.records[:2]] == [[0, 1], [1, 0]]
    a, b = result.summary
    assert a["margin"][0] == pytest.approx(-b["margin"][0])
    assert a["groups"] == b["groups"] == 30
    assert result.crossplay[0][1] == pytest.approx(1 - result.crossplay[1][0])
    (mean, low, high), mirror = result.crossplay_ci[0][1], result.crossplay_ci[1][0]
    assert mean == pytest.approx(result.crossplay[0][1])  # same number of comparisons on every deal
    assert low <= mean <= high and mirror == pytest.approx((1 - mean, 1 - high, 1 - low))
    assert result.crossplay_ci[0][0] is None


def test_greedy_beats_random_and_reports_everything(tmp_path) -> None:
    result = evaluate(GameSetup("texas42"), ["heuristic", "random"], 20, seed=0)
    heuristic, rand = result.summary
    assert heuristic["margin"][1] > 0 > rand["margin"][2]  # intervals exclude zero
    assert result.ratings[1]["elo"] == 0.0  # anchored: random rates 0
    assert result.ratings[0]["low"] > 0 and result.ratings[0]["low"] <= result.ratings[0]["elo"]
    data = json.loads(result.to_json())
    assert data["summary"][0]["agent"] == "heuristic" and len(data["records"]) == 40
    assert "| heuristic |" in result.to_markdown()
    result.save_heatmap(tmp_path / "x.png")
    assert (tmp_path / "x.png").read_bytes()[:4] == b"\x89PNG"


def test_matches_are_played_to_the_target() -> None:
    setup = GameSetup("dominoes", {"variant": "block", "target_score": 30}, match=True)
    result = evaluate(setup, ["greedy", "random"], 6, seed=2)
    assert all(max(r["points"]) >= 30 and r["winner"] == int(np.argmax(r["points"])) for r in result.records)
    assert "match win rate" in result.to_markdown()


def test_reproducible_and_independent_of_the_worker_count() -> None:
    setup = GameSetup("dominoes", {"variant": "draw", "num_players": 3})
    agents = ["greedy", "random", "search:budget=6"]
    one = evaluate(setup, agents, 4, seed=11, workers=1)
    again = evaluate(setup, agents, 4, seed=11, workers=1)
    two = evaluate(setup, agents, 4, seed=11, workers=2)
    assert one.to_json() == again.to_json() == two.to_json()
    assert evaluate(setup, agents, 4, seed=12).to_json() != one.to_json()


def test_rejects_bad_requests() -> None:
    with pytest.raises(ValueError, match="two agents"):
        evaluate(GameSetup("dominoes"), ["greedy"], 1)
    with pytest.raises(ValueError, match="differ"):
        evaluate(GameSetup("dominoes"), ["greedy", "greedy"], 1)
    with pytest.raises(ValueError):
        GameSetup("dominoes", {"num_players": 7})


def test_ratings_are_a_batch_fit_independent_of_record_order() -> None:
    """Shuffling the records leaves the ratings unchanged (an online rating would move), and every
    pair whose cross-play interval excludes 1/2 is ordered the same way by the ratings."""
    from domino_env.evaluation.harness import _summarize

    setup = GameSetup("dominoes", {"variant": "draw", "num_players": 3})
    result = evaluate(setup, ["greedy", "random", "search:budget=5"], 24, seed=1)
    shuffled = list(result.records)
    np.random.default_rng(0).shuffle(shuffled)
    *_, again = _summarize(setup, result.agents, shuffled, result.seed)
    for mine, theirs in zip(again, result.ratings, strict=True):
        assert mine == pytest.approx(theirs)
    ordered = 0
    for a in range(3):
        for b in range(3):
            interval = result.crossplay_ci[a][b]
            if interval is not None and interval[1] > 0.5:
                assert result.ratings[a]["elo"] > result.ratings[b]["elo"]
                ordered += 1
    assert ordered > 0, "no cross-play interval excluded 1/2: the check above checked nothing"


def test_bradley_terry_recovers_known_strengths() -> None:
    from domino_env.evaluation import ELO_SCALE, bradley_terry

    truth = np.array([-1.0, 0.0, 0.5, 1.5])
    rng = np.random.default_rng(3)
    games = np.full((4, 4), 4000.0) - np.diag(np.full(4, 4000.0))
    p_win = 1 / (1 + np.exp(truth[None, :] - truth[:, None]))
    upper = np.triu(rng.binomial(4000, p_win), 1).astype(float)
    wins = upper + np.triu(4000 - upper, 1).T * (np.triu(np.ones((4, 4)), 1).T > 0)
    fitted = bradley_terry(wins, games)
    np.testing.assert_allclose(fitted - fitted.mean(), truth - truth.mean(), atol=0.08)
    assert ELO_SCALE * (fitted[3] - fitted[0]) == pytest.approx(ELO_SCALE * 2.5, abs=40)


def test_elo_ratings_recover_known_strengths_anchored_at_random() -> None:
    """Synthetic per-deal comparisons from known Elo strengths: the fit, anchored at random = 0,
    recovers them, and each 95% bootstrap interval over deals holds the truth."""
    from domino_env.evaluation import elo_ratings

    labels = ["strong", "random", "middle"]
    truth = np.array([300.0, 0.0, 120.0])
    rng = np.random.default_rng(11)
    deals, per_pair = 3000, 2
    per_deal = np.zeros((deals, 3, 3))
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        p_win = 1 / (1 + 10 ** ((truth[b] - truth[a]) / 400))
        won = rng.binomial(per_pair, p_win, size=deals)
        per_deal[:, a, b], per_deal[:, b, a] = won, per_pair - won
    ratings = elo_ratings(per_deal, labels, seed=0)
    assert ratings[1] == {"elo": 0.0, "low": 0.0, "high": 0.0}
    for rating, true in zip(ratings, truth, strict=True):
        assert rating["low"] <= true <= rating["high"]
        assert rating["elo"] == pytest.approx(true, abs=30)
