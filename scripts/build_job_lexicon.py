"""Build the occupation lexicon of ``data/lang/<lang>/jobs.json`` (``heads`` / ``titles``) from Faker's job lists.

    pip download faker==40.54.0 --no-deps -d /tmp/faker
    python scripts/build_job_lexicon.py /tmp/faker/faker-40.54.0-py3-none-any.whl

Source: the ``job`` provider of Faker (MIT licence, https://pypi.org/project/Faker/): ``providers/job/__init__.py``
(about 640 English job titles, the UK/US occupational lists Faker draws on) and ``providers/job/zh_CN/__init__.py``
(about 1000 Chinese job titles from a job board's function list). The English lexicon is the *head noun* of each
title (the last word before a comma: "Accountant, chartered" -> "accountant", "Academic librarian" -> "librarian");
the Chinese one is every title part of two to eight characters ("高级软件工程师", "店长"). Only these two keys are
rewritten; the hand-kept keys of the file (heads_extra, suffixes, cues...) stay as they are. Not run by the package:
the package reads the JSON only.
"""

from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "src" / "anchormem" / "data" / "lang"
EN = "faker/providers/job/__init__.py"
ZH = "faker/providers/job/zh_CN/__init__.py"


def _strings(src: str) -> list[str]:
    body = src.split("jobs", 1)[1]
    return re.findall(r'"([^"\n]+)"', body)


def en_heads(titles: list[str]) -> list[str]:
    heads = set()
    for t in titles:
        base = re.split(r"[,(]", t)[0].strip()
        for w in base.split()[-1:]:
            for part in w.split("/"):
                if re.fullmatch(r"[a-z-]{3,}", part.casefold()):
                    heads.add(part.casefold())
    return sorted(heads)


def zh_titles(titles: list[str]) -> list[str]:
    out = set()
    for t in titles:
        for part in re.split(r"[/（）()、，,]", t):
            part = part.strip()
            if re.fullmatch(r"[\u4e00-\u9fff]{2,8}", part) and part not in ("其他", "其它"):
                out.add(part)
    return sorted(out, key=lambda s: (len(s), s))


def main(wheel: str) -> None:
    with zipfile.ZipFile(wheel) as z:
        en = _strings(z.read(EN).decode("utf-8"))
        zh = _strings(z.read(ZH).decode("utf-8"))
    for lang, key, values in (("en", "heads", en_heads(en)), ("zh", "titles", zh_titles(zh))):
        path = DATA / lang / "jobs.json"
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        data[key] = values
        data["source"] = f"{key}: built by scripts/build_job_lexicon.py from {Path(wheel).name} " \
            "(Faker job provider, MIT)"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(path, key, len(values))


if __name__ == "__main__":
    main(sys.argv[1])
