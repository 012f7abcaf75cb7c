"""Every pinyin game word used in a name in kwx/ is in docs/GLOSSARY.md.

A word counts as pinyin when it splits into two or more pinyin syllables and is not one of the few English words
that also do (a cheap test, no dictionary: single-syllable terms such as hu, peng and gang are listed by hand).
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_INITIALS = ("zh", "ch", "sh", "b", "p", "m", "f", "d", "t", "n", "l", "g", "k", "h", "j", "q", "x", "r", "z", "c",
             "s", "y", "w")
_FINALS = ("iang", "iong", "uang", "ang", "eng", "ing", "ong", "ian", "iao", "uai", "uan", "ai", "ei", "ao", "ou",
           "an", "en", "in", "un", "ia", "ie", "iu", "ua", "uo", "ui", "a", "o", "e", "i", "u")
SYLLABLES = frozenset({i + f for i in _INITIALS for f in _FINALS} | {"an", "ang", "ai", "ao", "er", "ou"})
_ENGLISH_ENDING = frozenset(i + "e" for i in _INITIALS)  # -te, -me, -se …: English, never a game word's end
# English words made of pinyin syllables that kwx uses in names.
ENGLISH = frozenset({"begin", "chosen", "coro", "danger", "data", "demo", "fileno", "human", "lean", "lineno", "login", "mean", "meta", "mixin",
                     "taken", "token", "zero"})
GAME_WORDS = ("hu", "peng", "gang", "piao", "fan", "zimo")  # one syllable (or too short to tell): listed by hand


@functools.cache
def _syllables(word: str) -> int | None:
    """How many pinyin syllables `word` splits into (longest first), or None when it does not."""
    if not word:
        return 0
    for k in range(min(6, len(word)), 0, -1):
        head = word[:k]
        if head in SYLLABLES and not (k == len(word) and head in _ENGLISH_ENDING):
            rest = _syllables(word[k:])
            if rest is not None:
                return rest + 1
    return None


def is_pinyin(word: str) -> bool:
    n = _syllables(word)
    return n is not None and n >= 2 and word not in ENGLISH and not word.endswith("ing")


def name_words(source: str) -> set[str]:
    """The lower-case words of every name in a module (snake_case and CamelCase split)."""
    words: set[str] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME:
            words.update(w.lower() for w in re.findall(r"[A-Z]?[a-z]+", tok.string))
    return words


def glossary_identifiers() -> str:
    text = (ROOT / "docs" / "GLOSSARY.md").read_text(encoding="utf-8")
    return " ".join(re.findall(r"`([a-z_]+)`", text))


def test_the_detector_tells_pinyin_from_english() -> None:
    assert all(is_pinyin(w) for w in ("liangdao", "baohu", "louhu", "chajiao", "shukan", "huangzhuang", "zhigang"))
    assert not any(is_pinyin(w) for w in ("table", "service", "delete", "waiting", "base", "token"))


def test_every_pinyin_word_in_a_name_is_in_the_glossary() -> None:
    listed = glossary_identifiers()
    used: dict[str, str] = {}
    for path in sorted((ROOT / "kwx").rglob("*.py")):
        for word in name_words(path.read_text(encoding="utf-8")):
            if is_pinyin(word):
                used.setdefault(word, str(path.relative_to(ROOT)))
    missing = {word: where for word, where in used.items() if word not in listed}
    assert not missing, f"game words used in names but not in docs/GLOSSARY.md: {missing}"
    assert all(re.search(rf"\b{w}\b", listed) for w in GAME_WORDS)
