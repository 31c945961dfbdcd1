"""The decision at a glance: plans ranked by an objective, the reason in words, and the confidence of the ranking from Monte Carlo draws. Reads computed results and the uncertainty layer."""
