// A seat's live table: one websocket; every state message redraws the page; clicks and keys send
// moves. The server checks every move (turn, legality); this page only offers the legal ones.
"use strict";

const params = new URLSearchParams(location.search);
const seatParam = Number(params.get("seat"));
// timerEnd: the turn's deadline on this page's clock (performance.now), computed once per state
// message from its seconds_left and the time it arrived; a redraw (resize, rotation) only reads it.
let socket, state = null, timerEnd = null, pendingTile = null;

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(params.get("table"))}` +
    `?seat=${seatParam}&token=${encodeURIComponent(params.get("token") || "")}`);
  socket.onmessage = event => {
    const received = performance.now(), message = JSON.parse(event.data);
    if (message.type === "state") {
      state = message;
      pendingTile = null;
      timerEnd = message.timer ? received + 1000 * message.timer.seconds_left : null;
      draw();
    } else if (message.type === "error") {
      document.getElementById("error").textContent = message.message;
    }
  };
  socket.onclose = () => { document.getElementById("status").textContent = "Disconnected from the table: reload to come back."; };
}

function send(action) {
  document.getElementById("error").textContent = "";
  socket.send(JSON.stringify({type: "move", action, move_number: state.move_number}));
}

function labels(s) {
  const names = relativeNames(s);
  return names.map((name, k) => name + (s.seats[k].kind === "person" && !s.seats[k].connected ? " — away" : ""));
}

function context(s) { return {labels: labels(s), viewer: s.seat, showHands: false, width: boardWidth()}; }

function draw() {
  const s = state, ctx = context(s), names = relativeNames(s);
  document.getElementById("board").innerHTML = boardHTML(s, ctx);
  document.getElementById("log").innerHTML = logHTML(s, ctx);
  const myTurn = s.current_player === s.seat && !s.over;
  const legalTiles = new Map();
  for (const m of s.legal) if (m.tile !== null) legalTiles.set(m.tile, [...(legalTiles.get(m.tile) || []), m]);
  document.getElementById("hand").innerHTML = s.hand.map(t => {
    const legal = myTurn && legalTiles.has(t.id);
    const keys = legal ? ` tabindex="0" role="button" aria-label="play ${t.name}"` : ` aria-label="${t.name}"`;
    return tileSVG(t.a, t.b, {u: 34, vertical: true, cls: legal ? "legal" : "",
      attrs: `data-tile="${t.id}" data-name="${t.name}"${keys}`});
  }).join("");
  for (const el of document.querySelectorAll("#hand .tile.legal")) {
    const play = () => chooseTile(Number(el.dataset.tile), legalTiles);
    el.addEventListener("click", play);
    el.addEventListener("keydown", e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); play(); } });
  }
  const others = myTurn ? s.legal.filter(m => m.tile === null) : [];
  document.getElementById("buttons").innerHTML = others.map(m =>
    `<button data-action="${m.action}">${esc(m.text)}</button>`).join("");
  for (const el of document.querySelectorAll("#buttons button")) el.addEventListener("click", () => send(Number(el.dataset.action)));
  document.getElementById("choice").innerHTML = "";
  const turnName = s.current_player === null ? "" : names[s.current_player];
  const status = document.getElementById("status");
  status.textContent = s.error ? s.error
    : s.over ? "The game is over."
    : myTurn ? (legalTiles.size ? "Your move: click a highlighted tile (or Tab to it and press Enter)." : "Your move: choose below.")
    : `Waiting for ${turnName}…`;
  if (s.last_event && s.last_event.how === "timer") {
    const who = names[s.last_event.seat];
    status.textContent += ` (time ran out for ${who === "You" ? "you" : who}: automatic move ${s.last_event.text})`;
  }
  tick();
  const over = document.getElementById("over");
  over.hidden = !s.over;
  if (s.over) {
    over.innerHTML = `<h3>Game over: <span id="winner">${esc(gameOverText(s, ctx))}</span></h3>${scoresHTML(s, ctx)}` +
      `<a id="open-replay" href="/replay?table=${encodeURIComponent(s.table)}">Open the replay (every hand shown)</a>`;
  }
  const focused = document.activeElement;
  if (myTurn && (!focused || focused === document.body)) {  // keyboard play: the first choice has the focus
    const first = document.querySelector("#hand .tile.legal, #buttons button");
    if (first) first.focus({preventScroll: true});
  }
}

// A tile that fits several ends asks which: a button per end, and the ends on the table (the slots of
// the Fives layout, Mexican Train's trains), highlighted, take a click too.
function chooseTile(tile, legalTiles) {
  const moves = legalTiles.get(tile);
  if (moves.length === 1) { send(moves[0].action); return; }
  pendingTile = tile;
  const ends = state.ends || [], names = endNames(state, context(state));
  document.getElementById("choice").innerHTML = (state.game === "mexican_train" ? "Which train? " : "Which end? ") +
    moves.map(m => `<button data-action="${m.action}" data-side="${m.side}">${esc(names[m.side])} (${ends[m.side]})</button>`).join(" ");
  for (const el of document.querySelectorAll("#choice button")) el.addEventListener("click", () => send(Number(el.dataset.action)));
  for (const el of document.querySelectorAll("#board [data-end]")) el.classList.remove("legal");
  for (const m of moves) {
    const slot = document.querySelector(`#board [data-end="${m.side}"]`);
    if (!slot) continue;
    slot.classList.add("legal");
    slot.addEventListener("click", () => send(m.action));
  }
  document.querySelector("#choice button").focus();
}

function tick() {
  const el = document.getElementById("timer");
  if (timerEnd === null || !state || state.over) { el.hidden = true; return; }
  const left = Math.max(0, Math.ceil((timerEnd - performance.now()) / 1000));
  el.hidden = false;
  const who = state.current_player === state.seat ? "Your" : possessive(relativeNames(state)[state.current_player]);
  el.innerHTML = `${esc(who)} turn: <span id="seconds-left">${left}</span> s left, then the automatic move`;
}

setInterval(tick, 250);
window.addEventListener("resize", () => state && draw());
connect();
