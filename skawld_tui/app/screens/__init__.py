"""Modal screens of the interactive app."""
