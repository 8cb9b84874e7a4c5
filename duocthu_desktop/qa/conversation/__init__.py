"""What a conversation keeps between turns, and the traces: masked, capped, transactional."""
