"""Foundations every layer of the engine uses: the error types, typed-number reading and number formatting."""
