"""Adapters to other libraries (OpenSpiel, ...), one module each.

Nothing in the core package imports this folder: each adapter imports its library when the adapter
itself is imported (``import domino_env.integrations.openspiel`` needs ``pyspiel``), so the library
stays an optional extra.
"""
