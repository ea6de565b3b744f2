"""Tables, seats, the move log, the state snapshot and the REST API over the games' rulesets."""
