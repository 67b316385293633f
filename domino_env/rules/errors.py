"""Errors the rules engines raise; environments catch them to apply the illegal-action policy."""


class IllegalActionError(ValueError):
    """A move that is not legal now. The message names the move and the legal ones."""
