"""A support assistant with layered memory: session buffer, facts with expiry, review of sensitive changes.

Run: python examples/support_example.py   (ANCHORMEM_EMBEDDER=hash for a fast lexical embedder)
Build your own: tag each sentence with metadata {"category", "expire_strategy"}, let Memory.add hold conflicting
sensitive facts for review, and give your LLM the block of anchormem.session.build_context.
"""

from datetime import datetime, timedelta, timezone

from anchormem import Memory
from anchormem.agents import SupportAgent

mem = Memory(":memory:")
agent = SupportAgent(mem, "cust-1001", name="Maya",
                     products=[{"name": "Steady Income Fund No. 3", "aliases": ["Steady Income"]}])

now = datetime.now(timezone.utc)
last_week = now - timedelta(days=now.weekday() + 5)  # Wednesday of last week
for i, text in enumerate([
    "My risk preference is conservative.",                           # kept permanently
    "I'm looking at the Steady Income Fund No. 3.",
    "Steady Income Fund No. 3 yielded 3.2% annualised this week.",   # a yield: kept 7 days
    "My bank card number is 6222 0212 3456 7890.",
]):
    agent.turn(text, session_id="week-1", at=last_week + timedelta(minutes=i))
agent.end_session("week-1")  # structured summary (also written every 20 turns)

for text in ["What was the yield of the product we talked about last week?",
             "My bank card number is 6222 0288 8888 1234 now.",          # held for review, not applied
             "What is my risk preference?"]:
    reply = agent.turn(text, session_id="week-2")
    print(f"Maya: {text}\n  [{reply.metadata['intent']}] " + "\n  ".join(reply.lines))
print("waiting for review:", [r.proposed.text for r in mem.review_queue(user_id="cust-1001")])
