"""Anchoring in sessions that mix topics (a fresh user's case, issue #23): the conversation's sense must win even
when the memory of that sense sits in a session that is mostly about other things."""

from anchormem import Memory

S1 = ["Hey, I'm Wei. I rent a small flat in Leeds, it's 850 pounds a month.", "I work as a nurse at St James's hospital.",
      "I've got a tabby cat called Mochi.", "I go swimming every Saturday morning.",
      "I smoke about five cigarettes a day, trying to cut down.",
      "Paid my salary into the bank yesterday, finally have some savings."]
S2 = ["我的月薪是一万二。", "我每天晚上都喝奶茶。", "我朋友小林上个月搬到深圳了。", "我的苹果又卡了，电池也不行了，得去换电池。",
      "We sat on the bank of the river Aire and fed the ducks."]


def test_the_conversations_sense_wins_in_a_mixed_session():
    with Memory(":memory:", cache=False) as mem:
        for sid, ts, turns in [("s1", "2025-01-10T19:00:00Z", S1), ("s2", "2025-02-14T20:00:00+08:00", S2)]:
            for t in turns:
                mem.add([{"role": "user", "content": t, "name": "Wei"}], user_id="wei", session_id=sid, timestamp=ts)
        hits = mem.search("what did I say about the bank?", user_id="wei",
                          context=["I love walking by the water.", "The ducks were cute."])
        banks = [h.memory.text for h in hits if "bank" in h.memory.text]
        assert banks[0] == "We sat on the bank of the river Aire and fed the ducks."
