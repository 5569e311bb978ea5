"""Tests of the interactive app."""
