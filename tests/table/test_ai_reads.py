"""AI seats and 托管 play on what the table has seen of its players: who throws a declared hand's winning tiles."""

from __future__ import annotations

from kwx.engine.ai import decide
from kwx.table import PlayerRef
from tests.support.players import GUILD
from tests.support.tables import finished_hands


async def test_ai_decisions_carry_the_tables_feeding_records(make_service, frontend):
    seen: list[tuple[str, dict]] = []

    def recording(hand, seat, level, feed_records):
        seen.append((level, dict(feed_records or {})))
        return decide(hand, seat, level, feed_records)

    svc = make_service(ai_delay=0, between_hands=0, ai_policy=recording)
    human = PlayerRef("h", "Human")
    table = await svc.open_table(GUILD, "c1", human, seed="reads-1")
    for _ in range(2):
        await svc.add_ai(table, "simple", by=human.player_id)  # never declares, never holds a declared wait back
    await svc.start_game(table, by=human.player_id)
    await svc.set_autoplay(table, human.player_id, True)  # 托管 plays `strong` for the human, and declares
    await finished_hands(frontend, table, 12, timeout=60, resume=svc)
    await svc.stop(table, human.player_id)

    fed = [r for level, r in seen if level == "strong" and any(feeds for feeds, _ in r.values())]
    assert fed, "no decision of 托管 knew that the simple players feed declared hands"
