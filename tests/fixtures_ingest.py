"""Session fixtures for this area (see the root conftest.py)."""
