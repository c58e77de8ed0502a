"""A LangGraph graph whose long-term store is anchormem (pip install -e '.[langgraph]').

Run: python examples/langgraph_store.py
"""

from typing_extensions import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from anchormem import Memory
from anchormem.integrations.langgraph import AnchormemStore


class State(TypedDict):
    user: str
    message: str
    recalled: list[str]


def remember(state: State, *, store: BaseStore) -> dict:
    """Store what the user said; anchormem extracts facts and supersedes old values."""
    n = len(store.search(("memories", state["user"]), limit=1000))
    store.put(("memories", state["user"]), f"turn-{n}", {"content": state["message"]})
    return {}


def recall(state: State, *, store: BaseStore) -> dict:
    hits = store.search(("memories", state["user"]), query="Where does the user live?", limit=3)
    return {"recalled": [f"{h.score:.3f} {h.value['content']}" for h in hits]}


builder = StateGraph(State)
builder.add_node("remember", remember)
builder.add_node("recall", recall)
builder.add_edge(START, "remember")
builder.add_edge("remember", "recall")
builder.add_edge("recall", END)

with Memory(":memory:") as mem:
    graph = builder.compile(store=AnchormemStore(mem))
    for text in ("I live in Lisbon and I work as a nurse.", "I moved to Berlin last month."):
        out = graph.invoke({"user": "sam", "message": text, "recalled": []})
    print("\n".join(out["recalled"]))  # Berlin first: the Lisbon home is superseded (the nurse job stays)
