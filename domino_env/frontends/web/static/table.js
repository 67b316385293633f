// A seat's live table: one websocket; every state message redraws the page; clicks send moves.
// The server checks every move (turn, legality); this page only offers the legal ones.
"use strict";

const params = new URLSearchParams(location.search);
const seatParam = Number(params.get("seat"));
let socket, state = null, timerEnd = null, pendingTile = null;

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(params.get("table"))}` +
    `?seat=${seatParam}&token=${encodeURIComponent(params.get("token") || "")}`);
  socket.onmessage = event => {
    const message = JSON.parse(event.data);
    if (message.type === "state") { state = message; pendingTile = null; draw(); }
    else if (message.type === "error") { document.getElementById("error").textContent = message.message; }
  };
  socket.onclose = () => { document.getElementById("status").textContent = "Disconnected from the table: reload to come back."; };
}

function send(action) {
  document.getElementById("error").textContent = "";
  socket.send(JSON.stringify({type: "move", action, move_number: state.move_number}));
}

function seatLabels(s) {
  return s.seats.map(x => x.name + (x.kind === "person" && !x.connected ? " — away" : ""));
}

function draw() {
  const s = state, width = Math.min(document.body.clientWidth - 40, 1100);
  document.getElementById("board").innerHTML = boardHTML(s, seatLabels(s), false, width);
  document.getElementById("log").innerHTML = logHTML(s);
  const myTurn = s.current_player === s.seat && !s.over;
  const legalTiles = new Map();
  for (const m of s.legal) if (m.tile !== null) legalTiles.set(m.tile, [...(legalTiles.get(m.tile) || []), m]);
  document.getElementById("hand").innerHTML = s.hand.map(t => {
    const legal = myTurn && legalTiles.has(t.id);
    return tileSVG(t.a, t.b, {u: 34, vertical: true, cls: legal ? "legal" : "",
      attrs: `data-tile="${t.id}" data-name="${t.name}" role="button" aria-label="${t.name}"`});
  }).join("");
  for (const el of document.querySelectorAll("#hand .tile.legal")) {
    el.addEventListener("click", () => chooseTile(Number(el.dataset.tile), legalTiles));
  }
  const others = myTurn ? s.legal.filter(m => m.tile === null) : [];
  document.getElementById("buttons").innerHTML = others.map(m =>
    `<button data-action="${m.action}">${esc(m.text)}</button>`).join("");
  for (const el of document.querySelectorAll("#buttons button")) el.addEventListener("click", () => send(Number(el.dataset.action)));
  document.getElementById("choice").innerHTML = "";
  const turnName = s.current_player === null ? "" : s.seats[s.current_player].name;
  document.getElementById("status").textContent = s.error ? s.error
    : s.over ? "The game is over."
    : myTurn ? (legalTiles.size ? "Your move: click a highlighted tile." : "Your move: choose below.")
    : `Waiting for ${turnName}…`;
  if (s.last_event && s.last_event.how === "timer") {
    document.getElementById("status").textContent += ` (time ran out for seat ${s.last_event.seat}: automatic move ${s.last_event.text})`;
  }
  timerEnd = s.timer ? performance.now() + 1000 * s.timer.seconds_left : null;
  tick();
  const over = document.getElementById("over");
  over.hidden = !s.over;
  if (s.over) {
    over.innerHTML = `<h3>Game over</h3>${scoresHTML(s)}<a id="open-replay" href="/replay?table=${encodeURIComponent(s.table)}">Open the replay (every hand shown)</a>`;
  }
}

function chooseTile(tile, legalTiles) {
  const moves = legalTiles.get(tile);
  if (moves.length === 1) { send(moves[0].action); return; }
  pendingTile = tile;  // fits both ends: ask which
  const ends = state.ends || [];
  document.getElementById("choice").innerHTML = "Which end? " + moves.map(m =>
    `<button data-action="${m.action}" data-side="${m.side}">${m.side === 0 ? "left" : "right"} (${ends[m.side]})</button>`).join(" ");
  for (const el of document.querySelectorAll("#choice button")) el.addEventListener("click", () => send(Number(el.dataset.action)));
}

function tick() {
  const el = document.getElementById("timer");
  if (timerEnd === null || !state || state.over) { el.hidden = true; return; }
  const left = Math.max(0, Math.ceil((timerEnd - performance.now()) / 1000));
  el.hidden = false;
  el.textContent = `${state.current_player === state.seat ? "Your" : "Seat " + state.current_player + "'s"} turn: ${left} s left, then the automatic move`;
}

setInterval(tick, 250);
window.addEventListener("resize", () => state && draw());
connect();
