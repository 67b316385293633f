// Drawing shared by the table and the replay viewer: tiles as SVG dominoes with pips, the seats
// around a table (the page's seat at the bottom, a partner across), the line laid out as a snake
// that fits the table (doubles crosswise), the All Fives / Fives and Threes layout as a cross around
// its centre, Mexican Train's hub and trains, the Texas 42 trick by seat position, scores, the end
// of a round or hand in words. Everything drawn comes from one state message of the server
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
  5: ["", "left", "far left", "far right", "right"], 6: ["", "left", "far left", "across", "far right", "right"],
  7: ["", "near left", "left", "far left", "far right", "right", "near right"],
  8: ["", "near left", "left", "far left", "across", "far right", "right", "near right"]};

// Where each seat sits around the table, from the page's seat (at the bottom) going clockwise:
// CSS grid areas of the table (.felt). A partner (seat + 2 of four, the team of six) is across.
const AREAS = {2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"],
  5: ["bottom", "bl", "tl", "tr", "br"], 6: ["bottom", "bl", "tl", "top", "tr", "br"],
  7: ["bottom", "bl", "left", "tl", "tr", "right", "br"], 8: ["bottom", "bl", "left", "tl", "top", "tr", "right", "br"]};
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

// ----- the All Fives / Fives and Threes layout ---------------------------------------------------
const ARM_DIRECTIONS = [[-1, 0], [1, 0], [0, -1], [0, 1]];  // W, E, N, S: the way each arm grows on screen
const ARM_GAP = 0.2;  // between two tiles of an arm, in tile halves

// Room an arm takes along its direction, in tile halves (a double stands across it: one half).
function armLength(arm) { return arm.reduce((sum, t) => sum + (t.double ? 1 : 2) + ARM_GAP, 0); }

// The layout as a cross, as the terminal's picture draws it (frontends/render.py): the centre (the
// spinner, or a double, crosswise) and the arms W, E, N, S growing out of it, doubles across their
// arm; after each open end a dashed slot showing its value (data-end: the end id, which a pending
// tile's legal ends make clickable); lastTile is outlined. As large as fits maxWidth.
function layoutSVG(layout, maxWidth, ends = [], lastTile = null) {
  if (!layout) return `<div class="empty-line">The table is empty: the first tile is the lead.</div>`;
  const c = layout.centre, crosswise = c.spinner || c.double;
  const [cw, ch] = crosswise ? [1, 2] : [2, 1];
  const slot = e => ends[e] === null || ends[e] === undefined ? 0 : (e < 2 ? 2 : 1) + 2 * ARM_GAP;
  const reach = layout.arms.map((arm, e) => (e < 2 ? cw : ch) / 2 + ARM_GAP + armLength(arm) + slot(e));
  const [west, east] = [Math.max(reach[0], cw / 2), Math.max(reach[1], cw / 2)];
  const [north, south] = [Math.max(reach[2], 1, ch / 2), Math.max(reach[3], 1, ch / 2)];
  const u = Math.max(3, Math.min(30, maxWidth / (west + east), 600 / (north + south)));
  const cx = west * u, cy = north * u, parts = [];
  const put = (t, x, y, a, b, vertical, extra = "") => {
    const last = t.id === lastTile ? " last" : "";
    parts.push(`<g class="placed${last}" transform="translate(${x},${y})" data-tile="${t.id}"${extra}>` +
      tileSVG(a, b, {u, vertical, cls: last}).replace("<svg", `<svg x="0" y="0"`) + `</g>`);
  };
  put(c, cx - cw * u / 2, cy - ch * u / 2, c.west, c.east, crosswise, c.spinner ? ` data-spinner="1"` : "");
  layout.arms.forEach((arm, e) => {
    const [dx, dy] = ARM_DIRECTIONS[e];
    let along = ((dx ? cw : ch) / 2 + ARM_GAP) * u;
    const box = (length, across) => dx  // the top-left corner of the next box along the arm
      ? [dx > 0 ? cx + along : cx - along - length, cy - across / 2]
      : [cx - across / 2, dy > 0 ? cy + along : cy - along - length];
    for (const t of arm) {
      const length = (t.double ? 1 : 2) * u, [x, y] = box(length, (t.double ? 2 : 1) * u);
      const [a, b] = dx + dy > 0 ? [t.inner, t.outer] : [t.outer, t.inner];
      put(t, x, y, a, b, dx ? t.double : !t.double);
      along += length + ARM_GAP * u;
    }
    if (slot(e)) {
      const [w, h] = dx ? [2 * u, u] : [u, 2 * u], [x, y] = box(dx ? w : h, dx ? h : w);
      parts.push(`<g class="end-slot" data-end="${e}" transform="translate(${x},${y})">` +
        `<rect width="${w}" height="${h}" rx="${u * 0.15}"/>` +
        `<text x="${w / 2}" y="${h / 2 + u * 0.2}" font-size="${u * 0.55}" text-anchor="middle">${ends[e]}</text></g>`);
    }
  });
  const width = (west + east) * u, height = (north + south) * u;
  return `<svg class="layout" width="${width}" height="${height}" viewBox="-2 -2 ${width + 4} ${height + 4}">` +
    parts.join("") + `</svg>`;
}

function fivesInfo(s, ctx) {
  const open = s.ends.map((v, e) => v === null ? "" : `<b>${v}</b> (${s.end_names[e]})`).filter(Boolean).join(", ");
  const spinner = s.layout && s.layout.centre.spinner
    ? (s.spinner_sides < 2 ? " The spinner's north and south open once both its sides hold a tile." : "") : "";
  const stock = s.variant === "all_fives"
    ? `Stock: <span id="stock">${s.stock_size}</span> (drawable ${s.drawable}${s.reserve ? `, ${s.reserve} never drawn` : ""}).`
    : `Out of play: ${s.out_of_play}.`;
  const ends = s.layout ? `Open ends: ${open}. Count: <b id="count">${s.count}</b>.${spinner} ` : "";
  return `<div class="info">Hand ${s.round}; ${esc(ctx.labels[s.leader])} led. ${ends}${stock}</div>`;
}

// ----- Mexican Train's hub and trains -------------------------------------------------------------
function trainName(train, ctx) {
  return train.owner === null ? "Mexican train" : `${possessive(ctx.labels[train.owner])} train`;
}

// What the ends a tile may go on are called, by end id (a legal move's "side"): the line's left and
// right, the Fives layout's west, east, north and south, Mexican Train's trains.
function endNames(s, ctx) {
  if (s.game === "mexican_train") return s.trains.map(t => trainName(t, ctx));
  return s.end_names || ["left", "right"];
}

// The engine double in the hub and one row per train (every seat's, then the Mexican train), as the
// terminal's picture draws them (frontends/render.py): its name, its marker when marked (open to
// all), its tiles from the hub outward (doubles crosswise; the open double ringed) and its end. A
// row is the end data-end, which a pending tile's legal trains make clickable; lastTile is outlined.
function trainsHTML(trains, engine, ctx, lastTile = null) {
  const longest = Math.max(1, ...trains.map(t => t.tiles.length));
  const u = Math.max(9, Math.min(20, Math.floor((ctx.width - 230) / (2.2 * longest))));
  const rows = trains.map((train, k) => {
    const tiles = train.tiles.map((t, i) => {
      const open = train.open_double && i === train.tiles.length - 1 ? " open-double" : "";
      return tileSVG(t.left, t.right, {u, vertical: t.double, cls: (t.id === lastTile ? "last" : "") + open});
    }).join("");
    const marker = train.marked ? `<span class="marker" title="marked: open to every player">marked</span>` : "";
    const end = train.end === null || train.end === undefined ? "" : `<span class="train-end">end ${train.end}</span>`;
    return `<div class="train" data-end="${k}"><div class="train-name">${esc(trainName(train, ctx))} ${marker}</div>` +
      `<div class="train-tiles">${tiles || `<span class="count">not started</span>`} ${end}</div></div>`;
  }).join("");
  return `<div class="trains"><div class="hub" title="the engine">${tileSVG(engine, engine, {u: 22, vertical: true})}` +
    `<small>engine</small></div><div class="train-rows">${rows}</div></div>`;
}

function trainInfo(s, ctx) {
  const doubles = s.open_doubles.map(d => `${d.value}-${d.value} on ${esc(trainName(s.trains[d.train], ctx))}`).join(", ");
  const cover = doubles ? ` <b class="open-double-note">Cover the open double ${doubles} before anything else.</b>` : "";
  return `<div class="info">Round ${s.round} of ${s.rounds}, engine ${s.engine}-${s.engine}; ${esc(ctx.labels[s.leader])} ` +
    `${verb(ctx.labels[s.leader], "start")}. Boneyard: <span id="stock">${s.boneyard_size}</span>.${cover}` +
    `${s.in_run ? " Opening run: play on your own train, or stop." : ""}</div>`;
}

// ----- the table --------------------------------------------------------------------------------
// What scores are counted in: 42's marks, the fives of All Fives' score_unit=fives, else points.
function scoreUnit(s) { return s.game === "texas42" ? "marks" : s.unit || "points"; }

function scoresHTML(s, ctx) {
  const unit = scoreUnit(s);
  const target = s.game === "mexican_train" ? ` — round ${s.round} of ${s.rounds}, the fewest wins`
    : s.target ? ` — first to ${s.exact_target ? "exactly " : ""}${s.target} ${unit}` : "";
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

// How an All Fives or Fives and Threes hand ended, the pips left and the points of the hand.
function fivesHandText(r, s, ctx) {
  const L = ctx.labels, w = r.winners.length ? r.winners[0] : null, unit = scoreUnit(s);
  const scorer = k => s.teams ? teamLabel(k % 2, ctx) : L[k];
  let how;
  if (r.kind === "target") how = "The target was reached during play: the match ends at once.";
  else if (r.kind === "domino") how = `${L[w]} went out.`;
  else if (w === null) how = "The game blocked with a tie for the fewest pips: nobody scores the hand.";
  else how = `The game blocked; ${L[w]} ${verb(L[w], "hold")} the fewest pips.`;
  const pips = "Pips left: " + r.pips.map((p, k) => `${L[k]} ${p}`).join(", ") + ".";
  const bonus = w !== null && r.hand_points[w]
    ? ` ${scorer(w)} ${s.teams ? "scores" : verb(L[w], "score")} ${r.hand_points[w]} for the hand.` : "";
  const points = sides(s, ctx).map(x => `${x.label} ${r.round_points[x.side]}`).join(", ");
  return `${how} ${pips}${bonus} ${unit[0].toUpperCase() + unit.slice(1)} this hand: ${points}.`;
}

// How a Mexican Train round ended and what each seat scored (the pips left: fewer is better).
function trainRoundText(r, s, ctx) {
  const L = ctx.labels;
  const how = r.kind === "domino" ? `${L[r.winners[0]]} went out.` : "The game blocked: nobody could play on.";
  return `${how} Points (the pips left, fewer is better): ` + r.round_points.map((p, k) => `${L[k]} ${p}`).join(", ") + ".";
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
  const texas = s.game === "texas42", fives = s.game === "fives", trains = s.game === "mexican_train";
  const title = texas || fives ? `Hand ${texas ? p.hand : p.round}` : `Round ${p.round}`;
  const text = texas ? texasHandText(p.result, s, ctx) : fives ? fivesHandText(p.result, s, ctx)
    : trains ? trainRoundText(p.result, s, ctx) : lineRoundText(p.result, s, ctx);
  const fresh = s.over || (texas ? !s.tricks.length && !s.trick.length : fives ? !s.layout
    : trains ? !s.trains.some(t => t.tiles.length) : !s.line.length);
  let detail = "";
  if (texas && p.trick) detail += `<div class="trick"><b>The deciding trick</b> (${esc(ctx.labels[p.trick.winner])} won it): ${trickHTML(p.trick.plays, ctx)}</div>`;
  if (!texas && !s.over) {
    const n = s.hand_sizes.length, laid = trains && p.trains.map((tiles, k) => ({owner: k < n ? k : null, tiles}));
    detail += `<div class="board">${fives ? layoutSVG(p.layout, ctx.width) : trains ? trainsHTML(laid, p.engine, ctx) : lineSVG(p.line, ctx.width)}</div>`;
  }
  if (p.hands) {
    detail += `<div class="revealed"><b>Every hand at the end:</b>` + p.hands.map((h, k) =>
      `<div class="revealed-hand" data-seat="${k}">${esc(ctx.labels[k])}: ${faceUp(h, 16)}</div>`).join("") + `</div>`;
  }
  return `<details class="previous"${fresh ? " open" : ""}><summary><b>${title}:</b> <span class="result-text">${esc(text)}</span></summary>${detail}</details>`;
}

// Who won the game, in words.
function gameOverText(s, ctx) {
  if (s.game === "dominoes" && !s.target) {  // one round: its winner
    const r = s.results[s.results.length - 1];
    if (!r || !r.winners.length) return "Nobody wins: the round blocked with a tie.";
    const w = r.winners[0], name = s.teams ? teamLabel(w % 2, ctx) : ctx.labels[w];
    return `${name} ${s.teams ? "wins" : verb(name, "win")} the round.`;
  }
  // Each for themselves, several may share the top (both opponents of a set bidder in three-player 42);
  // Mexican Train's best total is the lowest.
  const all = sides(s, ctx), lowWins = s.game === "mexican_train";
  const top = lowWins ? Math.min(...all.map(x => x.score)) : Math.max(...all.map(x => x.score));
  const best = all.filter(x => x.score === top), unit = scoreUnit(s);
  if (isTeamGame(s) && best.length > 1) return `A tie: both teams have ${top} ${unit}.`;
  const rest = all.filter(x => !best.includes(x)).map(x => x.score).join(" and ");
  const name = isTeamGame(s) ? teamLabel(best[0].side, ctx) : best.map(x => x.label).join(" and ");
  const many = isTeamGame(s) ? "wins" : best.length > 1 ? "win" : verb(name, "win");
  return `${name} ${many} with ${top} ${unit}${lowWins ? " (the fewest)" : ""}${rest ? ` to ${rest}` : ""}.`;
}

function logHTML(s, ctx) {
  const scored = e => e.points ? ` <b class="scored">+${e.points}</b>` : "";  // All Fives, Fives and Threes
  return `<ol class="log">` + s.log.map(e => `<li>${esc(ctx.labels[e.seat])}: ${esc(e.text)}${scored(e)}</li>`).join("") + `</ol>`;
}

// The whole table as HTML (hand and buttons are added by the page). ctx: labels (per seat),
// viewer (the page's seat, null in a replay), showHands (a replay), width (of the board).
function boardHTML(s, ctx) {
  const texas = s.game === "texas42", fives = s.game === "fives", trains = s.game === "mexican_train";
  const count = s.hand_sizes.length, width = centerWidth(ctx, count);
  const laid = () => fives ? layoutSVG(s.layout, width, s.ends, s.last_tile)
    : trains ? trainsHTML(s.trains, s.engine, {...ctx, width}, s.last_tile) : lineSVG(s.line, width, s.last_tile);
  const center = texas ? trickTableHTML(s, ctx) : `<div class="board">${laid()}</div>`;
  const info = texas ? texasInfo(s, ctx) : fives ? fivesInfo(s, ctx) : trains ? trainInfo(s, ctx) : lineGameInfo(s, ctx);
  const open = s.open_hands && ctx.viewer !== null && ctx.viewer !== undefined
    ? `<div class="open-hands" role="note">Open hands: this table shows every hand to every seat.</div>` : "";
  return `${open}<h2>${esc(s.title)}</h2>${scoresHTML(s, ctx)}${tableHTML(s, ctx, center)}${info}${roundEndHTML(s, ctx)}`;
}
