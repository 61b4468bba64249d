"""Fantasma's on-device half: authorship-marker analysis, rewriting, and the native-messaging host."""

__version__ = "0.1.0"
