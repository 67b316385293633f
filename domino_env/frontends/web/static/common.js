// Drawing shared by the table and the replay viewer: tiles as SVG dominoes with pips, the line
// laid out in rows that fit the screen (doubles crosswise), hands, seats, scores, Texas 42 tricks.
// Everything drawn comes from one state message of the server (domino_env/web/protocol.py).
"use strict";

const PIP_SPOTS = {  // pip centres in a unit square, by count (more than 9: the number is written)
  1: [[.5, .5]], 2: [[.25, .25], [.75, .75]], 3: [[.25, .25], [.5, .5], [.75, .75]],
  4: [[.25, .25], [.75, .25], [.25, .75], [.75, .75]],
  5: [[.25, .25], [.75, .25], [.5, .5], [.25, .75], [.75, .75]],
  6: [[.25, .2], [.75, .2], [.25, .5], [.75, .5], [.25, .8], [.75, .8]],
  7: [[.25, .2], [.75, .2], [.25, .5], [.5, .5], [.75, .5], [.25, .8], [.75, .8]],
  8: [[.25, .2], [.5, .2], [.75, .2], [.25, .5], [.75, .5], [.25, .8], [.5, .8], [.75, .8]],
  9: [[.25, .2], [.5, .2], [.75, .2], [.25, .5], [.5, .5], [.75, .5], [.25, .8], [.5, .8], [.75, .8]],
};

function esc(text) {
  return String(text).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

// One half of a domino: a u x u square at (x, y) showing n pips.
function halfSVG(n, x, y, u) {
  if (n > 9) {
    return `<text x="${x + u / 2}" y="${y + u * 0.68}" font-size="${u * 0.5}" text-anchor="middle">${n}</text>`;
  }
  return (PIP_SPOTS[n] || []).map(([px, py]) =>
    `<circle cx="${x + px * u}" cy="${y + py * u}" r="${u * 0.09}"/>`).join("");
}

// A domino with halves a (left or top) and b, as an <svg> string; vertical stands it upright.
function tileSVG(a, b, {u = 28, vertical = false, cls = "", attrs = ""} = {}) {
  const w = vertical ? u : 2 * u, h = vertical ? 2 * u : u;
  const [x2, y2] = vertical ? [0, u] : [u, 0];
  const divider = vertical
    ? `<line x1="${u * 0.15}" y1="${u}" x2="${u * 0.85}" y2="${u}"/>`
    : `<line x1="${u}" y1="${u * 0.15}" x2="${u}" y2="${u * 0.85}"/>`;
  return `<svg class="tile ${cls}" ${attrs} width="${w}" height="${h}" viewBox="-1 -1 ${w + 2} ${h + 2}">` +
    `<rect x="0" y="0" width="${w}" height="${h}" rx="${u * 0.15}"/>${divider}` +
    `<g class="pips">${halfSVG(a, 0, 0, u)}${halfSVG(b, x2, y2, u)}</g></svg>`;
}

// A face-down tile (another seat's hand, counted only).
function backSVG(u = 14) {
  return `<svg class="tile back" width="${u}" height="${2 * u}" viewBox="-1 -1 ${u + 2} ${2 * u + 2}">` +
    `<rect x="0" y="0" width="${u}" height="${2 * u}" rx="${u * 0.2}"/></svg>`;
}

// The line from its left end to its right, wrapped into rows no wider than the container;
// doubles stand crosswise. Returns one <svg> string.
function lineSVG(line, maxWidth) {
  if (!line.length) return `<div class="empty-line">The table is empty: the first tile opens the line.</div>`;
  const u = Math.max(16, Math.min(36, Math.floor(maxWidth / 14)));
  const gap = 2, rowHeight = 2 * u + 8;
  let x = 0, y = 0, width = 0, parts = [];
  for (const t of line) {
    const w = t.double ? u : 2 * u;
    if (x > 0 && x + w > maxWidth) { x = 0; y += rowHeight; }
    const ty = t.double ? y : y + u / 2;
    parts.push(`<g transform="translate(${x},${ty})" data-tile="${t.id}">` +
      tileSVG(t.left, t.right, {u, vertical: t.double}).replace("<svg", `<svg x="0" y="0"`) + `</g>`);
    x += w + gap;
    width = Math.max(width, x);
  }
  return `<svg class="line" width="${width}" height="${y + rowHeight}" viewBox="-2 -2 ${width + 4} ${y + rowHeight + 4}">` +
    parts.join("") + `</svg>`;
}

// Scoring sides: two teams (seats 0+2 and 1+3) or one per seat. 42 keeps marks per side.
function sides(s) {
  if (s.game === "texas42" && s.num_players === 4) {
    return [0, 1].map(k => ({label: `Team ${k} (seats ${k}+${k + 2})`, score: s.marks[k]}));
  }
  if (s.game === "texas42") return s.marks.map((m, k) => ({label: `Seat ${k}`, score: m}));
  if (s.teams) return [0, 1].map(k => ({label: `Team ${k} (seats ${k}+${k + 2})`, score: s.scores[k]}));
  return s.scores.map((p, k) => ({label: `Seat ${k}`, score: p}));
}

function scoresHTML(s) {
  const unit = s.game === "texas42" ? "marks" : "points";
  const target = s.target ? ` — first to ${s.target} ${unit}` : "";
  return `<div class="scores"><b>${unit[0].toUpperCase() + unit.slice(1)}</b>${esc(target)}: ` +
    sides(s).map((x, k) => `<span class="side">${esc(x.label)}: <span class="score" data-side="${k}">${x.score}</span></span>`).join(" ") +
    `</div>`;
}

// labels[seat]: the seat's name and status; showHands: every hand face up (replays).
function seatsHTML(s, labels, showHands) {
  return `<div class="seats">` + s.hand_sizes.map((n, seat) => {
    const me = seat === s.seat && !showHands && !labels[seat].includes("(you)") ? " (you)" : "";
    const turn = seat === s.current_player ? " turn" : "";
    const name = labels ? labels[seat] : `seat ${seat}`;
    let tiles;
    if (showHands && s.hands) {
      tiles = s.hands[seat].map(t => tileSVG(t.a, t.b, {u: 22, vertical: true})).join("");
    } else if (seat === s.seat) {
      tiles = `<span class="count">${n} tiles</span>`;
    } else {
      tiles = backSVG().repeat(Math.min(n, 12)) + `<span class="count">${n}</span>`;
    }
    return `<div class="seat${turn}" data-seat="${seat}"><div class="seat-name">${esc(name)}${me}</div>` +
      `<div class="seat-tiles">${tiles}</div></div>`;
  }).join("") + `</div>`;
}

function lineGameInfo(s) {
  const ends = s.ends ? `Open ends: <b>${s.ends[0]}</b> (left) and <b>${s.ends[1]}</b> (right). ` : "";
  return `<div class="info">Round ${s.round}; seat ${s.leader} led. ${ends}` +
    `Stock: <span id="stock">${s.stock_size}</span> (drawable ${s.drawable}), out of play ${s.out_of_play}.</div>`;
}

function trickHTML(plays) {
  return plays.map(p => `<span class="play">seat ${p.seat} ${tileSVG(p.tile.a, p.tile.b, {u: 20, vertical: true})}</span>`).join("");
}

function texasInfo(s) {
  const bids = s.bids.map((b, seat) => `seat ${seat}: ${b === null ? "—" : esc(b)}`).join(", ");
  const contract = s.declaration
    ? `Contract: seat ${s.bidder} ${esc(s.bid)}, ${esc(s.declaration)}. Points this hand: team 0 ${s.points[0]}, team 1 ${s.points[1]}.`
    : s.bid ? `High bid: seat ${s.bidder} ${esc(s.bid)}.` : "";
  const last = s.tricks[s.tricks.length - 1];
  const done = s.tricks.map((t, i) => `<div class="trick-row">trick ${i + 1}: ${trickHTML(t.plays)} → seat ${t.winner}</div>`).join("");
  return `<div class="info">Phase: <b>${esc(s.phase)}</b>; seat ${s.shaker} shook. Bids: ${bids}. ${contract}</div>` +
    `<div class="trick"><b>Trick:</b> ${trickHTML(s.trick) || "—"}</div>` +
    (last && !s.trick.length ? `<div class="trick"><b>Last trick</b> (seat ${last.winner} won it): ${trickHTML(last.plays)}</div>` : "") +
    `<details class="tricks"><summary>${s.tricks.length} tricks played</summary>${done}</details>`;
}

function previousHTML(s) {
  const p = s.previous;
  if (s.game !== "texas42" && s.current_player === null && s.results.length) {  // the line is still on the board
    return `<div class="previous">Last round: ${esc(s.results[s.results.length - 1].text)}</div>`;
  }
  if (!p) return "";
  if (s.game === "texas42") {
    const r = p.result, c = r.contract;
    return `<div class="previous">Last hand: seat ${c.bidder} ${esc(c.bid)}, ${esc(c.declaration)}: ${c.made ? "made" : "set"}; marks this hand ${esc(JSON.stringify(r.hand_marks))}.</div>`;
  }
  return `<div class="previous"><div>Last round: ${esc(p.result.text)}</div>${lineSVG(p.line, 700)}</div>`;
}

function logHTML(s) {
  return `<ol class="log">` + s.log.map(e => `<li>seat ${e.seat}: ${esc(e.text)}</li>`).join("") + `</ol>`;
}

// The whole table as HTML (hand and buttons are added by the page).
function boardHTML(s, labels, showHands, width) {
  const board = s.game === "texas42" ? texasInfo(s) : lineGameInfo(s) + `<div class="board">${lineSVG(s.line, width)}</div>`;
  return `<h2>${esc(s.title)}</h2>${scoresHTML(s)}${seatsHTML(s, labels, showHands)}${board}${previousHTML(s)}`;
}
