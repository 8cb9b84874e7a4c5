"""Reading a question into a QueryFrame: the words, names, patient facts and section it asks for."""

from duocthu_desktop.qa.understanding.question import understand, valid_text

__all__ = ["understand", "valid_text"]
