"""Anchoring with a conversation about something else: does an unrelated conversation cost ordinary recall?

A user's history of 6 sessions × 3 personal facts (English; the same in Chinese), 20 factual questions each
("Where do I live?", "我开什么车？"), asked with no conversation and inside three unrelated conversations (cooking,
football, debugging tests). For each question the default recipe (anchored) is compared with plain hybrid search
(``hybrid_rrf``) on the same history: the top hit holds the answer's key phrase (``top1_correct``), and how often
hybrid's top hit is missing from anchored's top 3. Written from a fresh-user trial's script (2026-12-05), which
found "Where do I live?" losing the Porto memory while the user talked about failing tests.

    python bench/unrelated_context.py       # writes bench/results/unrelated_context.json
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder

EN_SESSIONS = [
    ("s1", "2024-02-01T09:00:00Z", ["I live in Porto, in a small flat near the river.",
                                    "I work as a nurse at the children's hospital.",
                                    "My shifts are usually twelve hours long."]),
    ("s2", "2024-02-10T09:00:00Z", ["My sister Clara is getting married in June.",
                                    "I'm allergic to shellfish, so no shrimp for me.",
                                    "My favourite band is Radiohead."]),
    ("s3", "2024-03-01T09:00:00Z", ["I drive a blue Toyota Corolla from 2015.",
                                    "My dog is called Biscuit, he's a beagle.",
                                    "I run 5k every Sunday morning."]),
    ("s4", "2024-03-15T09:00:00Z", ["I'm learning Japanese on Duolingo, 200-day streak.",
                                    "My mortgage payment is 850 euros a month.",
                                    "I broke my left wrist skiing in 2019."]),
    ("s5", "2024-04-01T09:00:00Z", ["My best friend Tomás lives in Madrid.",
                                    "I'm saving up for a trip to Iceland next winter.",
                                    "I play the cello in a community orchestra."]),
    ("s6", "2024-04-20T09:00:00Z", ["My daughter Inês starts primary school in September.",
                                    "I take vitamin D every morning.", "My birthday is on the 3rd of November."]),
]
EN_QUESTIONS = [
    ("Where do I live?", "Porto"), ("What is my job?", "nurse"), ("How long are my shifts?", "twelve hours"),
    ("Who is getting married?", "Clara"), ("What am I allergic to?", "shellfish"),
    ("What's my favourite band?", "Radiohead"), ("What car do I drive?", "Toyota"),
    ("What's my dog's name?", "Biscuit"), ("How often do I run?", "5k"), ("What language am I learning?", "Japanese"),
    ("How much is my mortgage?", "mortgage"), ("Which wrist did I break?", "wrist"),
    ("Where does Tomás live?", "Tomás"), ("Where am I planning to travel?", "Iceland"),
    ("What instrument do I play?", "cello"), ("When does my daughter start school?", "Inês"),
    ("What supplement do I take?", "vitamin D"), ("When is my birthday?", "birthday"),
    ("What breed is my dog?", "beagle"), ("Who is my best friend?", "Tomás"),
]
EN_CONVERSATIONS = {
    "cooking": ["I'm making a risotto tonight.", "Should I add the parmesan at the end?",
                "Also how long do I stir it?"],
    "football": ["Did you see the Champions League final?", "The penalty shootout was insane.",
                 "Our goalkeeper saved two."],
    "coding": ["My Python tests keep failing on CI.", "The mock isn't patching the right module.",
               "Any idea how to fix the import path?"],
}
ZH_SESSIONS = [
    ("z1", "2024-02-01T09:00:00+08:00", ["我住在成都高新区，离地铁站很近。", "我在一家游戏公司做美术设计。",
                                         "每天通勤大概四十分钟。"]),
    ("z2", "2024-02-10T09:00:00+08:00", ["我哥哥明年要去加拿大读研。", "我对芒果过敏，吃了会起疹子。",
                                         "我最喜欢的歌手是周杰伦。"]),
    ("z3", "2024-03-01T09:00:00+08:00", ["我开的是一辆白色的比亚迪。", "我家的猫叫团子，是一只英短。", "我每周三晚上去打羽毛球。"]),
    ("z4", "2024-03-15T09:00:00+08:00", ["我在学吉他，已经练了半年了。", "房贷每个月还六千二。", "我前年做过阑尾炎手术。"]),
    ("z5", "2024-04-01T09:00:00+08:00", ["我最好的朋友小雨在深圳工作。", "我打算国庆节去新疆自驾。",
                                         "我老婆是中学英语老师。"]),
    ("z6", "2024-04-20T09:00:00+08:00", ["儿子下个月参加钢琴考级。", "我每天早上喝一杯豆浆。", "我的生日是十月十二号。"]),
]
ZH_QUESTIONS = [
    ("我住在哪里？", "成都"), ("我做什么工作？", "美术设计"), ("通勤多久？", "四十分钟"), ("我哥哥要去哪里读研？", "加拿大"),
    ("我对什么过敏？", "芒果"), ("我最喜欢哪个歌手？", "周杰伦"), ("我开什么车？", "比亚迪"), ("我的猫叫什么？", "团子"),
    ("我什么时候打羽毛球？", "羽毛球"), ("我在学什么乐器？", "吉他"), ("房贷每月还多少？", "房贷"), ("我做过什么手术？", "阑尾炎"),
    ("小雨在哪里工作？", "小雨"), ("国庆节去哪里玩？", "新疆"), ("我老婆做什么工作？", "英语老师"), ("儿子要考什么？", "钢琴"),
    ("我早上喝什么？", "豆浆"), ("我生日是哪天？", "十月十二"), ("我的猫是什么品种？", "英短"), ("我最好的朋友是谁？", "小雨"),
]
ZH_CONVERSATIONS = {
    "cooking": ["今晚我想做红烧肉。", "要不要先焯水？", "冰糖放多少合适？"],
    "football": ["昨晚的欧冠决赛你看了吗？", "点球大战太刺激了。", "门将扑出了两个。"],
    "coding": ["我的Python单元测试在CI上一直失败。", "mock没有patch到正确的模块。", "导入路径该怎么改？"],
}


def run_language(sessions, questions, conversations) -> dict:
    """Per conversation (and ``none``): counts over the questions (see the module doc), and the questions whose
    hybrid top hit is missing from anchored's top 3."""
    with Memory(":memory:", cache=False, embedder=eval_embedder()) as mem:
        for sid, ts, turns in sessions:
            mem.add([{"role": "user", "content": t} for t in turns], user_id="u", session_id=sid, timestamp=ts)
        out = {}
        for name, ctx in [*conversations.items(), ("none", None)]:
            st = {"questions": 0, "hybrid_top1_correct": 0, "anchored_top1_correct": 0,
                  "hybrid_top1_not_in_anchored_top3": 0, "lost": []}
            for q, key in questions:
                hybrid = mem.search(q, user_id="u", context=ctx, recipe="hybrid_rrf", limit=5)
                anchored = mem.search(q, user_id="u", context=ctx, limit=5)
                st["questions"] += 1
                st["hybrid_top1_correct"] += bool(hybrid) and key in hybrid[0].memory.text
                st["anchored_top1_correct"] += bool(anchored) and key in anchored[0].memory.text
                if hybrid and hybrid[0].memory.id not in [h.memory.id for h in anchored[:3]]:
                    st["hybrid_top1_not_in_anchored_top3"] += 1
                    st["lost"].append(q)
            out[name] = st
    return out


if __name__ == "__main__":
    t0 = time.time()
    result = {"benchmark": "unrelated_context", "recipes": ["anchored (default)", "hybrid_rrf"],
              "en": run_language(EN_SESSIONS, EN_QUESTIONS, EN_CONVERSATIONS),
              "zh": run_language(ZH_SESSIONS, ZH_QUESTIONS, ZH_CONVERSATIONS)}
    result["seconds"] = round(time.time() - t0, 1)
    for lang in ("en", "zh"):
        for name, st in result[lang].items():
            print(f"{lang} {name:<9} top-1 correct: anchored {st['anchored_top1_correct']}/{st['questions']}, "
                  f"hybrid {st['hybrid_top1_correct']}/{st['questions']}; hybrid's top hit not in anchored's top 3: "
                  f"{st['hybrid_top1_not_in_anchored_top3']} {st['lost']}")
    path = Path(__file__).parent / "results" / "unrelated_context.json"
    path.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    print(f"written {path} in {result['seconds']} s")
