// The table page: draws the views the server pushes over one WebSocket and sends presses back. It decides no
// rule: what may be pressed is the seat's `choices`, what a press costs is the choice's `warn`, every sentence
// comes from the server in the page's language (kwx/web/wire.py).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const hashParams = new URLSearchParams(location.hash.slice(1));
  const state = {
    lang: params.get("lang") || localStorage.getItem("kwx.lang") || (navigator.language.startsWith("zh") ? "zh-CN" : "en"),
    S: {}, tiles: {}, me: null, table: null, board: null, hand: null, result: null, picked: null, liangdao: false,
    skew: 0, hello: null, ws: null, retry: 0, pending: new Map(), seq: 0, closed: false,
  };
  window.kwxState = state; // the browser tests read what the page last drew from

  // -- words ---------------------------------------------------------------------------------------------
  const t = (key, fmt) => {
    let text = state.S[key] ?? key;
    if (fmt) text = text.replace(/\{(\w+)\}/g, (m, k) => (k in fmt ? String(fmt[k]) : m));
    return text;
  };
  const tileWord = (c) => state.tiles[c] || c;
  // A score or a net as every kwx front end writes it: "+3", "−2" (U+2212, as wide as the plus), "0".
  const signed = (n) => (n > 0 ? "+" + n : n < 0 ? "\u2212" + -n : "0");
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const tile = (c, cls) => {
    const e = el("span", "tile" + (cls ? " " + cls : ""));
    e.style.backgroundImage = `url(tiles/${c || "back"}.png)`;
    e.title = c ? tileWord(c) : t("tile.hidden");
    e.dataset.tile = c || "";
    return e;
  };

  // -- the socket ----------------------------------------------------------------------------------------
  async function sayHello() {
    if (hashParams.get("link")) return { t: "hello", link: hashParams.get("link") };
    if (params.get("frame_id") || params.get("mock")) return await activityHello();
    return null;
  }

  async function activityHello() {
    // Inside Discord: the Embedded App SDK (bundled in discord-sdk.js) gives a code; the server trades it for
    // a token (its secret stays there); the page authenticates with it, and the socket names its user by it.
    await new Promise((ok, fail) => {
      const s = document.createElement("script");
      s.src = "static/discord-sdk.js"; s.onload = ok; s.onerror = fail;
      document.head.appendChild(s);
    });
    const config = await (await fetch("api/config")).json();
    const { DiscordSDK, DiscordSDKMock } = window.KwxDiscord;
    let sdk;
    if (params.get("mock")) {
      sdk = new DiscordSDKMock(config.client_id, params.get("guild_id"), params.get("channel_id"), null);
      const code = params.get("mock_code");
      sdk._updateCommandMocks({ authorize: async () => ({ code }) });
    } else {
      sdk = new DiscordSDK(config.client_id);
    }
    await sdk.ready();
    const { code } = await sdk.commands.authorize({
      client_id: config.client_id, response_type: "code", state: "", prompt: "none", scope: ["identify"],
    });
    const answer = await fetch("api/token", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code }),
    });
    const { access_token } = await answer.json();
    if (!access_token) throw new Error("token refused");
    await sdk.commands.authenticate({ access_token });
    const instance = (params.get("mock") && params.get("instance_id")) || sdk.instanceId;
    return { t: "hello", access_token, instance, guild: sdk.guildId || "", channel: sdk.channelId || "" };
  }

  function connect() {
    const url = new URL("ws", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = state.ws = new WebSocket(url);
    ws.onopen = () => {
      state.retry = 0;
      ws.send(JSON.stringify({ ...state.hello, lang: state.lang }));
    };
    // One frame is one message, or an array of the messages a change brought at once (drawn once).
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if ((Array.isArray(m) ? m : [m]).map(receive).some(Boolean)) draw();
    };
    ws.onclose = () => {
      if (state.ws !== ws || state.closed) return;
      state.ws = null;
      veil(t("web.reconnecting"));
      const wait = Math.min(5000, 400 * 2 ** state.retry++);
      setTimeout(connect, wait);
    };
  }

  function send(message) {
    if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(message));
  }

  function press(message) {
    // Every press has an id; one the socket lost before its answer is sent again on reconnect, and the server
    // answers it once (kwx/web/session.py).
    const id = `${Date.now().toString(36)}-${++state.seq}`;
    const full = { ...message, id };
    state.pending.set(id, full);
    send(full);
  }

  const newer = (old, view) => !old || old.table !== view.table || view.hand > old.hand ||
    (view.hand === old.hand && view.step >= old.step);

  // One message; true when the table must be drawn again.
  function receive(m) {
    if (m.now) state.skew = m.now - Date.now() / 1000;
    switch (m.t) {
      case "welcome":
        state.S = m.strings; state.tiles = m.tiles || {}; state.me = m.player; state.table = m.table;
        state.link = m.link;
        state.board = null; state.hand = null;
        document.documentElement.lang = m.lang;
        veil(null);
        for (const p of state.pending.values()) send(p);
        break;
      case "board": {
        const old = state.board;
        if (!newer(old, m.view)) return;
        // The log takes a board's events once: a board sent again (the claim pause's, or a reconnect's) adds none.
        const moved = !old || old.table !== m.view.table || m.view.hand !== old.hand || m.view.step !== old.step;
        if (moved) for (const line of m.view.log) logLine(line);
        state.board = m.view;
        if (m.view.phase !== "finished" && state.result && m.view.hand > state.result.hand) closeResult();
        break;
      }
      case "hand":
        if (!newer(state.hand, m.view)) return;
        state.hand = m.view; state.picked = null;
        if (!m.view.choices.some((c) => c.verb === "liangdao")) state.liangdao = false;
        break;
      case "result": state.result = m.result; showResult(); break;
      case "answer": {
        const asked = state.pending.get(m.id);
        state.pending.delete(m.id);
        if (!m.ok && m.text) flash(m.text);
        // The service asks before a costly move or a 亮倒 (nothing was done): the same press, confirmed.
        if (m.ask && asked) confirmThen(m.ask, () => press({ ...asked, id: undefined, confirmed: true }));
        return;
      }
      case "notice": flash(m.text); return;
      case "refused": state.closed = true; veil(m.text); return;
      case "closed": state.closed = true; showClosed(m.summary); return;
    }
    return true; // the table needs drawing again (once per frame: connect)
  }

  // -- drawing -------------------------------------------------------------------------------------------
  const seatOf = (b) => (state.me ? b.seats.findIndex((s) => s.player.id === state.me) : -1);

  function draw() {
    const b = state.board;
    if (!b) return;
    const mine = seatOf(b);
    const bottom = mine >= 0 ? mine : 0;
    const n = b.seats.length;
    drawStatus(b);
    drawSeat($("seat-me"), b, b.seats[bottom], true);
    drawSeat($("seat-right"), b, n > 1 ? b.seats[(bottom + 1) % n] : null, false);
    drawSeat($("seat-left"), b, n > 2 ? b.seats[(bottom + 2) % n] : null, false);
    drawCentre(b);
    drawHand(b, mine);
    tick();
  }

  function drawStatus(b) {
    const dealer = b.seats.find((s) => s.dealer);
    const parts = [];
    if (b.phase === "lobby") parts.push(t("phase.lobby"));
    else parts.push(t("board.title", { hand: b.hand, dealer: dealer ? dealer.player.name : "?" }),
      `${t("term.base")} ${b.base}`, t("board.wall", { count: b.wall }));
    if (b.paused_text) parts.push(b.paused_text);
    if (!state.me) parts.push(t("web.spectating"));
    $("status").textContent = parts.join(" · ");
  }

  function drawSeat(box, b, s, isMe) {
    box.replaceChildren();
    if (!s) return;
    box.classList.toggle("turn", b.turn === s.seat && (b.phase === "turn" || b.phase === "claim"));
    const who = el("div", "who");
    who.append(el("span", "name", s.player.id === state.me ? `${s.player.name} (${t("web.you")})` : s.player.name));
    if (s.dealer) who.append(el("span", "badge", t("board.dealer_mark")));
    if (s.liangdao) who.append(el("span", "badge ld", t("action.liangdao")));
    if (s.autoplay) who.append(el("span", "badge auto", t("action.autoplay_on")));
    if (s.piao) who.append(el("span", "badge", `${t("term.piao")} ${s.piao}`));
    who.append(el("span", "score", signed(s.score)));
    if (!isMe && b.phase !== "lobby") who.append(el("span", "count", t("board.hand_count", { count: s.concealed })));
    box.append(who);
    if (s.liangdao && s.revealed.length) {
      const row = el("div", "row revealed");
      s.revealed.forEach((c) => row.append(tile(c)));
      box.append(row);
      const waits = el("div", "waits", t("board.waits", { tiles: "" }));
      const unseen = state.hand ? state.hand.unseen : {};
      s.waits.forEach((c) => { waits.append(tile(c)); if (c in unseen) waits.append(el("span", "n", `×${unseen[c]}`)); });
      box.append(waits);
    } else if (!isMe && s.concealed) {
      const backs = el("div", "row backs");
      for (let i = 0; i < s.concealed; i++) backs.append(tile(null));
      box.append(backs);
    }
    if (s.melds.length) {
      const melds = el("div", "row melds");
      for (const m of s.melds) {
        const g = el("span", "meld");
        const k = m.kind === "pung" ? 3 : 4;
        for (let i = 0; i < k; i++) g.append(tile(m.kind === "ankong" && (i === 0 || i === 3) ? null : m.tile));
        melds.append(g);
      }
      box.append(melds);
    }
    const pond = el("div", "pond");
    s.pond.forEach(([c, claimed], i) => {
      const last = b.claim_tile && b.turn === s.seat && i === s.pond.length - 1 && !claimed;
      pond.append(tile(c, (claimed ? "claimed" : "") + (last ? " last" : "")));
    });
    box.append(pond);
  }

  function drawCentre(b) {
    const claim = $("claim");
    claim.replaceChildren();
    if (b.claim_tile && b.turn !== null) {
      const who = b.seats[b.turn] ? b.seats[b.turn].player.name : "?";
      claim.append(el("span", "", t("board.claim_open", { player: who, tile: "" })), tile(b.claim_tile));
    }
  }

  function logLine(text, cls) {
    const log = $("log");
    log.append(el("li", cls || "", text));
    while (log.children.length > 4) log.firstChild.remove();
  }

  function drawHand(b, mine) {
    const handBox = $("hand"), actions = $("actions"), warn = $("warn");
    handBox.replaceChildren(); actions.replaceChildren(); warn.textContent = "";
    const h = state.hand;
    if (mine < 0 || !h || h.hand !== b.hand) {
      if (b.phase === "lobby") actions.append(el("span", "", t("phase.lobby")));
      return;
    }
    const choices = h.choices;
    const discards = new Map(choices.filter((c) => c.verb === "discard").map((c) => [c.tile, c]));
    const declares = new Map(choices.filter((c) => c.verb === "liangdao").map((c) => [c.tile, c]));
    const pickable = state.liangdao ? declares : discards;
    const add = (c, cls) => {
      const btn = el("button", tile(c, cls).className);
      btn.style.backgroundImage = `url(tiles/${c}.png)`;
      btn.dataset.tile = c; btn.type = "button"; btn.title = tileWord(c);
      const choice = pickable.get(c);
      if (!choice) btn.disabled = true;
      else {
        if (h.warnings.some((w) => w.tile === c && w.verb === choice.verb)) btn.classList.add("danger");
        if (state.picked === c) btn.classList.add("picked");
        btn.onclick = () => pick(c, choice);
      }
      handBox.append(btn);
    };
    h.concealed.forEach((c) => add(c, ""));
    if (h.drawn) add(h.drawn, "drawn");
    const facts = [...new Set(h.warnings.map((w) => w.text))];
    if (h.zimo) facts.unshift(h.zimo);
    warn.textContent = facts.join(" ");
    if (state.picked && h.discard_waits[state.picked]) {
      warn.textContent = t("panel.ready_discard", { tile: tileWord(state.picked), waits: h.discard_waits[state.picked].map(tileWord).join(" ") });
    }
    const button = (label, cls, onclick, verb) => {
      const btn = el("button", cls, label);
      btn.type = "button"; btn.onclick = onclick;
      if (verb) btn.dataset.verb = verb;
      actions.append(btn);
      return btn;
    };
    const act = (c) => () => press({ t: "act", verb: c.verb, tile: c.tile, step: h.step, hand: h.hand });
    for (const c of choices) {
      if (c.verb === "hu") button(t(h.drawn ? "action.zimo" : "action.hu"), "win", act(c), "hu");
      else if (c.verb === "peng") button(t("action.peng"), "go", act(c), "peng");
      else if (c.verb === "gang") button(c.tile && choices.filter((x) => x.verb === "gang").length > 1 ? t("action.kong_tile", { tile: tileWord(c.tile) }) : t("action.gang"), "go", act(c), "gang");
    }
    if (declares.size) {
      const btn = button(t("action.liangdao"), "go", () => { state.liangdao = !state.liangdao; state.picked = null; draw(); });
      btn.classList.toggle("on", state.liangdao);
      if (state.liangdao) warn.textContent = t("panel.liangdao_pick");
    }
    if (h.drawn && discards.has(h.drawn)) {
      button(t("action.moqie"), "", () => { state.picked = null; press({ t: "act", verb: "moqie", step: h.step, hand: h.hand }); }, "moqie");
    }
    const pass = choices.find((c) => c.verb === "pass");
    if (pass) button(t("action.pass"), "", act(pass), "pass");
    if (choices.some((c) => c.verb === "piao")) {
      for (let n = 0; n <= h.piao_max; n++) button(`${t("action.piao")} ${n}`, "go", () => press({ t: "act", verb: "piao", amount: n, step: h.step }), "piao");
    }
    if (b.paused && b.phase !== "lobby") button(t("action.resume"), "go", () => press({ t: "resume" }));
    const autoPass = button(t(h.auto_pass ? "panel.auto_pass_on" : "panel.auto_pass_off"), "quiet",
      () => press({ t: "act", verb: "auto_pass", step: h.step }), "auto_pass");
    autoPass.classList.toggle("on", h.auto_pass);
    const auto = button(t(h.autoplay ? "action.autoplay_off" : "action.autoplay_on"), "quiet", () => press({ t: "autoplay", on: !h.autoplay }));
    auto.classList.toggle("on", h.autoplay);
  }

  function pick(c, choice, now) {
    // A tile is picked by a first tap and played by a second (or at once by 摸切): a thumb slipping on a phone
    // costs nothing.
    if (!now && state.picked !== c) { state.picked = c; draw(); return; }
    const h = state.hand;
    state.picked = null; state.liangdao = false;
    press({ t: "act", verb: choice.verb, tile: c, step: h.step, hand: h.hand });
  }

  function confirmThen(text, go) {
    if (!text) { go(); return; }
    const ask = $("ask");
    $("ask-text").textContent = text;
    $("ask-yes").textContent = t("web.go_ahead");
    $("ask-no").textContent = t("web.cancel");
    $("ask-yes").onclick = () => { ask.close(); go(); };
    $("ask-no").onclick = () => ask.close();
    ask.showModal();
  }

  function showResult() {
    const r = state.result, b = state.board;
    const box = $("result");
    box.replaceChildren(el("h2", "", r.title));
    if (r.headline) box.append(el("p", "win", r.headline));
    for (const w of r.winners) {
      box.append(el("p", "win", `${w.line} · ${t("result.fan", { fan: w.fan })}`));
      const ul = el("ul");
      w.patterns.forEach((p) => ul.append(el("li", "", p)));
      box.append(ul);
    }
    if (r.payments.length) {
      box.append(el("h3", "", t("result.payments")));
      const ul = el("ul");
      r.payments.forEach((p) => ul.append(el("li", "", p)));
      box.append(ul);
    }
    const nets = el("div", "nets");
    r.net.forEach((n, i) => {
      const name = b && b.seats[i] ? b.seats[i].player.name : `#${i + 1}`;
      nets.append(el("span", "", name), el("span", n >= 0 ? "plus" : "minus", signed(n)),
        el("span", "", `${t("result.table_total")} ${signed(r.scores[i])}`));
    });
    box.append(nets);
    const hands = el("div", "hands");
    for (const hand of r.hands) {
      const name = b && b.seats[hand.seat] ? b.seats[hand.seat].player.name : "";
      const row = el("div", "row");
      hand.concealed.forEach((c) => row.append(tile(c)));
      hand.melds.forEach((m) => { for (let i = 0; i < (m.kind === "pung" ? 3 : 4); i++) row.append(tile(m.tile)); });
      hands.append(el("div", "", name), row);
    }
    box.append(hands);
    if (state.link && r.seed) {
      const a = el("a", "", t("web.review"));
      a.href = `review?hand=${r.hand}&lang=${encodeURIComponent(state.lang)}&link=${encodeURIComponent(state.link)}`;
      a.target = "_blank"; a.rel = "noopener noreferrer";
      const p = el("p"); p.append(a); box.append(p);
    }
    if (r.seed) box.append(el("p", "small", `seed ${r.seed} · ${r.seed_ref || ""}`));
    const ok = el("button", "", t("web.continue"));
    ok.type = "button"; ok.onclick = closeResult;
    box.append(ok);
    box.hidden = false;
  }

  function closeResult() { $("result").hidden = true; }

  function showClosed(summary) {
    const box = $("result");
    box.replaceChildren(el("h2", "", t("web.table_closed")));
    const nets = el("div", "nets");
    summary.net.forEach(([name, n]) => nets.append(el("span", "", name), el("span", n >= 0 ? "plus" : "minus", signed(n)), el("span")));
    box.append(nets);
    const ul = el("ul");
    summary.transfers.forEach((line) => ul.append(el("li", "", line)));
    box.append(ul);
    box.hidden = false;
  }

  function flash(text) { logLine(text, "flash"); }

  function veil(text) {
    $("veil").hidden = !text;
    if (text) $("veil-text").textContent = text;
  }

  function tick() {
    // The seat's own deadline when it must act, else the board's (turns only: the board shows no claim timer).
    const h = state.hand, b = state.board;
    const deadline = h && h.choices.length && h.deadline ? h.deadline : b && b.deadline;
    const clock = $("clock");
    if (!deadline) { clock.textContent = ""; return; }
    const left = Math.max(0, Math.round(deadline - (Date.now() / 1000 + state.skew)));
    clock.textContent = `${left}s`;
    clock.classList.toggle("low", left <= 5);
  }

  $("lang").onclick = () => {
    state.lang = state.lang === "en" ? "zh-CN" : "en";
    localStorage.setItem("kwx.lang", state.lang);
    if (state.ws) state.ws.close();
  };

  async function start() {
    $("lang").textContent = state.lang === "en" ? "中文" : "EN";
    veil(state.lang === "en" ? "Connecting…" : "连接中…");
    try {
      state.hello = await sayHello();
    } catch (e) {
      veil(String(e && e.message || e));
      return;
    }
    if (!state.hello) { veil(state.lang === "en" ? "Open your own table link: the DM panel has one." : "请打开你自己的牌桌链接（私信面板里有）。"); return; }
    connect();
    setInterval(tick, 500);
  }
  const langButton = $("lang");
  const relabel = () => { langButton.textContent = state.lang === "en" ? "中文" : "EN"; };
  langButton.addEventListener("click", relabel);
  start();
})();
