"""The checks every answer passes before it is shown: grounding of numbers, quotes and pages."""
