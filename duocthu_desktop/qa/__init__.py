"""The question path: understanding, routing, answer engines, grounding, memory. No Qt here."""
