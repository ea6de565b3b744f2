"""Admin of the notifications app."""
