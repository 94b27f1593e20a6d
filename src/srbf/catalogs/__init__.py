"""The shipped problem sets, their loader and validator, and the sampling of problems."""
