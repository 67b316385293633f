"""Scripted agents on seat views, a trained-checkpoint agent, and the registry that names them all.

``make_bot("dominoes", "greedy")``, ``make_bot("texas42", "search", budget=40)``,
``make_bot("dominoes", "checkpoint", path="runs/x/checkpoint.pt")``; each returns an ``Agent``
(``act(view, rng) -> int``).
"""

from domino_env.bots.base import Agent, RandomAgent, available_bots, make_bot, register_bot

__all__ = ["Agent", "RandomAgent", "available_bots", "make_bot", "register_bot"]
