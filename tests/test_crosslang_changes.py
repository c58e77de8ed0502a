"""A person's change said in the other language, and an amount asked in the other language (xl13, issue #22;
fresh20 D4 and D5), on the real multilingual-e5-small, each case in a store of its own.

- "My sister Lan works as a nurse at a hospital in Guangzhou." then "我妹妹兰兰也换工作了，现在在北京协和医院当护士。":
  "Where does my sister work?" cites the Chinese turn first and marks the English one as earlier (answering.recency:
  the later statement's lift is read on the earlier one's scale, in spreads of the question's cosines to each
  language's background, and one the evidence test cites needs no margin to the earlier one's lift across
  languages).
- "Our grocery budget is now 4500 yuan a month." answers 每个月买菜预算多少？ and 我们的买菜预算是多少？ (每个 + 月 is one
  period term, covered by "a month"; 预算 and "budget" are one paraphrase group); 我的旅行预算是多少？ abstains (a
  compound's translation covers both its words only when nearer them than either word alone is)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.answering.question import _periods_joined, analyze_question

T = datetime(2026, 11, 23, 9, tzinfo=timezone.utc)


@pytest.fixture
def fresh(e5):
    from anchormem.eval.embed_cache import eval_embedder

    made: list[Memory] = []

    def make(*texts: str) -> Memory:
        m = Memory(":memory:", embedder=eval_embedder(e5), cache=False)
        made.append(m)
        for i, t in enumerate(texts):
            m.add(t, user_id="b", timestamp=T + timedelta(days=2 * i))
        return m

    yield make
    for m in made:
        m.close()


def test_period_words_split_by_the_tokenizer_are_one_term():
    assert _periods_joined(["每个", "月", "买菜", "预算"]) == ["每个月", "买菜", "预算"]
    assert _periods_joined(["每", "月"]) == ["每月"]
    assert _periods_joined(["我们", "买菜"]) == ["我们", "买菜"]
    assert [t for t, _ in analyze_question("每个月买菜预算多少？").terms] == ["每个月", "买菜", "预算"]


@pytest.mark.parametrize("earlier, later, question", [
    ("My sister Lan works as a nurse at a hospital in Guangzhou.", "我妹妹兰兰也换工作了，现在在北京协和医院当护士。",
     "Where does my sister work?"),
    ("My brother Jun lives in Hangzhou.", "我哥哥Jun上个月搬到了南京。", "Where does my brother live?"),
])
def test_a_persons_change_in_the_other_language_is_cited_first(fresh, earlier, later, question):
    m = fresh(earlier, later)
    ans = m.ask(question, user_id="b")
    assert [c.text for c in ans.citations[:2]] == [later, earlier]
    assert f'On 2026-11-23, you said (an earlier statement, before 2026-11-25): "{earlier}"' in ans.text


def test_an_amount_said_in_english_answers_a_chinese_question(fresh):
    m = fresh("Our monthly grocery budget is 3000 yuan.", "Our grocery budget is now 4500 yuan a month.",
              "I live in Shenzhen.")
    for q in ("每个月买菜预算多少？", "我们的买菜预算是多少？", "What is our grocery budget?"):
        ans = m.ask(q, user_id="b")
        assert not ans.abstained, q
        assert ans.citations[0].text == "Our grocery budget is now 4500 yuan a month.", q
    assert m.ask("我的旅行预算是多少？", user_id="b").abstained  # a travel budget was never said
    assert m.ask("我们的房租是多少？", user_id="b").abstained
