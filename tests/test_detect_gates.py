"""The scene gate of the change readers, one name in two scripts, and typed values read by facts.values."""

from anchormem.facts.keys import same_value
from anchormem.facts.names import same_name, skeleton
from anchormem.facts.relative import clause_values, units_of
from anchormem.facts.stance import scene
from anchormem.facts.subjects import clause_subject


def test_one_name_in_two_scripts_by_sound():
    assert skeleton("Bristol") == "BLSTL" and skeleton("布里斯托") == "BLST"
    assert same_name("Bristol", "布里斯托") and same_name("多伦多", "Toronto") and same_name("Berlin", "柏林")
    assert not same_name("Berlin", "巴黎") and not same_name("Paris", "布里斯托") and not same_name("Austin", "字节跳动")
    assert not same_name("Bristol", "Bristol")  # one script
    # a name translated by meaning (data: translated_names) or spelled as its pinyin is one name too
    assert same_name("Tokyo", "东京") and same_name("香港", "Hong Kong") and same_name("Hangzhou", "杭州")
    assert same_name("Xi'an", "西安") and not same_name("Kyoto", "东京") and not same_name("Beijing", "南京")
    assert same_value("home_city", "东京", "Tokyo") and not same_value("home_city", "Osaka", "东京")
    assert same_value("home_city", "Bristol", "布里斯托") and not same_value("home_city", "Bristol", "柏林")


def test_scenes_that_state_no_present_fact():
    assert scene("back in college I lived in Ithaca, it snowed from October to April") == "past_time"
    assert scene("大学那会儿我在哈尔滨待了四年") == "past_time"
    assert scene("saw a two-bed in Hoboken listed at $2,600") == "observed"
    assert scene("My neighbour's rent went up") == "others"
    assert scene("I live in Leeds") == ""
    # a short stay is no home: "staying with my parents", 这周住在…
    assert scene("这周住在西安我爸妈家，帮他们装修。", others=False) == "visit"
    assert scene("at my sister's in Leeds for a few days", others=False) == "visit"
    assert scene("Just arrived in Edinburgh, staying with Fiona until we find a place", others=False) == ""
    assert scene("我上周搬到西安了", others=False) == ""


def test_a_short_stay_retires_no_home(tmp_path):
    from datetime import datetime, timezone

    from anchormem import Memory

    with Memory(str(tmp_path / "m.db"), embedder="hash") as m:
        m.add("I live in Beijing and work at Tencent.", user_id="u", timestamp=datetime(2026, 8, 1, tzinfo=timezone.utc))
        evs = m.add("这周住在西安我爸妈家，帮他们装修。", user_id="u", timestamp=datetime(2026, 8, 8, tzinfo=timezone.utc))
        assert [e.event for e in evs] == ["ADD"] and evs[0].memory.fact is None
        homes = [x.fact.value for x in m.get_all(user_id="u") if x.fact and x.fact.attribute == "home_city"]
    assert homes == ["Beijing"]


def test_someone_elses_move_is_no_unit_of_the_speaker():
    assert clause_subject("我闺蜜搬去西安了") == "闺蜜" and clause_subject("我roommate搬去Tokyo了") == "roommate"
    assert clause_subject("我搬去Tokyo了") == ""
    assert units_of("saw a two-bed in Hoboken listed at $2,600, that's insane pricing honestly", []) == []
    assert [u.text for u in units_of("Landlord bumped it to 1,100", [])] == ["Landlord bumped it to 1,100"]


def test_values_of_a_clause_come_from_the_one_parser():
    assert [(v.kind, v.value, v.unit) for v in clause_values("My rent is 8500 HKD a month.")] == \
        [("amount", "8500 HKD a month", "money")]
    assert [(v.kind, v.value, v.unit) for v in clause_values("long run is twelve km now")] == \
        [("amount", "twelve km", "distance")]
    assert [v.kind for v in clause_values("我是一名护士。")] == ["job"] and clause_values("先歇两个月再说。") == []
    assert clause_values("3 times a week") == [] and [v.kind for v in clause_values("升到L4了")] == ["name"]
    assert [(v.kind, v.value) for v in clause_values("我的salary是30k一个月。")] == [("amount", "30k一个月")]
