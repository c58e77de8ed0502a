"""Tokenise once: the keyword index's words derived from jieba's precise cut equal jieba's cut_for_search, parts
segment like their join, and the per-call cache keeps nothing after the call."""

from __future__ import annotations

import jieba

from anchormem.text import tokenize
from anchormem.text.tokenize import _SEGMENTS, index_text, segment_once, words

TEXTS = ["我们今天去北京大学看看中华人民共和国的历史博物馆", "I moved to 上海 last week, it’s great!",
         "我的手机号码是多少？", "Caroline went to the LGBTQ support group", "中文 中文", ""]


def test_index_words_match_jiebas_cut_for_search():
    for t in TEXTS:
        want = []
        for run in tokenize._CJK.findall(t):
            want += [w for w in jieba.cut_for_search(run) if w.strip()]
        got = [w for w in index_text(t).split() if tokenize.has_cjk(w)]
        assert got == want, t


def test_parts_index_like_their_join_and_the_cache_lives_only_in_the_block(monkeypatch):
    for a in TEXTS:
        assert index_text(a, "Caroline May 2023 2023年5月") == index_text(f"{a} Caroline May 2023 2023年5月")
    calls = []
    real = tokenize._get_jieba().cut
    monkeypatch.setattr(tokenize._get_jieba(), "cut", lambda s, *a, **k: calls.append(s) or real(s, *a, **k))
    with segment_once():
        first = (words(TEXTS[0]), index_text(TEXTS[0]), words(TEXTS[0]))
        assert len(calls) == 1  # one segmentation for the words and the index terms
    assert _SEGMENTS.get() is None
    assert (words(TEXTS[0]), index_text(TEXTS[0])) == first[:2]
    assert len(calls) == 3  # outside a block nothing is kept


def test_jieba_is_quiet_whichever_call_loads_it_first():
    # part-of-speech tagging used to load jieba's dictionary on its own, printing jieba's debug lines to stderr
    import subprocess
    import sys

    code = "from anchormem.text.tokenize import pos_tags; print(pos_tags('我住在北京')[0].word)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "我" and "prefix dict" not in run.stderr and "Loading model" not in run.stderr
