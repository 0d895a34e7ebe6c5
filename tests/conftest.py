"""Fixtures shared by every test package."""
