"""The strong AI: situations a player would recognise, legality, determinism, and that it beats standard."""

import math

import pytest

from kwx.engine.actions import Action
from kwx.engine.ai import Observation, choose, decide, observe
from kwx.engine.ai_strong import TableModel
from kwx.engine.analysis import Meld
from kwx.engine.hand import HandState
from kwx.engine.rules import RuleSet
from kwx.engine.simulate import simulate
from kwx.engine.tiles import Tile, parse_tile, parse_tiles, to_counts
from kwx.engine.wall import wall_from_seed
from tests.support.hands import deal, play


def _obs(hand: str, legal: list[Action], seen: str = "", **kw) -> Observation:
    counts = to_counts(parse_tiles(hand))
    visible = list(counts)
    for t in parse_tiles(seen) if seen else ():
        visible[t] += 1
    kw.setdefault("discards", {0: (), 1: (), 2: ()})
    return Observation(seat=0, legal=legal, counts=counts, visible=visible, **kw)


def _discards(hand: str) -> list[Action]:
    return [Action(0, "discard", t) for t in sorted(set(parse_tiles(hand)))]


def _with_liangdao(hand: str, tiles: str) -> list[Action]:
    return _discards(hand) + [Action(0, "liangdao", t) for t in parse_tiles(tiles)]


def test_does_not_feed_a_declared_wait_when_a_safe_tile_exists():
    # 5s would leave the best shape, but seat 1 has declared 亮倒 on 5s/8s: feeding it is 包胡 (double pay).
    hand = "123456789p11s5s7z7z"
    obs = _obs(hand, _discards(hand), liangdao_waits={1: (parse_tile("5s"), parse_tile("8s"))}, wall_remaining=30)
    assert choose(obs, "strong").tile != parse_tile("5s")


def test_does_not_give_a_declared_hand_its_kong():
    # Two dead dragons to throw: 发 and 白 are equally useless here (every other copy is out). Seat 1's shown
    # hand holds three 发: our 发 would be its 直杠 (2 from us) and a free replacement draw at its 3s/6s.
    hand = "12p45p78p23s67s1s1s5z6z"
    shown = to_counts(parse_tiles("6z6z6z234p789p4s5s7z7z"))
    obs = _obs(hand, _discards(hand), seen="5z5z5z6z6z6z7z7z234p789p4s5s", wall_remaining=30,
               liangdao_waits={1: (parse_tile("3s"), parse_tile("6s"))}, shown_hands={1: shown})
    assert choose(obs, "strong").tile == parse_tile("5z")
    obs.shown_hands = {}  # without the shown hand the two are alike, and 发 (first in tile order) goes
    assert choose(obs, "strong").tile == parse_tile("6z")


def test_does_not_plan_on_throwing_a_tile_a_declared_hand_waits_on():
    # Seat 2 has declared on 5s/8s, so our lone 8s can never leave the hand. Throwing 9p would keep 1-2s and
    # count on letting 8s go next; the 5-9p run keeps room to build around the 8s, so the weak 1-2s edge goes.
    hand = "123p56789p12s456s8s"
    obs = _obs(hand, _discards(hand), liangdao_waits={2: (parse_tile("5s"), parse_tile("8s"))}, wall_remaining=33)
    assert choose(obs, "strong").tile == parse_tile("1s")


def test_keeps_a_triplet_whose_last_tile_is_live():
    # 666s may still become a kong (a 暗杠 is 2 from each opponent, a 直杠 2 from the discarder): a lone tile goes
    # (5p: a middle tile is a wait other players seldom throw). Once the fourth 6s is on the table the triplet is
    # only three tiles, and breaking it for seven pairs (22p 44p 白白 发发 already) is the better plan.
    hand = "22p445p2s666s8s5z5z6z6z"
    assert choose(_obs(hand, _discards(hand), wall_remaining=37), "strong").tile == parse_tile("5p")
    assert choose(_obs(hand, _discards(hand), seen="6s", wall_remaining=37), "strong").tile == parse_tile("6s")


def test_throws_a_lone_dragon_before_breaking_a_connected_shape():
    # One tile from ready whether 白 or an 8p of 7889p goes, and one draw ahead the two look alike (keeping 白
    # keeps a single wait on a tile players throw). Further ahead a lone 白 adds nothing and 7889p does: 白 goes.
    hand = "123p7889p2345s78s5z"
    obs = _obs(hand, _discards(hand), seen="1p1p2p4p5p6p8p1s2s3s3s7s7s9s6z6z7z", wall_remaining=36)
    assert choose(obs, "strong").tile == parse_tile("5z")


def test_keeps_pairs_that_a_pung_can_complete_over_a_gap_shape():
    # One tile from ready either way. Throwing 9s breaks the 99s pair to keep the 1-3s gap; throwing 1s keeps three
    # pairs (33p 99s 中中). A gap waits on our own draw of its one tile, while a pair also becomes a triplet by a
    # 碰 of either opponent's discard (there is no 吃), so the pairs come sooner: 1s goes.
    hand = "335678p135899s7z7z"
    assert choose(_obs(hand, _discards(hand), seen="1p", wall_remaining=43), "strong").tile == parse_tile("1s")


def test_waits_concealed_on_a_tile_players_throw():
    # Ready either way, a single wait on 白 or on 5s, three of each unseen and 1 fan each. Players throw lone
    # dragons far more often than middle tiles (which they keep), so a concealed hand waits on 白: 5s goes.
    hand = "123p456p789p123s5s7z"
    assert choose(_obs(hand, _discards(hand), wall_remaining=30), "strong").tile == parse_tile("5s")


def test_reads_what_a_declared_hand_would_cost_from_what_it_shows():
    # A declared 清一色 costs far more than a plain hand when it wins, so beating it to the win is worth more.
    # A 暗杠 hides tiles that change the fan: then the hand's fan is not read at all.
    flush = to_counts(parse_tiles("1112345678999p"))
    plain = to_counts(parse_tiles("123p456p789s23s5z5z"))
    table = TableModel(_obs("123p", [], liangdao_waits={1: tuple(range(9))}, shown_hands={1: flush},
                        meld_counts={1: 0, 2: 0}, wall_remaining=30))
    assert table.decl_fan[1] >= 8  # 清一色 ×4, 亮倒 ×2, and more on some waits
    waits_14 = (parse_tile("1s"), parse_tile("4s"))
    table = TableModel(_obs("123p", [], liangdao_waits={1: waits_14}, shown_hands={1: plain}, meld_counts={1: 0, 2: 0},
                        wall_remaining=30))
    assert table.decl_fan[1] == 2  # 屁胡 ×2 for 亮倒
    hidden = to_counts(parse_tiles("123p789s23s5z5z"))
    table = TableModel(_obs("123p", [], liangdao_waits={1: waits_14}, shown_hands={1: hidden}, meld_counts={1: 1, 2: 0},
                        wall_remaining=30))
    assert 1 not in table.decl_fan
    assert table.spared > TableModel(_obs("123p", [], wall_remaining=30)).spared  # a declared hand: winning spares more


def test_feeds_only_when_nothing_else_is_legal():
    obs = _obs("5s", _discards("5s"), liangdao_waits={1: (parse_tile("5s"),)})
    assert choose(obs, "strong") == Action(0, "discard", parse_tile("5s"))


def test_declares_a_cheap_hand_on_wide_live_waits():
    # 123456789p 23s 88s after 9s goes: waits 1s/4s, eight live, a deep wall and nobody else declared. A plain
    # hand gains most from the ×2, and self-draws pay from both opponents.
    hand = "123456789p2388s9s"
    legal = _with_liangdao(hand, "9s")
    action = choose(_obs(hand, legal, wall_remaining=30), "strong")
    assert action == Action(0, "liangdao", parse_tile("9s"))


def test_declares_wide_waits_and_keeps_thin_ones_concealed():
    # The same 1s/4s wait after 9s. Shown, its tiles are ones the other players must hold back: with seven live
    # that freezes a good part of their hands, so declare even with 20 tiles left; with five live (two 1s and a
    # 4s already out) it is a wait they simply avoid, and the hand stays concealed, where discards still feed it.
    hand = "123456789p2388s9s"
    legal = _with_liangdao(hand, "9s")
    assert choose(_obs(hand, legal, seen="1s", wall_remaining=20), "strong").verb == "liangdao"
    assert choose(_obs(hand, legal, seen="1s1s4s", wall_remaining=30), "strong").verb == "discard"


def test_does_not_declare_a_dead_wait():
    # After 9s the hand waits on 4s alone and three 4s are already on the table: declaring shows a wait that
    # can come once at best and costs the 荒庄 penalty.
    hand = "123456789p2388s9s"
    legal = _with_liangdao(hand, "9s")
    action = choose(_obs(hand, legal, seen="1s1s1s1s4s4s4s", wall_remaining=12), "strong")
    assert action.verb == "discard"


def test_folds_a_weak_hand_against_a_clearly_ready_opponent():
    # Late in the hand, far from ready; seat 1 has four melds (one tile left: ready) and 15 discards. The 中 is
    # fully visible (no one can wait on it); the middle 5p is the tile most likely to deal in.
    hand = "1p5p9p2s6s9s13p7s4s4s5z7z6z"
    counts_seen = "7z7z7z"
    legal = _discards(hand)
    obs = _obs(hand, legal, seen=counts_seen, wall_remaining=6,
               discards={0: tuple(range(12)), 1: tuple(range(15)), 2: tuple(range(12))},
               meld_counts={0: 0, 1: 4, 2: 0})
    assert choose(obs, "strong").tile == parse_tile("7z")


def test_takes_a_concealed_kong_of_a_useless_four():
    # Four 白 doing nothing: the kong is 2 from each opponent and a replacement draw.
    hand = "123456p789s2s5z5z5z5z"
    legal = _discards(hand) + [Action(0, "gang", parse_tile("5z"))]
    assert choose(_obs(hand, legal, wall_remaining=30), "strong") == Action(0, "gang", parse_tile("5z"))


def test_keeps_the_four_of_a_ready_dragon_seven_pairs():
    # 11223344 5555 6p + 9s: after 9s goes the hand is 清一色 龙七对 waiting on 6p. A kong of the 5p would break
    # seven pairs (no melds allowed) for 4 points of kong money; the 龙七对 is worth far more.
    hand = "1122334455556p9s"
    legal = _discards(hand) + [Action(0, "gang", parse_tile("5p"))]
    action = choose(_obs(hand, legal, wall_remaining=30), "strong")
    assert action.verb == "discard"


def test_locked_hand_takes_its_win_and_its_kong():
    legal = [Action(0, "hu"), Action(0, "pass")]
    assert choose(_obs("1p", legal, declared=True), "strong").verb == "hu"
    legal = [Action(0, "gang", parse_tile("5z")), Action(0, "pass")]
    assert choose(_obs("5z", legal, declared=True), "strong").verb == "gang"


def test_takes_a_win_on_a_discard():
    legal = [Action(0, "hu"), Action(0, "pass")]
    obs = _obs("1122334456677p", legal, claim_tile=parse_tile("5p"))
    assert choose(obs, "strong").verb == "hu"


def test_pungs_a_dragon_that_completes_the_hand_shape():
    # 123p 456p 789s 5z5z 1s + a third 5z: the pung makes the hand one step from ready without a draw.
    hand = "123456p789s5z5z1s9s"
    legal = [Action(0, "peng"), Action(0, "pass")]
    obs = _obs(hand, legal, seen="5z", claim_tile=parse_tile("5z"), wall_remaining=30)
    assert choose(obs, "strong").verb == "peng"


@pytest.mark.parametrize(("preset", "verb"), [("standard", "pass"), ("online-3d", "peng")])
def test_passes_a_pung_that_gains_little_unless_a_plain_hand_cannot_win(preset, verb):
    # 111p pung, 3689p 3555s 中中, 中 discarded, wall 39: the pung brings the hand a step nearer to ready, but to
    # thin shapes (3p, 6p, 89p) and with its pair spent; the model rates it only a little better than passing,
    # short of the margin a 碰 needs (the code before PENG_MARGIN took it). Where a 屁胡 cannot win (online-3d:
    # min_fan 2) a 碰 that heads for a pattern is worth more than the model says, and the smaller margin takes it.
    legal = [Action(0, "peng"), Action(0, "pass")]
    obs = _obs("3689p3555s5z5z", legal, seen="111p899s7z7z7z6z6z5z", melds=(Meld("pung", parse_tile("1p")),),
               claim_tile=parse_tile("5z"), wall_remaining=39, rules=RuleSet.preset(preset))
    assert choose(obs, "strong").verb == verb


@pytest.mark.parametrize("preset", ["standard", "online-3d", "xiangyang-capped", "xiaogan"])
def test_every_choice_is_legal_over_whole_hands(preset):
    rules = RuleSet.preset(preset)
    for seed in range(4):
        piao = (1, 0, 2) if rules.piao else (0, 0, 0)
        hand = HandState(rules, dealer=seed % 3, wall=wall_from_seed(f"strong-{preset}-{seed}"), piao=piao)
        while not hand.finished:
            seat = min(hand.to_act())
            action = decide(hand, seat, "strong" if seat != 1 else "standard")
            assert action in hand.legal_actions(seat)
            hand.apply(action)


def test_observation_shows_nothing_hidden():
    hand = HandState(dealer=0, wall=wall_from_seed("strong-view"))
    obs = observe(hand, 1)
    assert obs.counts == list(hand.counts(1))
    mine = hand.counts(1)
    assert obs.visible == list(mine)  # nothing discarded yet: only our own tiles are seen
    assert set(obs.discards) == {0, 1, 2} and obs.meld_counts == {0: 0, 1: 0, 2: 0}
    assert obs.shown_hands == {}  # nobody has declared: no other hand is shown


def test_observation_shows_exposed_melds_but_not_a_concealed_kong():
    hand = deal("1111p9999s234p56s7z", "23468p78s111s66z5z", "4p6p234s567s888s5z5z", back="3s 8p")
    play(hand, "0 gang 1p")
    assert observe(hand, 1).exposed[0] == ()  # a 暗杠 stays hidden: its tile is not shown
    assert observe(hand, 0).exposed == {1: (), 2: ()}  # a seat's own melds are its own, not "exposed"


def test_strong_is_deterministic():
    a = simulate(12, seed="strong-same", ai=("strong", "standard", "simple")).to_json()
    b = simulate(12, seed="strong-same", ai=("strong", "standard", "simple")).to_json()
    for r in (a, b):
        r.pop("seconds"), r.pop("hands_per_second")
    assert a == b
    assert a["checks"] == {"zero_sum": True, "tiles_conserved": True, "errors": 0}


def test_strong_beats_two_simple_players():
    # A short table cannot show strong's edge over standard (about +0.35 base a hand against a spread of about 4:
    # that needs thousands of hands, see `kwx simulate`); over two `simple` players it is about +0.9 and shows.
    report = simulate(240, seed="strong-edge", ai=("strong", "simple", "simple"), keep_per_hand=True)
    mine = [row[0] for row in report.per_hand_net]
    n = len(mine)
    mean = sum(mine) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in mine) / (n - 1))
    z = mean / (sd / math.sqrt(n))
    assert z > 2.0, f"strong's edge is not visible: mean {mean:.3f} per hand, z = {z:.2f}"


def test_kong_tile_hidden_from_others_is_not_counted():
    # another seat's 暗杠 stays unknown: its tiles are not among the visible counts, so strong still expects all
    # four 1p to be live; the seat that made it counts its own four
    hand = deal("1111p9999s234p56s7z", "23468p78s111s66z5z", "4p6p234s567s888s5z5z", back="3s 8p")
    play(hand, "0 gang 1p")
    assert hand.melds(0) == (Meld("ankong", Tile.P1),)
    for seat in (1, 2):
        obs = observe(hand, seat)
        assert obs.visible[Tile.P1] == 0
        assert TableModel(obs).live[Tile.P1] == 4
    assert observe(hand, 0).visible[Tile.P1] == 4


def test_declares_against_players_who_throw_declared_waits():
    # Ready on 8s after 8p, early (38 tiles left). Against players who hold a declared wait back, the ×2 on its
    # own draws does not pay for showing the hand: stay concealed, where every discard may still feed it (an 8s
    # leaves hands more readily than a middle tile). Against players this table has seen throw declared waits
    # (half as often as a careless player would), 亮倒 also collects 包胡 (the feeder pays double): declare.
    hand = "1p1p8p9p9p9p1s2s3s6s6s6s7s9s"
    z = parse_tiles("5z6z7z")
    obs = _obs(hand, _with_liangdao(hand, "8p"), seen="1s5z6z6z6z7z", wall_remaining=38,
               discards={0: (z[2], z[0]), 1: (z[1], z[1]), 2: (parse_tile("1s"), z[1])},
               meld_counts={0: 0, 1: 0, 2: 0})
    assert choose(obs, "strong") == Action(0, "discard", parse_tile("8p"))
    obs.feed_records = {1: (0, 30.0), 2: (0, 30.0)}  # they never fed: the same choice
    assert choose(obs, "strong") == Action(0, "discard", parse_tile("8p"))
    obs.feed_records = {1: (10, 20.0), 2: (10, 20.0)}
    assert choose(obs, "strong") == Action(0, "liangdao", parse_tile("8p"))


def test_observation_carries_other_players_feeding_records_only():
    hand = HandState(dealer=0, wall=wall_from_seed("strong-view"))
    obs = observe(hand, 1, {0: (1, 2.0), 1: (5, 6.0), 2: (0, 3.0)})
    assert obs.feed_records == {0: (1, 2.0), 2: (0, 3.0)}
