"""The Porter stemmer with the NLTK extensions, as NLTK's default ``PorterStemmer`` stems.

Written from the published algorithm (Porter 1980, "An algorithm for suffix
stripping", Program 14(3)) with the departures NLTK makes in its default
``NLTK_EXTENSIONS`` mode: a short table of irregular forms, words of one or two
letters left alone, ``-ies``/``-ied`` of four-letter words kept as ``-ie``,
``y -> i`` only after a consonant that is not the whole stem, ``alli -> al``
tried first and re-stemmed, ``fulli -> ful``, ``logi -> log`` with the ``l``
counted in the stem, and ``*o`` true for a two-letter vowel-consonant stem.

ROUGE uses it to reproduce rouge-score's ``use_stemmer=True`` without NLTK at
run time; the tests compare it with NLTK word by word.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

__all__ = ["stem"]

_VOWELS = frozenset("aeiou")

_IRREGULAR = {
    "sky": "sky",
    "skies": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "news": "news",
    "innings": "inning",
    "inning": "inning",
    "outings": "outing",
    "outing": "outing",
    "cannings": "canning",
    "canning": "canning",
    "howe": "howe",
    "proceed": "proceed",
    "exceed": "exceed",
    "succeed": "succeed",
}


def _consonants(word: str) -> list[bool]:
    """Per letter, True for a consonant: not a vowel, and a ``y`` only after a vowel or first."""
    flags: list[bool] = []
    for i, ch in enumerate(word):
        if ch in _VOWELS:
            flags.append(False)
        elif ch == "y":
            flags.append(i == 0 or not flags[i - 1])
        else:
            flags.append(True)
    return flags


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-run to consonant-run transitions in ``stem``."""
    flags = _consonants(stem)
    return sum(1 for i in range(1, len(flags)) if flags[i] and not flags[i - 1])


def _has_vowel(stem: str) -> bool:
    return not all(_consonants(stem))


def _is_consonant(word: str, i: int) -> bool:
    return _consonants(word)[i]


def _double_consonant(word: str) -> bool:
    """Condition ``*d``: the word ends with two equal consonants."""
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """Condition ``*o``: consonant-vowel-consonant at the end, the last not w, x or y.

    NLTK also counts a two-letter word of a vowel and a consonant.
    """
    if len(word) >= 3:
        flags = _consonants(word)
        if flags[-3] and not flags[-2] and flags[-1] and word[-1] not in "wxy":
            return True
    if len(word) == 2:
        flags = _consonants(word)
        return not flags[0] and flags[1]
    return False


Condition = Callable[[str], bool] | None


def _m_positive(stem: str) -> bool:
    return _measure(stem) > 0


def _m_above_one(stem: str) -> bool:
    return _measure(stem) > 1


def _first_rule(word: str, rules: list[tuple[str, str, Condition]]) -> str:
    """Apply the rule of the first suffix ``word`` ends with; a failed condition ends the step."""
    for suffix, replacement, condition in rules:
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)]
            if condition is None or condition(stem):
                return stem + replacement
            return word
    return word


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:
        return word[:-3] + "ie"
    return _first_rule(
        word, [("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None), ("s", "", None)]
    )


def _step1b(word: str) -> str:
    if word.endswith("ied"):
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        stem = word[:-3]
        return stem + "ee" if _measure(stem) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            stem = word[: -len(suffix)]
            break
    else:
        return word
    if stem.endswith(("at", "bl", "iz")):
        return stem + "e"
    if _double_consonant(stem):
        return stem[:-1] if stem[-1] not in "lsz" else stem
    if _measure(stem) == 1 and _cvc(stem):
        return stem + "e"
    return stem


def _step1c(word: str) -> str:
    if word.endswith("y"):
        stem = word[:-1]
        if len(stem) > 1 and _is_consonant(stem, len(stem) - 1):
            return stem + "i"
    return word


def _logi(word: str) -> Condition:
    # the l of -logi stays with the stem when measuring it
    return lambda stem: _measure(word[:-3]) > 0


_STEP2: list[tuple[str, str, Condition]] = [
    ("ational", "ate", _m_positive),
    ("tional", "tion", _m_positive),
    ("enci", "ence", _m_positive),
    ("anci", "ance", _m_positive),
    ("izer", "ize", _m_positive),
    ("bli", "ble", _m_positive),
    ("alli", "al", _m_positive),
    ("entli", "ent", _m_positive),
    ("eli", "e", _m_positive),
    ("ousli", "ous", _m_positive),
    ("ization", "ize", _m_positive),
    ("ation", "ate", _m_positive),
    ("ator", "ate", _m_positive),
    ("alism", "al", _m_positive),
    ("iveness", "ive", _m_positive),
    ("fulness", "ful", _m_positive),
    ("ousness", "ous", _m_positive),
    ("aliti", "al", _m_positive),
    ("iviti", "ive", _m_positive),
    ("biliti", "ble", _m_positive),
    ("fulli", "ful", _m_positive),
]


def _step2(word: str) -> str:
    if word.endswith("alli") and _measure(word[:-4]) > 0:
        return _step2(word[:-4] + "al")
    return _first_rule(word, [*_STEP2, ("logi", "log", _logi(word))])


_STEP3: list[tuple[str, str, Condition]] = [
    ("icate", "ic", _m_positive),
    ("ative", "", _m_positive),
    ("alize", "al", _m_positive),
    ("iciti", "ic", _m_positive),
    ("ical", "ic", _m_positive),
    ("ful", "", _m_positive),
    ("ness", "", _m_positive),
]


def _ion(stem: str) -> bool:
    return _measure(stem) > 1 and stem[-1:] in ("s", "t")


_STEP4: list[tuple[str, str, Condition]] = [
    *(
        (suffix, "", _m_above_one)
        for suffix in (
            "al",
            "ance",
            "ence",
            "er",
            "ic",
            "able",
            "ible",
            "ant",
            "ement",
            "ment",
            "ent",
        )
    ),
    ("ion", "", _ion),
    *((suffix, "", _m_above_one) for suffix in ("ou", "ism", "ate", "iti", "ous", "ive", "ize")),
]


def _step5(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            word = stem
    if word.endswith("ll") and _measure(word[:-1]) > 1:
        word = word[:-1]
    return word


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The Porter stem of ``word``, lowercased, as NLTK's default ``PorterStemmer().stem``.

    Examples
    --------
    >>> [stem(w) for w in ["caresses", "ponies", "running", "happy", "generalization"]]
    ['caress', 'poni', 'run', 'happi', 'gener']
    """
    word = word.lower()
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 2:
        return word
    word = _step1a(word)
    word = _step1b(word)
    word = _step1c(word)
    word = _step2(word)
    word = _first_rule(word, _STEP3)
    word = _first_rule(word, _STEP4)
    return _step5(word)
