"""A two-party mediation over two sessions with anchormem's reference Mediator (offline, templated replies).

Run: python examples/mediator_example.py   (ANCHORMEM_EMBEDDER=hash for a fast lexical embedder)
Build your own: store each party's sentences with metadata {"party", "visibility"}, search through
Mediator.visible_filter(party), and raise mem.due(...) commitments when a party comes back.
"""

from datetime import datetime, timedelta, timezone

from anchormem import Memory
from anchormem.agents import Mediator

mem = Memory(":memory:")  # or Memory("cases.db") to keep the case between runs
med = Mediator(mem, "hedge-42", parties={"alice": "Alice", "bob": "Bob"})

earlier = datetime.now(timezone.utc) - timedelta(days=10)  # session 1, ten days ago
for i, (party, text) in enumerate([
    ("alice", "Bob's hedge blocks the light in my kitchen."),
    ("alice", "I want the hedge cut down to two metres."),
    ("bob", "The hedge gives my family privacy from the street."),
    ("bob", "You can tell Alice that I am willing to trim it to 2.5 metres."),  # shared: Bob allowed it
    ("bob", "I will send you the land survey documents by Monday."),  # a commitment, due next Monday
    ("alice", "Two and a half metres is still too tall for my window."),
]):
    reply = med.turn(party, text, session_id="s1", at=earlier + timedelta(minutes=i))
    print(f"{party}: {text}\n  [{reply.metadata['stage']}] " + "\n  ".join(reply.lines))

# Session 2, today: Bob comes back; his overdue commitment is raised first.
reply = med.turn("bob", "Hello again.", session_id="s2")
print("bob: Hello again.\n  " + "\n  ".join(reply.lines))
reply = med.turn("bob", "Yes, I sent them on Friday.", session_id="s2")  # recorded as fulfilled
print("bob: Yes, I sent them on Friday.\n  " + "\n  ".join(reply.lines))
print("open commitments:", [c.text for c in med.open_commitments()])
