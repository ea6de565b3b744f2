"""Admin of the games app."""
