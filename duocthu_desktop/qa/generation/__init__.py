"""The language-model path: the model rewrites the extractive answer's evidence, every claim is checked, and any
failure falls back to the extractive answer (said so) or abstains with its exact reason."""
