"""Defaults of ``releasegate plan`` that the command line's help shows (no import beyond this module)."""

# 150 replications answer for the bank-assistant example (400 cases, two critical categories) in about 10 s
# on this machine (2 cores shared, load 6); a 5% rate then has a Monte Carlo standard error of 1.8 points.
DEFAULT_REPLICATIONS = 150
DEFAULT_SEED = 20261201
