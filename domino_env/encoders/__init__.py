"""Observation encoders: seat view -> flat array, looked up by game and name (see ``base``)."""
