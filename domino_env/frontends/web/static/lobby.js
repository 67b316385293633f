// The lobby: choose the game, preset, options and who sits where; the server checks everything
// (frontends/terminal.build_setup and the browser's own bounds) and answers with one link per person
// seat. The defaults are the service the rules reproduce: boardpan, to 100 points.
"use strict";

let catalogue = null;

function game() { return catalogue.games.find(g => g.name === document.getElementById("game").value); }

function fillOptions(select, values, chosen) {
  select.innerHTML = values.map(v => `<option value="${esc(v)}"${v === chosen ? " selected" : ""}>${esc(v)}</option>`).join("");
}

// The form of the game chosen (Texas 42: by preset and players, each with the bots it seats).
function form() {
  const g = game(), preset = document.getElementById("preset").value;
  const n = Number(document.getElementById("players").value);
  const t = (g.tables || []).find(x => x.preset === preset && x.players === n);
  return t || {bots: g.bots, default_bot: g.default_bot};
}

function refreshSeats() {
  const f = form(), n = Number(document.getElementById("players").value);
  const box = document.getElementById("seats"), old = [...box.querySelectorAll("input")].map(i => i.value);
  document.getElementById("bots").innerHTML = [catalogue.person, ...f.bots].map(b => `<option value="${esc(b)}">`).join("");
  box.innerHTML = Array.from({length: n}, (_, seat) => {
    const kept = old[seat] && (old[seat] === catalogue.person || f.bots.includes(old[seat].split(":")[0]));
    const value = kept ? old[seat] : (seat === 0 ? catalogue.person : f.default_bot);
    return `<label>Seat ${seat} <input list="bots" class="seat-input" data-seat="${seat}" value="${esc(value)}"></label>`;
  }).join("");
}

// The player counts the preset allows (Texas 88: six; 42: four or three).
function refreshPlayers() {
  const g = game(), preset = document.getElementById("preset").value;
  const counts = g.tables ? [...new Set(g.tables.filter(t => t.preset === preset).map(t => t.players))] : g.players;
  const select = document.getElementById("players"), was = Number(select.value);
  fillOptions(select, counts.map(String), String(counts.includes(was) ? was : counts[0]));
  refreshSeats();
}

// Texas 42's optional rules as checkboxes and choices (docs/rules.md 3): each adds KEY=VALUE.
function rulesHTML(options) {
  return options.map(o => {
    const [key, values] = o.split("="), choices = values.split("|");
    const label = key.replace(/_/g, " ");
    if (choices.length === 1) return `<label><input type="checkbox" class="rule" data-key="${esc(key)}" value="${esc(choices[0])}"> ${esc(label)}</label>`;
    return `<label>${esc(label)} <select class="rule" data-key="${esc(key)}"><option value="">default</option>` +
      choices.map(c => `<option value="${esc(c)}">${esc(c)}</option>`).join("") + `</select></label>`;
  }).join("");
}

function chosenRules() {
  return [...document.querySelectorAll(".rule")]
    .filter(el => el.type === "checkbox" ? el.checked : el.value !== "")
    .map(el => `${el.dataset.key}=${el.value}`);
}

function refreshGame() {
  const g = game();
  fillOptions(document.getElementById("preset"), g.presets, g.presets[0]);  // the first is the default
  document.getElementById("target").value = g.default_target === null ? "" : String(g.default_target);
  document.getElementById("teams-label").hidden = !g.teams;
  document.getElementById("target-unit").textContent = g.target;
  document.getElementById("options-hint").textContent = g.options ? "more rules as KEY=VALUE" : g.options_hint ?? "e.g. draw_policy=any, max_pips=9";
  const rules = document.getElementById("rules");
  rules.hidden = !g.options;
  rules.innerHTML = g.options ? `<legend>Rules</legend>` + rulesHTML(g.options) : "";
  document.getElementById("seats").innerHTML = "";  // another game's bots would not fit
  refreshPlayers();
}

async function refreshTables() {
  const tables = await (await fetch("/api/tables")).json();
  document.getElementById("tables").innerHTML = tables.map(t =>
    `<li>${esc(t.id)}: ${esc(t.title)} — ${t.seats.map(esc).join(", ")} — ${t.moves} moves` +
    (t.over ? ` — over, <a href="/replay?table=${encodeURIComponent(t.id)}">replay</a>` : " — in play") + `</li>`).join("");
}

async function createTable(event) {
  event.preventDefault();
  const number = id => document.getElementById(id).value === "" ? null : Number(document.getElementById(id).value);
  const body = {
    game: game().name,
    preset: document.getElementById("preset").value,
    teams: document.getElementById("teams").checked,
    one_round: document.getElementById("one-round").checked,
    target: document.getElementById("one-round").checked ? null : number("target"),
    turn_seconds: number("turn-seconds"), seed: number("seed"),
    options: [...chosenRules(), ...document.getElementById("options").value.split(",").map(x => x.trim()).filter(Boolean)],
    seats: [...document.querySelectorAll(".seat-input")].map(i => i.value.trim()),
  };
  const error = document.getElementById("lobby-error");
  error.textContent = "";
  const response = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const answer = await response.json();
  if (!response.ok) {
    error.textContent = typeof answer.detail === "string" ? answer.detail : JSON.stringify(answer.detail);
    return;
  }
  if (answer.people.length === 1) { location.href = answer.people[0].url; return; }
  document.getElementById("links").innerHTML = `<p>Table ${esc(answer.table)} is open. One link per person (share them):</p><ul>` +
    answer.people.map(p => `<li><a href="${p.url}" target="_blank">${esc(p.name)}</a></li>`).join("") + `</ul>`;
  refreshTables();
}

async function start() {
  catalogue = await (await fetch("/api/catalogue")).json();
  const [low, high] = catalogue.turn_seconds_range;
  const timer = document.getElementById("turn-seconds");
  timer.title = `0 (off) or ${low} to ${high} seconds`;
  document.getElementById("timer-hint").textContent = `0 (off) or ${low}–${high}`;
  document.getElementById("folders").textContent = catalogue.checkpoint_folders.join(", ");
  fillOptions(document.getElementById("game"), catalogue.games.map(g => g.name), "block");
  document.getElementById("game").addEventListener("change", refreshGame);
  document.getElementById("players").addEventListener("change", refreshSeats);
  document.getElementById("preset").addEventListener("change", refreshPlayers);
  document.getElementById("new-table").addEventListener("submit", createTable);
  refreshGame();
  refreshTables();
}

start();
