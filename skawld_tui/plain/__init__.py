"""The line-oriented chat (`skawld --plain`): `chat.PlainChat` and its parts."""
