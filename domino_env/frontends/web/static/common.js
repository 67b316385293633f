// Drawing shared by the table and the replay viewer: tiles as SVG dominoes with pips, the seats
// around a table (the page's seat at the bottom, a partner across), the line laid out as a snake
// that fits the table (doubles crosswise), the Texas 42 trick by seat position, scores, the end of
// a round or hand in words. Everything drawn comes from one state message of the server
// (domino_env/frontends/web/protocol.py). Seats are named by `ctx.labels` ("You", "Partner", a
// bot's name; the replay: the record's seat names), never by number.
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
const POSITIONS = {2: ["", "across"], 3: ["", "left", "right"], 4: ["", "left", "across", "right"],
  6: ["", "left", "far left", "across", "far right", "right"]};

// Where each seat sits around the table, from the page's seat (at the bottom) going clockwise:
// CSS grid areas of the table (.felt). A partner (seat + 2 of four, the team of six) is across.
const AREAS = {2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"],
  6: ["bottom", "bl", "tl", "top", "tr", "br"]};
const SIDE_WIDTH = 150;  // px of each side column of the table (style.css .felt.sides)
const PHONE_WIDTH = 640;  // below this the seats stand in rows above the table (style.css)

function areaOf(seat, n, viewer) {
  const me = viewer === null || viewer === undefined ? 0 : viewer;
  return (AREAS[n] || [])[(seat - me + n) % n] || "top";
}

function esc(text) {
  return String(text).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

// The width the board may use inside <main> (its padding and the board's own taken off).
function boardWidth() {
  const main = document.querySelector("main");
  return Math.max(200, Math.min(main.clientWidth - 60, 1100));
}

// ----- names ------------------------------------------------------------------------------------
function botName(kind) {
  const name = kind.split(":")[0];
  return name.charAt(0).toUpperCase() + name.slice(1);
}

// The seats as the page of seat s.seat names them: "You", "Partner", a bot's name, "Opponent";
// a name shared by two seats gets the seat's place at the table (left, across, right).
function relativeNames(s) {
  const n = s.seats.length, me = s.seat, team = isTeamGame(s);
  const names = s.seats.map((x, k) => {
    if (k === me) return "You";
    const partner = team && k % 2 === me % 2;
    if (x.kind === "person") return partner ? "Partner" : "Opponent";
    return partner ? `Partner (${botName(x.kind)})` : botName(x.kind);
  });
  return names.map((name, k) =>
    names.filter(x => x === name).length > 1 ? `${name} (${POSITIONS[n][(k - me + n) % n]})` : name);
}

function verb(name, word) { return name === "You" ? word : word + "s"; }
function possessive(name) { return name === "You" ? "Your" : `${name}'s`; }

// Two teams: a line game with teams, four-player 42 and Texas 88 (seats 0+2(+4) against 1+3(+5)).
function isTeamGame(s) { return s.game === "texas42" ? s.num_players !== 3 : s.teams; }

// The seats of team k (every other seat).
function teamSeats(k, n) { return Array.from({length: n}, (_, i) => i).filter(i => i % 2 === k); }

// A team by its members (the scores) or, short, from the viewer's side ("Your team", "Their team").
function teamLabel(k, ctx, members = false) {
  const who = teamSeats(k, ctx.labels.length).map(i => ctx.labels[i]).join(" + ");
  if (ctx.viewer === null || ctx.viewer === undefined) return `Team ${k + 1} (${who})`;
  const side = ctx.viewer % 2 === k ? "Your team" : "Their team";
  return members ? `${side} (${who})` : side;
}

// Scoring sides: two teams (seats 0+2 and 1+3) or one per seat. 42 keeps marks per side.
function sides(s, ctx) {
  const totals = s.game === "texas42" ? s.marks : s.scores;
  if (isTeamGame(s)) return [0, 1].map(k => ({label: teamLabel(k, ctx, true), score: totals[k], side: k}));
  return totals.map((p, k) => ({label: ctx.labels[k], score: p, side: k}));
}

// ----- tiles ------------------------------------------------------------------------------------
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

function faceUp(tiles, u = 20) {
  return tiles.length ? tiles.map(t => tileSVG(t.a, t.b, {u, vertical: true})).join("") : `<span class="count">no tiles</span>`;
}

// The line from its left end to its right as a snake: rows no wider than maxWidth, the first
// going right, the next coming back (its tiles turned so that touching halves stay together), and
// so on, so the order is kept and every tile touches the one before it; doubles stand crosswise;
// lastTile is outlined.
function lineSVG(line, maxWidth, lastTile = null) {
  if (!line.length) return `<div class="empty-line">The table is empty: the first tile opens the line.</div>`;
  const u = Math.max(12, Math.min(32, Math.floor(maxWidth / 14)));
  const gap = 2, rowHeight = 2 * u + 8;
  const rows = [[]];
  let x = 0;
  for (const t of line) {
    const w = t.double ? u : 2 * u;
    if (x > 0 && x + w > maxWidth) { rows.push([]); x = 0; }
    rows[rows.length - 1].push({t, w});
    x += w + gap;
  }
  const width = Math.min(maxWidth, Math.max(...rows.map(r => r.reduce((a, c) => a + c.w + gap, 0))));
  const parts = [];
  rows.forEach((row, r) => {
    const back = r % 2 === 1, y = r * rowHeight;
    let x = back ? width : 0;
    for (const {t, w} of row) {
      if (back) x -= w + gap;
      const ty = t.double ? y : y + u / 2;
      const last = t.id === lastTile ? " last" : "";
      const [a, b] = back && !t.double ? [t.right, t.left] : [t.left, t.right];  // coming back: turned round
      parts.push(`<g class="placed${last}" transform="translate(${x},${ty})" data-tile="${t.id}">` +
        tileSVG(a, b, {u, vertical: t.double, cls: last}).replace("<svg", `<svg x="0" y="0"`) + `</g>`);
      if (!back) x += w + gap;
    }
  });
  const height = rows.length * rowHeight;
  return `<svg class="line" width="${width}" height="${height}" viewBox="-2 -2 ${width + 4} ${height + 4}">` +
    parts.join("") + `</svg>`;
}

// ----- the table --------------------------------------------------------------------------------
function scoresHTML(s, ctx) {
  const unit = s.game === "texas42" ? "marks" : "points";
  const target = s.target ? ` — first to ${s.target} ${unit}` : "";
  return `<div class="scores"><b>${unit[0].toUpperCase() + unit.slice(1)}</b>${esc(target)}: ` +
    sides(s, ctx).map(x => `<span class="side">${esc(x.label)}: <span class="score" data-side="${x.side}">${x.score}</span></span>`).join(" ") +
    `</div>`;
}

// Every seat in its place around the table (areaOf) with its name, whether it is to play, and its
// tiles: face down (counted), or face up in a replay and at an open-hands table; center: what lies
// on the table (the line, or the trick).
function tableHTML(s, ctx, center) {
  const shown = (ctx.showHands || s.open_hands) && s.hands, count = s.hand_sizes.length;
  const seats = s.hand_sizes.map((n, seat) => {
    const turn = seat === s.current_player && !s.over ? " turn" : "";
    const mine = seat === ctx.viewer ? " mine" : "";
    let tiles;
    if (shown) tiles = faceUp(s.hands[seat], 16);
    else if (seat === ctx.viewer) tiles = `<span class="count">${n} tile${n === 1 ? "" : "s"}</span>`;
    else tiles = backSVG(10).repeat(Math.min(n, 12)) + `<span class="count">${n}</span>`;
    const marker = turn ? `<span class="to-act">to play</span>` : "";
    const area = areaOf(seat, count, ctx.viewer);
    return `<div class="seat${turn}${mine}" data-seat="${seat}" data-area="${area}" style="grid-area: ${area}">` +
      `<div class="seat-name">${esc(ctx.labels[seat])} ${marker}</div><div class="seat-tiles">${tiles}</div></div>`;
  }).join("");
  return `<div class="felt${count > 2 ? " sides" : ""} seats-${count}">${seats}<div class="felt-center">${center}</div></div>`;
}

// The width the middle of the table leaves to the line (the side seats' columns taken off).
function centerWidth(ctx, count) {
  const sides = count > 2 && window.innerWidth > PHONE_WIDTH ? 2 * (SIDE_WIDTH + 12) : 0;
  return Math.max(160, ctx.width - sides - 24);
}

function lineGameInfo(s, ctx) {
  const ends = s.ends ? `Open ends: <b>${s.ends[0]}</b> (left) and <b>${s.ends[1]}</b> (right). ` : "";
  return `<div class="info">Round ${s.round}; ${esc(ctx.labels[s.leader])} led. ${ends}` +
    `Stock: <span id="stock">${s.stock_size}</span> (drawable ${s.drawable}), out of play ${s.out_of_play}.</div>`;
}

function trickHTML(plays, ctx, highlightLast = false) {
  return plays.map((p, i) => {
    const last = highlightLast && i === plays.length - 1 ? "last" : "";
    return `<span class="play">${esc(ctx.labels[p.seat])} ${tileSVG(p.tile.a, p.tile.b, {u: 20, vertical: true, cls: last})}</span>`;
  }).join("");
}

// The trick on the table, each tile in front of the seat that played it (areaOf); the tile that
// completes a trick stays there, with the trick's winner, until the next lead.
function trickTableHTML(s, ctx) {
  const n = s.hand_sizes.length, last = s.tricks[s.tricks.length - 1];
  const closed = !s.trick.length && last && !(s.over && s.previous);
  // between hands (and at the end): the trick that decided the hand just scored
  const deciding = !s.trick.length && !closed && s.previous && s.previous.trick && (s.over || !s.tricks.length);
  const plays = s.trick.length ? s.trick : closed ? last.plays : deciding ? s.previous.trick.plays : [];
  const tiles = plays.map((p, i) => {
    const cls = i === plays.length - 1 ? "last" : "";
    return `<div class="play" data-seat="${p.seat}" style="grid-area: ${areaOf(p.seat, n, ctx.viewer)}">` +
      `${tileSVG(p.tile.a, p.tile.b, {u: 20, vertical: true, cls})}<small>${esc(ctx.labels[p.seat])}</small></div>`;
  }).join("");
  const caption = s.trick.length ? `Trick ${s.tricks.length + 1}`
    : closed ? `${esc(ctx.labels[last.winner])} won trick ${s.tricks.length}`
    : deciding ? `${esc(ctx.labels[s.previous.trick.winner])} won the deciding trick of hand ${s.previous.hand}` : esc(s.phase);
  return `<div class="trick-table seats-${n}">${tiles}<div class="trick-caption">${caption}</div></div>`;
}

function texasInfo(s, ctx) {
  const L = ctx.labels;
  const bids = s.bids.map((b, seat) => `${esc(L[seat])}: ${b === null ? "—" : esc(b)}`).join(", ");
  const team = k => (ctx.viewer === null || ctx.viewer === undefined) ? `team ${k + 1}` : (ctx.viewer % 2 === k ? "your team" : "their team");
  const points = isTeamGame(s) ? `${team(0)} ${s.points[0]}, ${team(1)} ${s.points[1]}`
    : `${esc(L[s.bidder])} ${s.points[0]}, the other two ${s.points[1]}`;  // three players: the bidder alone
  const contract = s.declaration
    ? `Contract: ${esc(L[s.bidder])} ${esc(s.bid)}, ${esc(s.declaration)}. Points this hand: ${points}.`
    : s.bid ? `High bid: ${esc(L[s.bidder])} ${esc(s.bid)}.` : "";
  const last = s.tricks[s.tricks.length - 1];
  const done = s.tricks.map((t, i) => `<div class="trick-row">trick ${i + 1}: ${trickHTML(t.plays, ctx)} → ${esc(L[t.winner])}</div>`).join("");
  return `<div class="info">Phase: <b>${esc(s.phase)}</b>; ${esc(L[s.shaker])} shook. Bids: ${bids}. ${contract}</div>` +
    `<div class="trick current-trick" hidden>${trickHTML(s.trick, ctx, true)}</div>` +
    (last && !s.trick.length && !(s.over && s.previous) ? `<div class="trick last-trick"><b>Last trick</b> (${esc(L[last.winner])} won it): ${trickHTML(last.plays, ctx, true)}</div>` : "") +
    `<details class="tricks"><summary>${s.tricks.length} tricks played</summary>${done}</details>`;
}

// ----- the end of a round or hand ---------------------------------------------------------------
// How a line round ended, in words and with the scoring's arithmetic (docs/rules.md 2.4).
function lineRoundText(r, s, ctx) {
  const L = ctx.labels, team = s.teams, sideOf = k => team ? k % 2 : k;
  const w = r.winners.length ? r.winners[0] : null;
  let how;
  if (r.kind === "domino") how = `${L[w]} went out.`;
  else if (w === null) how = "The game blocked with a tie for the fewest pips between the sides: nobody scores.";
  else how = `The game blocked; ${L[w]} ${verb(L[w], "hold")} the fewest pips.`;
  const pips = "Pips counted: " + r.pips.map((p, k) => `${L[k]} ${p}`).join(", ") + ".";
  if (w === null) return `${how} ${pips}`;
  const others = r.pips.filter((p, k) => sideOf(k) !== sideOf(w));
  const scorer = team ? teamLabel(sideOf(w), ctx) : L[w];
  let sum = others.length > 1 ? `${others.join(" + ")} in the other hands` : `${others[0]} in the other hand`;
  if (s.scoring === "others_minus_own") sum += ` minus ${r.pips[w]} in ${L[w] === "You" ? "yours" : L[w] + "'s own"}`;
  const points = r.round_points[w];
  return `${how} ${pips} ${scorer} ${team ? "scores" : verb(L[w], "score")} ${points} point${points === 1 ? "" : "s"} (${sum}).`;
}

function texasHandText(r, s, ctx) {
  const L = ctx.labels, c = r.contract;
  const other = (c.bidder + 1) % r.points_taken.length;  // three players: the two against the bidder
  const taken = isTeamGame(s) ? ` Points taken: ${teamLabel(0, ctx)} ${r.points_taken[0]}, ${teamLabel(1, ctx)} ${r.points_taken[1]}.`
    : ` Points taken: ${L[c.bidder]} ${r.points_taken[c.bidder]}, the other two ${r.points_taken[other]}.`;
  const gained = r.hand_marks.map((m, k) => [m, k]).filter(([m]) => m > 0);
  const marks = isTeamGame(s)
    ? gained.filter(([, k]) => k < 2).map(([m, k]) => `${teamLabel(k, ctx)} ${m === 1 ? "gains 1 mark" : `gains ${m} marks`}.`).join(" ")
    : gained.map(([m, k]) => `${L[k]} ${verb(L[k], "gain")} ${m} mark${m === 1 ? "" : "s"}.`).join(" ");
  return `${L[c.bidder]} ${verb(L[c.bidder], "bid")} ${c.bid.replace(/^bid /, "")} with ${c.declaration} and ${c.made ? "made it" : "was set"}.${taken} ${marks}`;
}

// The round or hand just ended: open (text, the deciding trick or final line, every hand) while
// the next has not started and when the game is over; afterwards one line that opens on a click.
function roundEndHTML(s, ctx) {
  const p = s.previous;
  if (!p) return "";
  const texas = s.game === "texas42";
  const title = texas ? `Hand ${p.hand}` : `Round ${p.round}`;
  const text = texas ? texasHandText(p.result, s, ctx) : lineRoundText(p.result, s, ctx);
  const fresh = s.over || (texas ? !s.tricks.length && !s.trick.length : !s.line.length);
  let detail = "";
  if (texas && p.trick) detail += `<div class="trick"><b>The deciding trick</b> (${esc(ctx.labels[p.trick.winner])} won it): ${trickHTML(p.trick.plays, ctx)}</div>`;
  if (!texas && !s.over) detail += `<div class="board">${lineSVG(p.line, ctx.width)}</div>`;
  if (p.hands) {
    detail += `<div class="revealed"><b>Every hand at the end:</b>` + p.hands.map((h, k) =>
      `<div class="revealed-hand" data-seat="${k}">${esc(ctx.labels[k])}: ${faceUp(h, 16)}</div>`).join("") + `</div>`;
  }
  return `<details class="previous"${fresh ? " open" : ""}><summary><b>${title}:</b> <span class="result-text">${esc(text)}</span></summary>${detail}</details>`;
}

// Who won the game, in words.
function gameOverText(s, ctx) {
  if (s.game !== "texas42" && !s.target) {  // one round: its winner
    const r = s.results[s.results.length - 1];
    if (!r || !r.winners.length) return "Nobody wins: the round blocked with a tie.";
    const w = r.winners[0], name = s.teams ? teamLabel(w % 2, ctx) : ctx.labels[w];
    return `${name} ${s.teams ? "wins" : verb(name, "win")} the round.`;
  }
  // Each for themselves, several may share the top (both opponents of a set bidder in three-player 42).
  const all = sides(s, ctx), top = Math.max(...all.map(x => x.score));
  const best = isTeamGame(s) ? [all.find(x => x.score === top)] : all.filter(x => x.score === top);
  const rest = all.filter(x => !best.includes(x)).map(x => x.score).join(" and ");
  const unit = s.game === "texas42" ? "marks" : "points";
  const name = isTeamGame(s) ? teamLabel(best[0].side, ctx) : best.map(x => x.label).join(" and ");
  const many = isTeamGame(s) ? "wins" : best.length > 1 ? "win" : verb(name, "win");
  return `${name} ${many} with ${top} ${unit}${rest ? ` to ${rest}` : ""}.`;
}

function logHTML(s, ctx) {
  return `<ol class="log">` + s.log.map(e => `<li>${esc(ctx.labels[e.seat])}: ${esc(e.text)}</li>`).join("") + `</ol>`;
}

// The whole table as HTML (hand and buttons are added by the page). ctx: labels (per seat),
// viewer (the page's seat, null in a replay), showHands (a replay), width (of the board).
function boardHTML(s, ctx) {
  const texas = s.game === "texas42", count = s.hand_sizes.length;
  const center = texas ? trickTableHTML(s, ctx)
    : `<div class="board">${lineSVG(s.line, centerWidth(ctx, count), s.last_tile)}</div>`;
  const info = texas ? texasInfo(s, ctx) : lineGameInfo(s, ctx);
  const open = s.open_hands && ctx.viewer !== null && ctx.viewer !== undefined
    ? `<div class="open-hands" role="note">Open hands: this table shows every hand to every seat.</div>` : "";
  return `${open}<h2>${esc(s.title)}</h2>${scoresHTML(s, ctx)}${tableHTML(s, ctx, center)}${info}${roundEndHTML(s, ctx)}`;
}
