"""Turning retrieved evidence into answers of cited claims: the engines, dose and warning choice, lists."""
