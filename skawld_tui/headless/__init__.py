"""Headless runs (`skawld -p`) in skawld's and Claude Code's dialects; see README.md here."""
