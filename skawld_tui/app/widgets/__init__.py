"""Widgets of the interactive app."""
