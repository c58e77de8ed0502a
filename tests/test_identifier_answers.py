"""A question for a number or code ("What's my refund ticket number?", 我的手机号是多少？) is answered by the memory
that states one beside what it is of, never by a number of something else."""

import pytest

from anchormem import Memory


@pytest.fixture(scope="module")
def mem():
    m = Memory(":memory:", cache=False)
    m.add([{"role": "user", "content": "My order #A1234 hasn't arrived yet and I want a refund."},
           {"role": "assistant", "content": "Sorry about that! Refund ticket R-5521 opened. The parcel is with "
                                            "SF Express, tracking SF123456789CN."}],
          user_id="c", session_id="s1", timestamp="2025-01-01T00:00:00Z")
    m.add("我的手机号是13800138000。", user_id="c", session_id="s2", timestamp="2025-01-02T00:00:00Z")
    m.add("I renewed my passport last year.", user_id="c", session_id="s3", timestamp="2025-01-02T00:00:00Z")
    yield m
    m.close()


@pytest.mark.parametrize("question, cited", [
    ("What's my refund ticket number?", "Refund ticket R-5521"), ("What's the tracking number?", "SF123456789CN"),
    ("What's my order number?", "#A1234"), ("What's my phone number?", "13800138000"),
])
def test_the_number_asked_for_is_cited(mem, question, cited):
    ans = mem.ask(question, user_id="c")
    assert not ans.abstained and cited in ans.citations[0].text


def test_a_number_of_something_else_answers_nothing(mem):
    assert mem.ask("What is my passport number?", user_id="c").abstained
