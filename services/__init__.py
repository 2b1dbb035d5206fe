"""airship: an event-sourced game service for bots and chat players."""
