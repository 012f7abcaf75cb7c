"""The 复盘 screen at the terminal, driven by Textual's headless pilot: keys move through the hand."""

from __future__ import annotations

from kwx.local.review import ReviewApp
from tests.support.reviews import reviewed


async def test_keys_step_through_the_hand_and_jump_to_decisions_and_mistakes():
    done = next(d for d in (reviewed(f"screen{i}", ("simple", "strong", "standard")) for i in range(40)) if any(x.big for x in d.decisions))
    app = ReviewApp(done, ["Ann", "[b]Bob", "Cy"], "en", hand_id=4)
    async with app.run_test(size=(110, 40)) as pilot:
        step = app.query_one("#step")
        assert app.at == 0 and "Step 1 of" in str(step.render())
        await pilot.press("right", "right", "left")
        assert app.at == 1
        await pilot.press("m")
        assert app.at == next(d.frame for d in done.decisions if d.frame > 1)
        await pilot.press("home", "x")
        big = next(d for d in done.decisions if d.big)
        assert app.at == big.frame and "❗" in str(step.render())
        await pilot.press("end")
        assert app.at == len(done.frames) - 1 and "End:" in str(step.render())
        assert "[b]Bob" in str(step.render())  # a name is shown as it is, never as markup


async def test_the_screen_speaks_only_the_reviews_language():
    """A Chinese review shows no English of Textual's own (its footer offered "^p palette": themes and
    screenshots, nothing of the review's)."""
    app = ReviewApp(reviewed("screen0"), ["Ann", "Bob", "Cy"], "zh-CN", hand_id=4)
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.pause(0.05)
        text = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert "第 1/" in text and "palette" not in text.lower()
        await pilot.press("ctrl+p")
        await pilot.pause(0.05)
        assert app.screen is app.screen_stack[0]  # no English command palette opened over it


async def test_home_and_end_jump_to_the_first_and_last_step_even_when_the_step_scrolls():
    """At 80×24 a step is taller than the screen and its scroll area has the focus: Home and End scrolled it
    instead of jumping through the hand."""
    done = reviewed("screen1", ("simple", "strong", "standard"))
    app = ReviewApp(done, ["Ann", "Bob", "Cy"], "zh-CN", hand_id=4, start=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.05)
        app.query_one("VerticalScroll").focus()
        await pilot.press("end")
        assert app.at == len(done.frames) - 1
        await pilot.press("home")
        assert app.at == 0




async def test_what_the_terminal_prints_has_no_markdown_backticks():
    """The catalog marks code with backticks for Discord; the terminal printed them (`python -m kwx …`)."""
    from kwx.local.text import say
    from kwx.present.i18n import catalog

    for lang in ("zh-CN", "en"):
        for key in sorted(k for k in catalog().keys(lang) if k.startswith("local.")):
            assert "`" not in say(key.removeprefix("local."), lang), (lang, key)
    app = ReviewApp(reviewed("screen0"), ["Ann", "Bob", "Cy"], "zh-CN", hand_id=4)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.05)
        text = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert "Home / End" in text and "`" not in text
