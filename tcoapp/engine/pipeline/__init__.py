"""One compute of a scenario: serving, then finance, into one `PlanResult` per plan (`compute_scenario`), and the normalized views of the results."""
