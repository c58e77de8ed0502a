"""The fixed domain taxonomy used by context labels.

Every memory and every query is labelled with one or more of these domains. Each domain has a short
English and Chinese description, a few topics with example phrases (both languages; these are embedded once
and used as prototypes by the offline labeller) and a small lexicon of general domain vocabulary (never
per-test words: no prototype phrase or lexicon entry is built on an ambiguous word of the polysemy benchmark,
``anchormem.eval.polysemy``; a test checks it). Topics and intents outside the taxonomy are allowed but normalised (see :func:`norm_tag`).

| domain | covers |
|---|---|
| finance | money, banking, investing, stocks, funds, loans, insurance, taxes, currency |
| work | job, career, office, colleagues, meetings, reports, spreadsheets, management |
| technology | computers, software, programming, phones, gadgets, internet, apps, chips |
| science | mathematics, physics, chemistry, units and measurement, research |
| education | school, university, courses, exams, studying, teachers |
| health | body, illness, doctors, medicine, hospital, anatomy, injuries |
| food | cooking, eating, fruit, vegetables, restaurants, drinks, recipes, grains |
| home | house, furniture, garden, repairs, household items, rent |
| family | family members, partners, children, friends, relationships, celebrations |
| shopping | buying things, stores, clothes, fashion, accessories, watches, deals |
| travel | trips, holidays, flights, hotels, sightseeing, islands, towns and places, tourism |
| transport | cars, driving, boats and ships, sailing, trains, commuting, vehicles |
| nature | animals, birds, plants, trees, rivers, lakes, weather, seasons, outdoors |
| sports | ball games, baseball, football, fitness, running, teams, matches |
| entertainment | music, instruments, concerts, films, comics, games, nightlife, art |
| legal | law, contracts, courts, lawyers, visas, official paperwork |
| society | politics, government, history, news, military, spies, religion, associations |
| charity | donations, volunteering, public welfare, NGOs, helping people in need |
| industry | construction, machinery, manufacturing, engineering, tools, mechanical parts |
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = ["AMBIGUOUS", "Domain", "DOMAINS", "DOMAIN_NAMES", "DOMAIN_INDEX", "taxonomy_fingerprint", "norm_tag", "describe",
           "everyday_lexicon", "slot_domain", "slot_topic", "NO_DOMAIN", "identity_slot"]


@dataclass(frozen=True)
class Domain:
    name: str
    en: str
    zh: str
    topics: dict[str, tuple[str, ...]] = field(default_factory=dict)
    lexicon: tuple[str, ...] = ()


# Words with several common senses are left out of every lexicon (a deny list: it can only remove evidence): the
# embedding of the whole context decides. Words listed under two or more domains are dropped the same way, below.
# Prototypes and lexicons never use the ambiguous words of the polysemy benchmark (``anchormem.eval.polysemy``;
# a test checks it), so its held-out words are held out from the labeller too.
AMBIGUOUS: frozenset[str] = frozenset("""
    apple apples bank banks pound pounds seal seals crane cranes mole moles spring springs hood hoods deck decks
    pitcher pitchers chair chairs club clubs bow bows yard yards trunk trunks java arm arms digit digits square
    bass watch watches virus cloud clouds window windows menu mouse fund funds interest share plant plants pitch
    bar bars book books ring run drive tablet mac order ordered note notes table tables
    苹果 小米 基金 表 病毒 云 窗口 菜单 长城 黑莓 鼠标 包
""".split())


def _d(name: str, en: str, zh: str, topics: dict[str, tuple[str, ...]], lexicon: str) -> Domain:
    return Domain(name, en, zh, topics, tuple(w for w in lexicon.split() if w not in AMBIGUOUS))


DOMAINS: tuple[Domain, ...] = (
    _d("finance", "Money and personal finance: accounts, savings, investments, stocks, loans, currency.",
       "金融理财：银行、账户、存款、投资、股票、贷款、保险、汇率。", {
           "savings": ("I deposited my salary into my savings account.", "我去银行存了一笔定期存款。",
                       "The interest rate on my savings went up this month.", "信用卡账单和房贷还款都到期了。"),
           "investing": ("I bought some shares for my stock portfolio.", "我买的那只股票今天涨了。",
                         "Investors sold their bonds as inflation rose.", "这只股票的市盈率太高了，我先卖了。"),
           "loans": ("I took out a mortgage to buy the flat.", "我申请了一笔贷款，分三年还清。",
                     "The lender charged a high rate of interest on the debt."),
           "currency": ("The currency lost value against the dollar.", "人民币汇率下跌了，换外币更贵了。",
                        "The mint issued new coins and banknotes in several denominations.",
                        "The company reported a net profit of three billion dollars."),
       },
       """money account accounts deposit deposits savings saving interest loan loans mortgage lender lending
       invest investing investment investments investor investors stock stocks share shares shareholder
       portfolio dividend dividends finance financial financier salary budget tax taxes insurance credit debit
       cash currency currencies dollar dollars euro euros sterling yen yuan rmb exchange broker brokerage asset
       assets bond bonds etf ipo nasdaq equity pension retirement payment paid pay owe debt debts atm teller
       cheque cheques check checks coin coins banknote banknotes denomination denominations shilling shillings
       pence penny cent cents peso lira franc inflation liquidity profit revenue capital fiscal monetary
       economy economic price prices
       理财 银行 存款 取款 账户 利息 利率 贷款 房贷 车贷 投资 股票 股市 股份 定投 收益 收益率 分红 净值 债券
       保险 信用卡 工资 薪水 存钱 花钱 汇率 外币 美元 人民币 英镑 现金 转账 余额 理财产品 炒股 涨停 跌停 持仓 仓位
       证券 基金经理 年化 本金 定期 活期 公积金 养老金 还款 账单 支付宝 微信支付 股价 市值 大盘 抄底"""),
    _d("work", "Work and career: the job, the office, colleagues, meetings, reports, managers, the company board.",
       "工作职场：公司、上班、同事、会议、报告、老板、加班、董事会。", {
           "meetings": ("I have a meeting with my manager tomorrow.", "明天上午要和老板开会汇报进度。"),
           "reports": ("I updated the quarterly sales figures for the team.", "我把这个月的销售数据整理好发给了领导。",
                       "Excel里的公式又出错了，周报还没写完。"),
           "career": ("I got promoted at work.", "我打算跳槽去另一家公司。",
                      "She was appointed president and chief executive of the company.",
                      "He served as head of the committee and sat on the board of directors."),
       },
       """work job jobs office colleague colleagues coworker coworkers boss manager managers meeting meetings
       deadline deadlines project projects client clients report reports spreadsheet spreadsheets excel
       presentation slides promotion promoted career hire hired hiring interview resume employee employees
       employer company team quarterly kpi board committee ceo director directors executive appointed
       vice-president secretary
       工作 上班 下班 加班 同事 老板 领导 经理 会议 开会 项目 客户 报表 表格 周报 月报 汇报 绩效 升职 跳槽 面试 简历
       公司 部门 主管 董事长 主席 董事会 出差 考勤 年终奖 工位 excel 数据表 统计表 填表"""),
    _d("technology", "Technology: computers, software, programming, smartphones, gadgets, the internet, apps.",
       "科技数码：电脑、软件、编程、手机、数码产品、网络、应用、芯片。", {
           "devices": ("I bought a new smartphone and a laptop.", "我新买的手机是最新款，拍照很清楚。",
                       "The tablet's battery drains fast after the system update."),
           "software": ("I am learning to program in Python.", "这个软件的界面一直卡死，需要重装。",
                        "The open source library is written in C++ and runs on Linux.",
                        "My laptop got malware from an email attachment."),
           "internet": ("We moved our servers to a hosting provider.", "公司的数据都存在服务器上。",
                        "The company launched a new operating system and an online store for apps."),
       },
       """computer computers laptop laptops pc software hardware app apps application applications program
       programs programming programmer code coding developer developers python javascript compiler server
       servers internet online website web wifi bluetooth phone phones smartphone smartphones iphone ipad ipod
       android macbook ios itunes gadget gadgets chip chips processor cpu gpu tech technology device devices
       update upgrade download downloads install browser email database keyboard screen display battery charger
       usb google microsoft samsung xiaomi huawei startup ai algorithm digital pixel camera linux windows-based
       framework library api sdk xml html open-source opensource interface user-interface
       电脑 笔记本 软件 硬件 程序 编程 代码 开发 服务器 云计算 云服务 云盘 网络 网站 互联网 手机 智能手机 平板 芯片 处理器
       系统 更新 升级 下载 安装 应用 数码 蓝牙 充电 电池 屏幕 键盘 鼠标 浏览器 数据库 算法 人工智能 科技 苹果手机 iphone
       小米手机 华为 安卓 电脑病毒 杀毒 木马 黑客 界面 窗口 菜单栏 弹窗 app 微信 数据线 耳机 相机 像素"""),
    _d("science", "Science and mathematics: numbers, units and measurement, physics, chemistry, research.",
       "科学与数学：数字、单位与测量、物理、化学、科研。", {
           "mathematics": ("The equation has two real solutions.", "这道数学题要用到方程和公式。"),
           "measurement": ("The SI unit of mass is the kilogram.", "一英里大约等于一点六公里。",
                           "The container holds about five gallons and weighs twenty kilograms."),
           "research": ("The lab published its physics research results.", "实验室的化学实验数据出来了。",
                        "The chemist measured the amount of the compound in the solution."),
       },
       """science scientific scientist scientists math mathematics mathematical number numbers numeral integer
       equation formula theorem physics chemistry chemical biology molecule molecules atom atoms unit units
       measure measured measurement mass weight weigh weighs weighed kilogram kilograms kg gram grams ounce
       ounces ton tons tonne tonnes gallon gallons inch inches meter meters metre metres mile miles si
       experiment laboratory lab research researcher hypothesis decimal binary calculate calculation compound
       reaction acid
       科学 数学 数字 数位 整数 平方 公式 方程 定理 物理 化学 生物 分子 原子 单位 测量 质量 重量 公斤 千克 克 实验 实验室 科研 研究 计算 小数"""),
    _d("education", "Education: school, university, courses, classes, exams, homework, teachers and students.",
       "教育学习：学校、大学、课程、考试、作业、老师、学生。", {
           "school": ("My son started at a new school this term.", "孩子这学期的数学老师换了。",
                      "The university offers degrees in engineering and law."),
           "study": ("I am preparing for the final exam.", "我报了一个英语培训班，每周上两次课。"),
       },
       """school schools university universities college campus class classes course courses lecture lectures
       exam exams test homework student students teacher teachers professor tutor study studying degree
       semester term grade grades scholarship thesis pupil pupils
       学校 大学 学院 课程 上课 考试 作业 学生 老师 教授 学习 复习 学期 成绩 毕业 论文 培训 培训班 考研 留学 奖学金"""),
    _d("health", "Health and the body: illness, doctors, hospital, medicine, injuries, symptoms.",
       "健康医疗：身体、生病、医生、医院、药、受伤、症状、感染。", {
           "illness": ("I caught the flu and had a fever for three days.", "最近流感很厉害，我发烧了三天。",
                       "The patient was diagnosed with a rare disease."),
           "body": ("I hurt my shoulder and my fingers were swollen.", "我的手腕受伤了，医生让我拍片子。"),
           "medical care": ("I have a doctor's appointment at the hospital.", "我去医院做了体检，需要吃药。"),
       },
       """health healthy doctor doctors hospital clinic nurse medicine medicines medication pill pills drug drugs
       sick ill illness disease diseases fever flu cold cough infection infected vaccine symptom symptoms pain
       injury injured hurt broken surgery therapy diet allergy allergic blood heart body leg legs hand hands
       finger fingers toe toes skin bone bones muscle muscles dentist tooth teeth patient patients
       健康 医生 医院 门诊 护士 药 吃药 药物 生病 感冒 发烧 咳嗽 流感 感染 疫苗 症状 疼 受伤 手术 体检 过敏
       身体 手臂 胳膊 手指 腿 皮肤 骨头 牙 牙医 挂号 住院 治疗 康复 病毒感染 核酸 戴口罩"""),
    _d("food", "Food and drink: eating, cooking, fruit and vegetables, grains, meals, restaurants, recipes.",
       "饮食美食：吃饭、做饭、水果、蔬菜、粮食、早餐、餐厅、菜谱、饮料。", {
           "meals": ("I eat fruit every morning with breakfast.", "我每天早餐吃一个橙子。",
                     "We had dinner at a new Mexican restaurant."),
           "cooking": ("I cooked rice porridge with pumpkin.", "我熬了一锅粥，加了红枣。", "这家餐厅新加了几道川菜。",
                       "The cake is made with flour, sugar and butter and baked in the oven."),
           "groceries": ("I bought fresh fruit and vegetables at the market.", "超市的水果很新鲜，买了一袋橘子。",
                         "The orchard grows pears, peaches and cherries."),
           "drinks": ("The wine is made from grapes and aged in oak barrels.", "他喝了一杯咖啡提神。"),
       },
       """food foods eat eating ate meal meals breakfast lunch dinner snack cook cooking cooked recipe recipes
       kitchen restaurant restaurants cafe dish dishes fruit fruits banana orange pear cherry cherries peach
       vegetable vegetables grain rice millet porridge bread meat chicken beef pork fish sauce soup salad dessert
       cake pie juice coffee tea wine beer drink drinks delicious tasty taste sweet sour spicy flavor flavored
       chef grocery groceries bake baked baking orchard juicy cider liqueur
       吃 吃饭 早餐 早饭 午饭 晚饭 晚餐 做饭 烹饪 菜谱 厨房 餐厅 饭店 点菜 菜 水果 香蕉 橙子 梨 蔬菜 粮食 大米
       小米粥 熬粥 粥 面包 肉 鸡肉 牛肉 鱼 汤 沙拉 甜点 蛋糕 果汁 咖啡 茶 酒 饮料 好吃 美味 口味 酸 甜 辣 厨师 食材
       超市 果园 红富士 削皮 榨汁 火锅 外卖 零食 营养"""),
    _d("home", "Home and household: the house, rooms, furniture, the garden, kitchenware, repairs, rent.",
       "家居生活：房子、房间、家具、院子、厨具、装修、维修、房租、家务。", {
           "furniture": ("I bought a comfortable sofa and a desk for my study.", "客厅新买了一套沙发和餐桌。"),
           "house": ("We renovated the kitchen and the garden of our house.", "家里的窗户漏风，要找人来修。",
                     "I keep the glasses, jugs and plates in the kitchen cupboard."),
           "chores": ("I mowed the lawn and cleaned the garage.", "周末打扫卫生，把客厅擦了一遍。"),
       },
       """home house houses apartment flat room rooms bedroom kitchen bathroom living furniture sofa couch desk
       bed lamp garden backyard lawn porch patio fence roof door doors wall renovate renovation repair repairs
       plumber rent landlord tenant neighbor neighbours chores cleaning laundry jug jugs vase cupboard shelf
       kitchenware
       家 房子 住 公寓 房间 卧室 客厅 厨房 卫生间 家具 椅子 沙发 桌子 床 灯 花园 院子 阳台 窗户 窗帘 门 墙 装修 维修 房租
       房东 租房 邻居 家务 打扫 洗衣 搬家 物业 水管 漏水 纱窗 擦窗户"""),
    _d("family", "Family and relationships: parents, partner, children, friends, birthdays, weddings, social life.",
       "家庭与人际：父母、伴侣、孩子、朋友、生日、婚礼、聚会。", {
           "family": ("My mother is visiting us next week.", "周末带孩子回老家看爸妈。"),
           "relationships": ("I went to my best friend's wedding.", "我和女朋友在一起三年了。",
                             "He married his wife in 1990 and they had three children."),
       },
       """family mother father mom dad parent parents son daughter child children kid kids baby wife husband
       partner girlfriend boyfriend brother sister grandma grandpa grandmother grandfather friend friends
       wedding birthday anniversary relative relatives cousin uncle aunt married marriage
       家人 家庭 妈妈 爸爸 父母 儿子 女儿 孩子 宝宝 老婆 老公 妻子 丈夫 女朋友 男朋友 哥哥 姐姐 弟弟 妹妹 爷爷 奶奶
       外婆 朋友 婚礼 生日 纪念日 亲戚 闺蜜"""),
    _d("shopping", "Shopping and fashion: buying things, stores, deals, clothes, accessories, watches, gifts.",
       "购物与时尚：买东西、商场、打折、衣服、配饰、礼物。", {
           "fashion": ("I bought a new wristwatch with a leather strap.", "我买了一条新裙子和一双皮鞋。",
                       "She wore a wool coat, a hat and a scarf."),
           "buying": ("I ordered a gift online and it was on sale.", "双十一在网上买了很多打折的东西。",
                      "The retailer sells its products in stores and online."),
       },
       """shop shopping store stores mall buy bought purchase purchased sale discount deal deals coupon price
       cheap expensive gift gifts clothes clothing shirt dress shoes jacket coat hat cap scarf fashion brand
       accessory accessories wristwatch strap jewelry necklace bag handbag wallet retailer retailers
       购物 买 购买 下单 网购 淘宝 京东 商场 超市 打折 优惠 便宜 贵 价格 礼物 衣服 裤子 裙子 鞋 外套 帽子 围巾 时尚 品牌
       配饰 手表 腕表 表带 表盘 机械表 石英表 戒指 项链 钱包 快递 退货"""),
    _d("travel", "Travel, places and tourism: trips, holidays, flights, hotels, sightseeing, islands, towns.",
       "旅行与地方：旅游、度假、机票、酒店、景点、海岛、城镇、名胜古迹。", {
           "trips": ("We spent our vacation on a tropical island.", "国庆假期我们去北京故宫玩了。",
                     "I booked a hotel near the old town for the trip."),
           "flights": ("My flight to Tokyo was delayed by two hours.", "我订了下个月去海南的机票。"),
           "places": ("The village is located in the north of the province, near the coast.",
                      "这个小镇在省城的北边，靠近海边。"),
       },
       """travel traveling travelled trip trips vacation holiday holidays tour tourist tourists tourism flight
       flights airport hotel hotels hostel booking booked passport visa sightseeing island islands beach resort
       landmark museum abroad itinerary luggage backpack cruise village villages town towns province
       archipelago
       旅行 旅游 度假 假期 出游 机票 航班 机场 酒店 民宿 景点 景区 门票 导游 护照 签证 海岛 海边 名胜 古迹 长城 故宫 爬长城
       自由行 跟团 攻略 行李 游客 风景"""),
    _d("transport", "Transport and vehicles: cars, driving, engines, boats and ships, sailing, trains, commuting.",
       "交通出行：汽车、开车、发动机、船、航海、火车、通勤。", {
           "cars": ("I checked the engine and the tires of my car.", "我把行李放进了汽车里。",
                    "我买了一辆国产SUV，油耗还行。"),
           "boats": ("The ship sailed out of the harbor with its crew.", "We stood at the front of the boat watching the waves."),
           "commuting": ("I take the train to work every day.", "每天坐地铁通勤一个小时。"),
       },
       """car cars vehicle vehicles drive driving driver engine tire tires tyre wheel brake brakes windshield
       bumper suv truck bus buses train trains subway metro taxi commute commuting parking garage mechanic fuel
       gas petrol boat boats ship ships sail sailing sailor sailors yacht mast stern hull navy vessel port
       harbor ferry motorcycle bike bicycle automobile automotive sedan
       汽车 车 开车 司机 发动机 引擎盖 后备箱 轮胎 刹车 车辆 卡车 公交 火车 高铁 地铁 出租车 打车 通勤 停车 加油 油耗 船
       帆船 航海 甲板 船头 码头 港口 摩托车 自行车 4s店 保养 驾照 试驾 越野车 suv"""),
    _d("nature", "Nature and animals: wildlife, birds, plants, trees, rivers, lakes, mountains, weather.",
       "自然与动物：野生动物、鸟类、宠物、植物、树木、河流、湖泊、山、天气、季节。", {
           "outdoors": ("We had a picnic by the river.", "我们沿着河边散步，看到很多柳树。",
                        "The river flows through a valley into the lake."),
           "animals": ("Birds such as ducks, geese and herons live in the wetlands.", "The species is found in forests across Asia.",
                       "动物园里有熊猫、老虎和很多鸟。"),
           "weather": ("It is cloudy and it might rain.", "今天下了一场大雨，气温降了不少。"),
       },
       """nature natural animal animals wildlife bird birds pet pets dog dogs cat cats fish plant plants tree trees
       forest flower flowers river rivers riverbank lake lakes pond stream creek water shore mountain mountains
       hill valley marsh wetland wetlands sea ocean coast beach rock rocks weather rain snow sun cloud clouds sky
       wind storm season seasons summer autumn winter bloom blossom hiking camping zoo species genus mammal
       mammals habitat
       自然 动物 野生 鸟 鸟类 宠物 狗 猫 植物 树 树木 森林 花 河 河流 河岸 河边 湖 湖边 池塘 小溪 山 山谷 湿地 海 海边 大海
       天气 下雨 下雪 晴天 云朵 乌云 天空 刮风 季节 春天 夏天 秋天 冬天 开花 徒步 露营 动物园 果树 鼹鼠"""),
    _d("sports", "Sports and fitness: baseball, football, basketball, tennis, running, gym, teams, matches.",
       "运动健身：棒球、足球、篮球、网球、跑步、健身房、球队、比赛。", {
           "team sports": ("Our team won the football match last night.", "昨晚的足球比赛我们队赢了。",
                           "He played professional baseball for twelve seasons."),
           "fitness": ("I go to the gym three times a week.", "我每天早上跑步五公里。"),
       },
       """sport sports game games match matches team teams player players coach league baseball softball inning
       innings batter football soccer basketball tennis golf hockey cricket volleyball swim swimming run running
       marathon gym workout fitness yoga cycling score scored win won tournament championship olympic olympics
       athlete athletes
       运动 体育 比赛 球队 球员 教练 联赛 棒球 投手 足球 篮球 网球 羽毛球 乒乓球 高尔夫 游泳 跑步 马拉松 健身 健身房 瑜伽
       骑行 射箭 进球 赢 冠军 奥运"""),
    _d("entertainment", "Entertainment and the arts: music, instruments, singers, concerts, films, comics, games, nightlife.",
       "娱乐与艺术：音乐、乐器、歌手、演唱会、电影、漫画、游戏、酒吧。", {
           "music": ("I play guitar in a band.", "The singer released a new album that topped the charts.",
                     "我周末去听了一场演唱会。"),
           "screen": ("We watched a superhero movie based on a comic book.", "我最近在追一部电视剧。"),
           "nightlife": ("We went dancing at a disco downtown.", "周五晚上和朋友去酒吧喝酒。"),
       },
       """music song songs singer singers album albums band bands concert concerts guitar violin cello piano drums
       instrument instruments orchestra choir opera jazz rock pop dj movie movies film films cinema tv series
       show shows comic comics superhero novel novels video gaming art painting theater theatre dance dancing
       disco party
       音乐 歌 唱歌 歌手 专辑 乐队 演唱会 吉他 贝斯 小提琴 钢琴 鼓 乐器 电影 电视剧 综艺 漫画 动漫 小说 书 游戏 画画 展览 话剧
       跳舞 酒吧 夜店 蹦迪 追剧 剧"""),
    _d("legal", "Law and paperwork: contracts, courts, lawyers, lawsuits, police, visas, official documents.",
       "法律与手续：合同、法院、律师、诉讼、警察、签证、证件办理。", {
           "law": ("I signed the rental contract with my lawyer.", "我们的合同纠纷要上法院了。",
                   "The court ruled that the law was unconstitutional."),
           "paperwork": ("I renewed my passport and driver's licence.", "去派出所办了身份证。",
                         "The certificate must be signed and stamped by a notary."),
       },
       """law legal lawyer lawyers attorney court courts judge lawsuit sue sued contract contracts agreement
       police crime criminal fine fines license licence permit stamp notary document documents certificate
       rights regulation
       法律 律师 法院 法官 起诉 诉讼 合同 协议 警察 派出所 犯罪 罚款 执照 许可证 公章 盖章 公证 证件 证书 身份证 户口 签字"""),
    _d("society", "Society, history and politics: government, news, history, war, spies, religion, associations.",
       "社会时事：政府、政治、新闻、历史、战争、间谍、宗教、社团协会。", {
           "politics": ("The government announced new policies.", "新闻里说政府出台了新政策。",
                        "He served as a member of parliament and later as minister."),
           "history": ("The castle was built in the twelfth century.", "The spy worked for foreign intelligence during the cold war."),
           "associations": ("I joined the local chess society as a member.", "我加入了学校的摄影社团。",
                            "The association was founded in 1901 and has five hundred members."),
       },
       """government politics political policy election vote president minister parliament law news history
       historical war army military soldier soldiers spy spies espionage agent agents intelligence kgb cia
       religion church temple king queen emperor empire dynasty century ancient castle weapon weapons
       association associations member members society community founded
       政府 政治 政策 选举 总统 新闻 历史 朝代 古代 战争 军队 士兵 间谍 情报 特工 宗教 寺庙 教堂 皇帝 社团 协会 会员 社会 社区"""),
    _d("charity", "Charity and public welfare: donations, volunteering, foundations for good causes, NGOs.",
       "公益慈善：捐款、志愿者、慈善机构、公益项目、帮助困难群体。", {
           "donations": ("I donated to a children's charity.", "我给希望工程捐了一千块。",
                         "这个慈善项目专门资助山区的孩子上学。"),
           "volunteering": ("I volunteer at the shelter on weekends.", "周末我去养老院做志愿者。"),
       },
       """charity charities charitable donate donated donation donations donor volunteer volunteers volunteering
       nonprofit non-profit ngo foundation fundraiser fundraising relief welfare needy homeless poverty
       philanthropy
       公益 慈善 捐款 捐赠 捐助 募捐 志愿者 义工 基金会 慈善基金 公益基金 助学 资助 扶贫 救助 爱心 山区 贫困 希望工程 红十字会 筹款"""),
    _d("industry", "Industry and engineering: construction sites, machines, factories, tools, mechanical parts.",
       "工业与工程：工地、机器、工厂、工具、机械零件。", {
           "construction": ("Workers lifted the steel beams at the building site.", "工地上的工人在浇水泥。"),
           "machinery": ("The mechanic replaced a worn part of the machine.", "工厂的机器需要换一个新零件。",
                         "The factory makes tractors, trucks and heavy equipment."),
       },
       """industry industrial construction builder builders machine machines machinery factory factories
       manufacturing manufacture manufacturer engineer engineering tool tools equipment steel beam beams concrete
       welding mechanical valve pump gasket bolt screws gear gears turbine hydraulic tractor tractors
       工业 工程 工地 施工 建筑 塔吊 起重机 吊车 机器 机械 设备 工厂 车间 制造 零件 配件 工程师 钢筋 水泥 焊接 阀门 弹簧 密封圈 螺丝 齿轮"""),
)

def _drop_shared(domains: tuple[Domain, ...]) -> tuple[Domain, ...]:
    seen: dict[str, int] = {}
    for d in domains:
        for w in set(d.lexicon):
            seen[w] = seen.get(w, 0) + 1
    return tuple(Domain(d.name, d.en, d.zh, d.topics, tuple(dict.fromkeys(w for w in d.lexicon if seen[w] == 1)))
                 for d in domains)


DOMAINS = _drop_shared(DOMAINS)
DOMAIN_NAMES: tuple[str, ...] = tuple(d.name for d in DOMAINS)
DOMAIN_INDEX: dict[str, int] = {n: i for i, n in enumerate(DOMAIN_NAMES)}  # domain name → its column
_BY_NAME = {d.name: d for d in DOMAINS}


@lru_cache(maxsize=1)
def everyday_lexicon() -> dict[str, tuple[str, ...]]:
    """Extra lexicon words per domain (name -> words, English and Chinese) from
    ``anchormem/data/lexicon_everyday.json``: the vocabulary of short personal turns ("pay the deposit", 房租,
    跑步) that the domain lexicons above lack. Read on the first call (no I/O at import). A word already in any
    domain's lexicon keeps that domain; a word the file lists under two domains is left out."""
    from importlib import resources

    raw = json.loads(resources.files("anchormem").joinpath("data", "lexicon_everyday.json").read_text("utf-8"))
    known = {w for d in DOMAINS for w in d.lexicon}
    pairs = [(dom, w.strip().lower()) for lang in ("en", "zh") for dom, words in raw[lang].items() for w in words]
    count: dict[str, int] = {}
    for _, w in dict.fromkeys(pairs):
        count[w] = count.get(w, 0) + 1
    out: dict[str, list[str]] = {}
    for dom, w in dict.fromkeys(pairs):
        if dom not in DOMAIN_INDEX:
            raise ValueError(f"lexicon_everyday.json: unknown domain {dom!r}")
        if w and w not in known and count[w] == 1:
            out.setdefault(dom, []).append(w)
    return {dom: tuple(ws) for dom, ws in out.items()}


def describe(name: str) -> Domain:
    """The :class:`Domain` called ``name``. Raises KeyError."""
    return _BY_NAME[name]


def taxonomy_fingerprint() -> str:
    """A short hash of every prototype text: the key of the prototype-vector cache."""
    data = [(d.name, d.en, d.zh, sorted(d.topics.items())) for d in DOMAINS]
    return hashlib.sha1(json.dumps(data, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def norm_tag(value: str | None) -> str | None:
    """Normalise a free topic/intent: lower-case, trimmed, inner whitespace collapsed; empty → None."""
    if value is None:
        return None
    v = " ".join(str(value).split()).lower()
    return v or None


# A fact's slot names its domain outright; the write-side labeller takes it as a strong hint (context/anchor.py)
_SLOT_DOMAINS = {"home_city": "home", "address": "home", "hometown": "home", "employer": "work",
                 "occupation": "work", "diet": "food", "allergy": "health", "bank_card": "finance",
                 "iban": "finance", "salary": "finance", "income": "finance", "passport": "legal",
                 "id_number": "legal"}
_COUNT_DOMAINS = {"cat": "nature", "dog": "nature", "pet": "nature", "fish": "nature", "bird": "nature",
                  "rabbit": "nature", "hamster": "nature", "horse": "nature", "car": "transport", "bike": "transport",
                  "house": "home"}


_SLOT_TOPICS = {"home_city": "residence", "address": "residence", "hometown": "hometown", "employer": "employer",
                "occupation": "occupation", "diet": "diet", "allergy": "allergies", "count": "pets"}


def slot_topic(attribute: str | None) -> str | None:
    """A topic tag for a fact slot's label (``home_city`` -> residence), or None."""
    if not attribute:
        return None
    head, _, key = attribute.partition(":")
    if head == "count" and slot_domain(attribute) != "nature":
        return {"car": "vehicles", "bike": "vehicles", "house": "property"}.get(key, "children")
    return _SLOT_TOPICS.get(head)


#: the hint for a turn that belongs to no domain (:func:`identity_slot`): its labels are left empty
NO_DOMAIN = "-"
_IDENTITY_SLOTS = frozenset({"name", "phone", "email", "age", "nickname"})


def identity_slot(attribute: str | None) -> bool:
    """A fact slot that identifies the speaker and says nothing of a domain (``name``, ``phone``, ``email``,
    ``age``): "My phone number is …" is neither technology nor anything else."""
    return bool(attribute) and attribute.partition(":")[0] in _IDENTITY_SLOTS


def slot_domain(attribute: str | None) -> str | None:
    """The taxonomy domain a fact slot belongs to (``home_city`` -> home, ``allergy:peanut`` -> health,
    ``count:cat`` -> nature, ``count:child`` -> family), or None when the slot does not say."""
    if not attribute:
        return None
    head, _, key = attribute.partition(":")
    if head == "count":
        return _COUNT_DOMAINS.get(key, "family")
    if head.endswith("_name"):
        return _COUNT_DOMAINS.get(head[: -len("_name")])
    return _SLOT_DOMAINS.get(head)

