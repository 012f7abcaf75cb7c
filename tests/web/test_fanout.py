"""One table service, two front ends: every port call reaches both, and one that fails costs the other nothing."""

from __future__ import annotations

from kwx.table.views import PlayerRef, PublicView
from kwx.web.fanout import FanOut


class Recorder:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[str] = []
        self.fail = fail

    async def board_changed(self, view: PublicView) -> None:
        self.calls.append("board")
        if self.fail:
            raise ConnectionError("this front end is down")

    async def notice(self, table_id: int, key: str, **fmt: object) -> None:
        self.calls.append(f"notice {table_id} {key} {fmt}")


async def test_every_call_reaches_every_front_end_even_past_one_that_fails(caplog):
    broken, working = Recorder(fail=True), Recorder()
    both = FanOut([broken, working])
    view = PublicView(7, 1, 3, "turn", ())
    await both.board_changed(view)
    await both.notice(7, "event.autoplay_on", player=PlayerRef("1", "Ann").name)
    assert working.calls == ["board", "notice 7 event.autoplay_on {'player': 'Ann'}"]
    assert broken.calls[0] == "board"
    assert "Recorder.board_changed failed" in caplog.text


async def test_a_notice_whose_words_carry_a_name_reaches_every_front_end():
    """"{name} took a seat" (an AI added in the lobby): the notice's own `name` is not the call's."""
    discord_side, pages = Recorder(), Recorder()
    await FanOut([discord_side, pages]).notice(7, "lobby.ai_added", name="AI 1", player_id="ai-1")
    expected = "notice 7 lobby.ai_added {'name': 'AI 1', 'player_id': 'ai-1'}"
    assert discord_side.calls == pages.calls == [expected]
