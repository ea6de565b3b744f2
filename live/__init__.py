"""Real-time tables over WebSockets: each socket gets its own seat's view after every change."""
