"""Adapters to other libraries (OpenSpiel, ...), one module each.

Nothing in the core package imports this folder: each adapter imports its library when the adapter
itself is imported (``import domino_env.integrations.openspiel`` needs ``pyspiel``), so the library
stays an optional extra. Importing this package (the ``domino_env.bots`` entry point does, so the
evaluation's worker processes do too) registers the ``openspiel`` bot, whose library is imported
only when one is built.
"""

from typing import Any

from domino_env.bots.base import ANY_GAME, register_bot


@register_bot(ANY_GAME, "openspiel")
def _openspiel_agent(game: str, **kwargs: Any) -> Any:
    """``make_bot(game, "openspiel", bot="ismcts", ...)``: ``integrations.openspiel.OpenSpielAgent``
    (imports ``pyspiel`` when built)."""
    from domino_env.integrations.openspiel import OpenSpielAgent

    return OpenSpielAgent(game, **kwargs)
