"""Ratings (Weng-Lin Plackett-Luce, ``openskill``), each finished game's results, leaderboards."""
