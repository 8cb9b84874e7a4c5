"""One spelling of a drug's name whichever way a person writes it: the everyday and international spellings
read as the book's.

The book prints INNs in Vietnamese spelling ("calci", "acid", "cefalexin", "kẽm oxyd", "amoxicilin",
"furosemid"); people type them as said ("canxi", "axit"), as on a box in English ("cephalexin", "amoxicillin",
"furosemide", "zinc oxide" aside), or with the book's other letters ("oxid" for "oxyd"). `spelling_key` maps
every such spelling of a folded word to one key; a name matches when the keys of its words match. The table
below is the whole rule: read it top to bottom.
"""

from __future__ import annotations

import re

# Whole words a person writes for the book's word (folded, everyday -> book).
SPELLING_WORDS: tuple[tuple[str, str], ...] = (
    ("axit", "acid"),
    ("canxi", "calci"),
    ("kalci", "calci"),
    ("oxit", "oxid"),  # kẽm oxit / kẽm oxyd
    ("clorua", "clorid"),  # natri clorua / natri clorid
    ("photphat", "phosphat"),
    ("sunfat", "sulfat"),
    ("cacbonat", "carbonat"),
    ("magie", "magnesi"),
)
# Letters read as one, in this order, inside a word (folded): the key keeps the right-hand side.
SPELLING_LETTERS: tuple[tuple[str, str], ...] = (
    ("ph", "f"),  # cephalexin / cefalexin, sulphat / sulfat
    ("th", "t"),  # ethambutol / etambutol
    ("chl", "cl"),  # chlorpromazin / clorpromazin
    ("chr", "cr"),
    ("y", "i"),  # oxyd / oxid, amoxycilin / amoxicilin
    ("k", "c"),  # ketamin / cetamin, kloramphenicol
    ("ll", "l"),  # amoxicillin / amoxicilin
    ("mm", "m"),
    ("nn", "n"),
    ("ss", "s"),
    ("tt", "t"),
    ("ff", "f"),
    ("rr", "r"),
)
# A final "e" after a consonant is the English ending (morphine, furosemide, omeprazole, prednisolone).
_FINAL_E = re.compile(r"(?<=[bcdfghlmnprstvxz])e$")
# The Latin "-ium" of an element is "-i" in the book (lithium / lithi, calcium / calci, magnesium / magnesi).
_FINAL_IUM = re.compile(r"(?<=[a-z]{3})ium$")
# An enzyme's "-ase" written as said in Vietnamese, "-aza" (hyaluronidaza, streptokinaza): the English ending.
_FINAL_AZA = re.compile(r"(?<=[a-z]{4})aza$")
MIN_KEYED_LETTERS = 4  # shorter words are too often ordinary words to be read through the table
_FINAL_E_MIN_LETTERS = 6  # "mine", "tone": a short word's "e" is its own
_WORDS = dict(SPELLING_WORDS)


def spelling_key(word: str) -> str:
    """The key of one folded word: the same for every spelling in the table ("canxi", "calci" -> "calci")."""
    word = _WORDS.get(word, word)
    if len(word) < MIN_KEYED_LETTERS or not word.isalpha():
        return word
    word = _FINAL_AZA.sub("ase", _FINAL_IUM.sub("i", word))
    for written, key in SPELLING_LETTERS:
        word = word.replace(written, key)
    return _FINAL_E.sub("", word) if len(word) >= _FINAL_E_MIN_LETTERS else word


def in_word_table(word: str) -> bool:
    """A word the table names whole ("axit", "oxit"): read through it at any length."""
    return word in _WORDS


def spelling_keys(words: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(spelling_key(w) for w in words)
